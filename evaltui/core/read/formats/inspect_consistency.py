"""Whether an Inspect `.eval` log's sample summaries agree with its own results.

Opening a run reads `summaries.json` (a few members) instead of every sample: fast, and
right as long as the summaries hold the samples' scores. Nothing in the archive guarantees it
(an edited or half-rewritten log, a summary written before a re-score). The header's results
were computed by Inspect from the samples' scores, so they are a cheap check: for each scorer
whose results give a mean (`accuracy`, `mean`) over the epoch-averaged values, the summaries'
own mean must match. When it does not, the loader reads the sample members (the authority
for a sample's scores), uses them, and says so in the run's metadata; it never picks one of
the two in silence.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from operator import attrgetter, is_not
from typing import Any

from evaltui.core.read.formats.fields import is_finite
from evaltui.core.read.formats.inspect_common import SampleFacts
from evaltui.core.read.formats.inspect_scores import SCORE_WORDS

MEAN_METRICS = ("accuracy", "mean")  # metrics that are the mean of the reduced values
MEAN_REDUCERS = (None, "mean")  # epochs reduced by their mean (Inspect's default)
TOLERANCE = 1e-6  # the header's float against the same mean recomputed
INCONSISTENT = "inconsistent_scores"  # the metadata key the decision reads
WARNING = "warning.inconsistent_scores"


@dataclass(frozen=True)
class Mismatch:
    """A scorer whose results metric differs from the mean of the summaries' values."""

    scorer: str
    metric: str
    header: float
    computed: float
    source: str  # what the computed mean was read from: "the summaries", "the samples"

    @property
    def text(self) -> str:
        return (
            f"{self.scorer} {self.metric} {self.header:.4g} in the header's results, "
            f"{self.computed:.4g} from {self.source}"
        )


def header_means(header: Mapping[str, Any]) -> dict[str, tuple[str, float]]:
    """Scorer name -> (metric, value) for each results score with a mean metric and a mean
    (or no) epoch reducer."""
    results = header.get("results")
    scores = results.get("scores") if isinstance(results, dict) else None
    out: dict[str, tuple[str, float]] = {}
    for score in scores if isinstance(scores, list) else ():
        if not isinstance(score, dict) or score.get("reducer") not in MEAN_REDUCERS:
            continue
        name, metrics = score.get("name"), score.get("metrics")
        if not isinstance(name, str) or not isinstance(metrics, dict):
            continue
        for metric in MEAN_METRICS:
            entry = metrics.get(metric)
            value = entry.get("value") if isinstance(entry, dict) else None
            if isinstance(value, int | float) and not isinstance(value, bool) and is_finite(value):
                out[name] = (metric, float(value))
                break
    return out


def facts_mean(facts: Sequence[SampleFacts], scorer: str) -> float | None:
    """The mean over items of each item's mean value across epochs (Inspect's mean reducer,
    then its mean metric); None when a value is not a number, a letter or a boolean."""
    found = _single_epoch_mean(facts, scorer)
    if found is not _UNREAD:
        return found
    per_item: dict[str, list[float]] = {}
    numbers: dict[int, Any] = {}  # by scores object: a large log's samples share a few
    for fact in facts:
        if fact.error is not None:
            continue
        if (number := numbers.get(id(fact.scores), _UNREAD)) is _UNREAD:
            number = numbers[id(fact.scores)] = _score_number(fact.scores, scorer)
        if number is None:
            continue
        if number is _UNCHECKED:
            return None  # a dict or a word Inspect's metrics read their own way: not checked
        per_item.setdefault(fact.item_id, []).append(number)
    if not per_item:
        return None
    return math.fsum(math.fsum(v) / len(v) for v in per_item.values()) / len(per_item)


_UNREAD: Any = object()
_UNCHECKED: Any = object()  # a value Inspect's metrics read their own way
_ITEM_ID, _SCORES, _ERROR = attrgetter("item_id"), attrgetter("scores"), attrgetter("error")


def _single_epoch_mean(facts: Sequence[SampleFacts], scorer: str) -> Any:
    """`facts_mean` without a Python step per sample, when no fact has an error and no item
    repeats (one epoch: nearly every large log), else `_UNREAD` (the loop decides). Each
    item's mean over its one epoch is then its number (`fsum([x]) / 1 == x`), and `fsum` is
    exact whatever the order, so the mean is `fsum` of the numbers over their count: the same
    float. A 200,000-sample log's loop was a twentieth of its open."""
    if not facts or _types(map(_ERROR, facts)) != {type(None)}:
        return _UNREAD
    if len(set(map(_ITEM_ID, facts))) != len(facts):
        return _UNREAD
    scores = list(map(_SCORES, facts))
    keys = list(map(id, scores))
    distinct = dict(zip(keys, scores, strict=True))  # the samples share a few scores objects
    number_of = {key: _score_number(s, scorer) for key, s in distinct.items()}
    if any(number is _UNCHECKED for number in number_of.values()):
        return None
    numbers = list(map(number_of.__getitem__, keys))  # (each step in C)
    if None in number_of.values():
        numbers = list(filter(partial(is_not, None), numbers))
    return math.fsum(numbers) / len(numbers) if numbers else None


def _types(values: Iterable[Any]) -> set[type]:
    return set(map(type, values))


def _score_number(scores: Any, scorer: str) -> Any:
    """The number `facts_mean` counts for one sample's scores: None when the sample has no
    value from `scorer`, `_UNCHECKED` when the value is not one Inspect's mean reads."""
    if not isinstance(scores, dict):
        return None
    score = scores.get(scorer)
    if not isinstance(score, dict) or "value" not in score:
        return None
    value = score["value"]
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value in SCORE_WORDS:
        return SCORE_WORDS[value]
    if is_finite(value):
        return float(value)
    return _UNCHECKED


def mismatches(
    header: Mapping[str, Any], facts: Sequence[SampleFacts], source: str
) -> list[Mismatch]:
    """Each scorer whose header mean the facts (read from `source`) do not reproduce."""
    out = []
    for scorer, (metric, value) in header_means(header).items():
        computed = facts_mean(facts, scorer)
        if computed is not None and abs(computed - value) > TOLERANCE:
            out.append(Mismatch(scorer, metric, value, computed, source))
    return out


def differing_samples(summaries: Sequence[SampleFacts], samples: Sequence[SampleFacts]) -> int:
    """How many (id, epoch) have different scores in their summary and in their member."""
    own = {(f.item_id, f.epoch): f.scores for f in samples}
    return sum(
        1
        for f in summaries
        if (f.item_id, f.epoch) in own and _values(f.scores) != _values(own[(f.item_id, f.epoch)])
    )


def _values(scores: Any) -> Any:
    if not isinstance(scores, dict):
        return scores
    return {k: (v.get("value") if isinstance(v, dict) else v) for k, v in scores.items()}
