"""Repeated runs (epochs) of the same items: how many each item had, and how one arm's
per-record variance splits within items (epoch noise) and between them (item differences).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import validate

__all__ = ["EpochSummary", "epoch_summary"]


@dataclass(frozen=True)
class EpochSummary:
    """How many epochs items had, and how the per-record variance splits within/between items.

    Computed per arm. ``within_share`` near 1 says most of the noise is resampling noise inside
    items (more epochs help); near 0 says items differ from each other (more items help).
    ``flags``: ``unequal_epochs``, ``single_epoch`` (no item has two epochs: within-item
    variance unknown, reported 0), ``single_item`` (between-item variance unknown, reported 0),
    ``no_variance`` (within + between is 0: ``within_share`` undefined, reported 0).
    """

    epochs_min: int
    epochs_max: int
    epochs_mean: float
    unequal: bool
    within_item_variance: float
    between_item_variance: float
    within_share: float
    n_items: int
    flags: tuple[str, ...] = ()
    item_mean_variance: float = 0.0  # the variance of the per-item means (see epoch_summary)


def epoch_summary(item_index: np.ndarray, values: np.ndarray) -> EpochSummary:
    """Summarise repeated runs (epochs) of the same items in one arm.

    Follows Miller (2024), "Adding Error Bars to Evals: A Statistical Approach to Language
    Model Evaluations", arXiv:2411.00640, section on resampling (within-question variance):
    an item's score over K epochs is its true mean plus sampling noise, and the variance of the
    item's K-epoch mean is the within-item variance divided by K. So:

    - ``within_item_variance``: the mean over items of the variance (ddof=1) of each item's
      epoch values; items with one epoch have no within-item information and contribute
      nothing. Divide by K to get the epoch noise left in an item's mean.
    - ``item_mean_variance``: the variance (ddof=1) of the per-item means: the variance the
      paired analysis sees. It still holds within/K of epoch noise, so
    - ``between_item_variance`` = item_mean_variance - within * mean(1/K), the variance of the
      items' true means (method of moments, floored at 0), and
    - ``within_share`` = within / (within + between): the share of one record's variance that
      lies within items. (Dividing by the item-mean variance instead understates it: a true
      share of 0.80 over 3 epochs read as 0.63.)

    ``item_index`` holds one code per record (e.g. polars ``rank("dense")`` or categorical
    codes); codes need not be contiguous. ``values`` are the per-record scores (0/1 verdicts).
    """
    vals = validate.sample("values", values)
    codes = validate.aligned("item_index", item_index, "values", vals.size)
    if not np.issubdtype(codes.dtype, np.integer):
        raise ValueError(f"item_index must hold integer codes, got dtype {codes.dtype}")

    _, inverse = np.unique(codes, return_inverse=True)
    epochs = np.bincount(inverse)
    n_items = epochs.size
    item_means = np.bincount(inverse, weights=vals) / epochs
    dev = vals - item_means[inverse]
    ss = np.bincount(inverse, weights=dev * dev)

    flags: list[str] = []
    multi = epochs >= 2
    if epochs.min() != epochs.max():
        flags.append("unequal_epochs")
    if multi.any():
        within = float(np.mean(ss[multi] / (epochs[multi] - 1)))
    else:
        within = 0.0
        flags.append("single_epoch")
    if n_items >= 2:
        item_mean_variance = float(np.var(item_means, ddof=1))
        between = max(0.0, item_mean_variance - within * float(np.mean(1.0 / epochs)))
    else:
        item_mean_variance = between = 0.0
        flags.append("single_item")
    denom = within + between
    if denom > 0:
        share = within / denom
    else:
        share = 0.0
        flags.append("no_variance")

    return EpochSummary(
        epochs_min=int(epochs.min()),
        epochs_max=int(epochs.max()),
        epochs_mean=float(epochs.mean()),
        unequal=bool(epochs.min() != epochs.max()),
        within_item_variance=within,
        between_item_variance=between,
        within_share=share,
        n_items=int(n_items),
        flags=tuple(flags),
        item_mean_variance=item_mean_variance,
    )
