"""Agreement statistics as closed forms of item totals, evaluated on many resamples at once.

Each function takes ``totals``, the column sums over items of ``agreement_table.Features``
(shape (columns,) for the data, (resamples, columns) for a bootstrap), and returns the
statistic, NaN where it is undefined (its chance-agreement denominator is 0: every rating, or
for Cohen's kappa both reviewers, used one tag). Written over totals so that a resample costs a
matrix product, not a recount. Notation: N items, n = sum of m_u ratings, n_c ratings with tag c.

- Raw agreement: the mean over items of the share of agreeing pairs of ratings,
  P_u = sum_c n_uc (n_uc - 1) / (m_u (m_u - 1)); with two ratings per item, the share of items
  whose two ratings agree (Cohen's p_o); with m fixed, Fleiss' P-bar.
- Cohen's kappa (Cohen 1960), two reviewers a, b: p_o = agreeing items / N,
  p_e = sum_c a_c b_c / N^2, kappa = (p_o - p_e) / (1 - p_e) = (N agree - S) / (N^2 - S) with
  S = sum_c a_c b_c.
- Fleiss' kappa (Fleiss 1971), m ratings on every item: P-bar as above, p_c = n_c / (N m),
  P_e = sum_c p_c^2, kappa = (P-bar - P_e) / (1 - P_e).
- Krippendorff's alpha, nominal (Krippendorff 2011, "Computing Krippendorff's
  alpha-reliability", section C): with the coincidence matrix o_ck = sum_u (c-k pairs in u) /
  (m_u - 1), D_o / D_e reduces to alpha = 1 - (n - 1)(n - A) / (n^2 - sum_c n_c^2) with
  A = sum_u sum_c n_uc (n_uc - 1) / (m_u - 1) (the coincidences on the diagonal).

Per tag, Cohen's kappa and Krippendorff's alpha of the tag-vs-rest dichotomy (tag c against
every other tag: n_c and n - n_c ratings). For Fleiss' kappa the same recoding gives Fleiss' (1971)
own per-category kappa; the summary reports per tag only its headline statistic.
"""

from __future__ import annotations

import numpy as np

from evaltui.core.stats.agreement_table import Features

__all__ = [
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "raw_agreement",
    "tag_cohen_kappa",
    "tag_krippendorff_alpha",
]


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is 0 (the statistic is undefined)."""
    zero = denominator == 0.0
    return np.where(zero, np.nan, numerator / np.where(zero, 1.0, denominator))


def raw_agreement(f: Features, totals: np.ndarray) -> np.ndarray:
    return _ratio(totals[..., f.PAIRS], totals[..., f.ONE])


def cohen_kappa(f: Features, totals: np.ndarray) -> np.ndarray:
    n = totals[..., f.ONE]
    chance = (totals[..., f.block("first")] * totals[..., f.block("second")]).sum(axis=-1)
    agree = totals[..., f.block("both")].sum(axis=-1)
    return _ratio(n * agree - chance, n * n - chance)


def _fleiss(
    n_items: np.ndarray, ratings: np.ndarray, pairs: np.ndarray, squares: np.ndarray
) -> np.ndarray:
    """(P-bar - P_e) / (1 - P_e) with P-bar = pairs / N and P_e = squares / ratings^2."""
    return _ratio(ratings * ratings * pairs / n_items - squares, ratings * ratings - squares)


def fleiss_kappa(f: Features, totals: np.ndarray) -> np.ndarray:
    n_c = totals[..., f.block("n")]
    with np.errstate(invalid="ignore", divide="ignore"):
        return _fleiss(
            totals[..., f.ONE], totals[..., f.M], totals[..., f.PAIRS], (n_c * n_c).sum(axis=-1)
        )


def _alpha(ratings: np.ndarray, agree: np.ndarray, squares: np.ndarray) -> np.ndarray:
    return 1.0 - _ratio((ratings - 1.0) * (ratings - agree), ratings * ratings - squares)


def krippendorff_alpha(f: Features, totals: np.ndarray) -> np.ndarray:
    n_c = totals[..., f.block("n")]
    return _alpha(totals[..., f.M], totals[..., f.AGREE], (n_c * n_c).sum(axis=-1))


def _dichotomy_squares(f: Features, totals: np.ndarray) -> np.ndarray:
    """sum of squared category totals of each tag-vs-rest dichotomy: n_c^2 + (n - n_c)^2."""
    n_c = totals[..., f.block("n")]
    rest = totals[..., f.M, None] - n_c
    return n_c * n_c + rest * rest


def tag_krippendorff_alpha(f: Features, totals: np.ndarray) -> np.ndarray:
    return _alpha(
        totals[..., f.M, None], totals[..., f.block("agree_tag")], _dichotomy_squares(f, totals)
    )


def tag_cohen_kappa(f: Features, totals: np.ndarray) -> np.ndarray:
    n = totals[..., f.ONE, None]
    a, b = totals[..., f.block("first")], totals[..., f.block("second")]
    both = totals[..., f.block("both")]
    agree = n - a - b + 2.0 * both  # both gave c, or neither did
    chance = a * b + (n - a) * (n - b)
    return _ratio(n * agree - chance, n * n - chance)
