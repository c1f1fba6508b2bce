"""Inspect AI's scorers and their values: which scorer a run is compared on, and what a
Score's value counts as.

Score values (Inspect's `value_to_float`): "C" correct -> 1, "I" incorrect -> 0, "P" partial ->
0.5, "N" no answer -> 0. A log whose values are all C/I/N (or real booleans) gets a `passed`
column; a "P" or any number turns the whole column into a graded `score` (C=1, I=0, P=0.5, N=0).
Anything else is an error naming the record and the value: no guessing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.fields import LogPath, dotted, is_finite
from evaltui.core.read.formats.inspect_common import SampleFacts, sample_where
from evaltui.core.read.runs import SCORE_PREFIX

VERDICT_WORDS: dict[str, bool] = {"C": True, "I": False, "N": False}
SCORE_WORDS: dict[str, float] = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
UNSCORED_HINT = "run `inspect score <log>` to score it first"


def has_scores(facts: SampleFacts) -> bool:
    return isinstance(facts.scores, dict) and len(facts.scores) > 0


def scorer_candidates(header: Mapping[str, Any]) -> list[str]:
    """Scorer names in the order the log's header lists them (results first, then the spec)."""
    names: list[str] = []
    results = header.get("results")
    if isinstance(results, dict) and isinstance(results.get("scores"), list):
        for entry in results["scores"]:
            if isinstance(entry, dict):
                for key in ("name", "scorer"):
                    if isinstance(entry.get(key), str):
                        names.append(entry[key])
    spec = header.get("eval")
    if isinstance(spec, dict) and isinstance(spec.get("scorers"), list):
        for entry in spec["scorers"]:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                names.append(entry["name"])
    return list(dict.fromkeys(names))


def available_scorers(facts: Iterable[SampleFacts]) -> list[str]:
    seen: dict[str, None] = {}
    for scores in _distinct_scores(facts):
        for name in scores:
            seen.setdefault(str(name), None)
    return list(seen)


class SettledFacts(tuple[SampleFacts, ...]):
    """A log's facts once read (a tuple: they no longer change), whose distinct scores dicts
    are found once: choosing the scorer, building the table and its metadata asked for them
    six times, a pass over 200,000 facts each (0.07 s of a large log's open)."""

    _distinct: list[dict[str, Any]] | None = None

    def distinct_scores(self) -> list[dict[str, Any]]:
        if self._distinct is None:
            self._distinct = list(_find_distinct(self))
        return self._distinct


def _distinct_scores(facts: Iterable[SampleFacts]) -> Iterator[dict[str, Any]]:
    """Each fact's scores dict once, in order of first appearance (found once for
    `SettledFacts`)."""
    if isinstance(facts, SettledFacts):
        return iter(facts.distinct_scores())
    return _find_distinct(facts)


def _find_distinct(facts: Iterable[SampleFacts]) -> Iterator[dict[str, Any]]:
    """Each fact's scores dict once, in order of first appearance: the facts of a large log
    share a few (`inspect_common.shared_scores`), so a pass over them is a pass over those."""
    facts = facts if isinstance(facts, Sequence) else list(facts)
    # How many distinct objects there are, in C: the loop below stops once it has met them
    # all (after a few facts when they share), where a dozen Python passes a load over
    # 200,000 facts each were a tenth of a second per open.
    distinct = len(set(map(id, map(_SCORES, facts))))
    seen: set[int] = set()  # ids of objects alive throughout (the facts hold them)
    for scores in map(_SCORES, facts):
        if id(scores) not in seen:
            seen.add(id(scores))
            if isinstance(scores, dict):
                yield scores
            if len(seen) == distinct:
                return


_SCORES = attrgetter("scores")


def check_scored(path: LogPath, header: Mapping[str, Any], facts: Sequence[SampleFacts]) -> None:
    """A log written without scoring (`inspect eval --no-score`) has `"scores": {}` everywhere."""
    if any(has_scores(f) for f in facts):
        return
    if all(f.error is not None for f in facts):
        return  # every sample errored: they load as failures, not as an unscored log
    results = header.get("results")
    detail = ""
    if isinstance(results, dict) and results.get("scores") == []:
        detail = " and results.scores is empty"
    raise InputError(
        path,
        f"the log is unscored: none of its {len(facts)} samples has a score{detail}; "
        f"{UNSCORED_HINT}",
        field="scores",
    )


def choose_scorer(
    path: LogPath, header: Mapping[str, Any], facts: Sequence[SampleFacts], requested: str | None
) -> str | None:
    """The scorer whose values become the verdicts: the requested one, else the header's first."""
    available = available_scorers(facts)
    if facts and all(f.error is not None for f in facts):
        # A crashed run: no sample got as far as a scorer, so there is nothing to check the
        # name against. Every sample is a failure whatever the scorer; keep the name asked for.
        return requested if requested is not None else next(iter(scorer_candidates(header)), None)
    if requested is not None:
        if requested in available:
            return requested
        if _family_column(requested, available):
            requested = None  # the default table has that column beside the first scorer's
        else:
            return _named_scorer(path, facts, available, requested)
    for name in scorer_candidates(header):
        if name in available:
            return name
    return available[0] if available else None


def _family_column(requested: str, available: Sequence[str]) -> bool:
    """Whether `requested` is a column the table makes for a scorer of this log beside the
    first one (`passed:safe_advice`, `score:judge/accuracy`): what a spec holds after the app
    moved to another scorer (`m`, or a set opened on the scorer that blocks). Replaying it
    reads the log as it was read then; the column is chosen from the table."""
    prefix, colon, rest = requested.partition(":")
    if not colon or prefix not in ("passed", "score"):
        return False
    return rest.partition(KEY_SEPARATOR)[0] in available


def _named_scorer(
    path: LogPath, facts: Sequence[SampleFacts], available: Sequence[str], requested: str
) -> str:
    """The scorer `requested` names: a scorer's key as SCORER/KEY, or a key of one
    dict-valued scorer named alone; else the error listing what there is."""
    keys = scorer_keys(facts)
    scorer, slash, _key = requested.partition(KEY_SEPARATOR)
    if slash and scorer in keys:  # "scorer/key": the key is checked by build_table
        return scorer
    owners = [name for name, names in keys.items() if requested in names]
    if len(owners) == 1:  # a key of one dict-valued scorer, named alone
        return owners[0]
    listing = ", ".join(_with_keys(name, keys) for name in available) if available else "none"
    raise InputError(
        path,
        f"no scorer named '{requested}' in this log; available scorers: {listing} "
        "(choose one with --metric, a key of a dict-valued scorer as SCORER/KEY)",
        field="scores",
    )


KEY_SEPARATOR = "/"  # --metric SCORER/KEY: one key of a scorer whose value is a dict


def scorer_keys(facts: Iterable[SampleFacts]) -> dict[str, list[str]]:
    """The keys of each dict-valued scorer (SciCode's returns {"Problem Correctness": ...,
    "Subproblem Correctness": ...}), in order of first appearance."""
    found: dict[str, dict[str, None]] = {}
    for scores in _distinct_scores(facts):
        for name, score in scores.items():
            value = score.get("value") if isinstance(score, dict) else None
            if isinstance(value, dict):
                names = found.setdefault(str(name), {})
                for key in value:
                    names.setdefault(str(key), None)
    return {name: list(names) for name, names in found.items()}


def _with_keys(name: str, keys: Mapping[str, list[str]]) -> str:
    if name not in keys:
        return name
    return f"{name} (keys: {', '.join(f'{name}{KEY_SEPARATOR}{k}' for k in keys[name])})"


def key_column(scorer: str, key: str) -> str:
    """The score column of one key of a dict-valued scorer: `score:<scorer>/<key>`."""
    return f"{SCORE_PREFIX}{scorer}{KEY_SEPARATOR}{key}"


def chosen_key(path: LogPath, scorer: str, keys: list[str], requested: str | None) -> str | None:
    if requested is None or requested == scorer:
        return None
    name, slash, key = requested.partition(KEY_SEPARATOR)
    wanted = key if slash and name == scorer else requested
    if wanted in keys:
        return wanted
    raise InputError(
        path,
        f"scorer '{scorer}' has no key '{wanted}'; its keys: "
        + ", ".join(f"{scorer}{KEY_SEPARATOR}{k}" for k in keys)
        + " (choose one with --metric SCORER/KEY)",
        field=dotted("scores", scorer, "value"),
    )


def score_value(path: LogPath, fact: SampleFacts, scorer: str | None) -> Any:
    scores = fact.scores
    if type(scores) is dict and scorer is not None:  # the common case, once per sample: no Where
        score = scores.get(scorer)
        if type(score) is dict and "value" in score:
            return score["value"]
    where = sample_where(path, fact.record)
    if not isinstance(fact.scores, dict):
        raise where.error(
            "scores",
            f"expected the sample's scores (an object of scorer name -> score), got "
            f"{where.quoted(fact.scores)} (sample id {fact.item_id}, epoch {fact.epoch})",
        )
    field = dotted("scores", scorer)
    if scorer is None or scorer not in fact.scores:
        present = ", ".join(map(str, fact.scores)) or "none"
        raise where.error(
            field,
            f"expected a score from scorer '{scorer}', but this sample (id {fact.item_id}, epoch "
            f"{fact.epoch}) has scores from: {present}",
        )
    score = fact.scores[scorer]
    if not isinstance(score, dict) or "value" not in score:
        raise where.expected(field, "a Score object with a 'value'", score)
    return score["value"]


def value_kind(path: LogPath, fact: SampleFacts, scorer: str | None, value: Any) -> str:
    if isinstance(value, bool):
        return "verdict"
    if isinstance(value, str):
        if value in VERDICT_WORDS:
            return "verdict"
        if value == "P":
            return "partial"
    elif is_finite(value):
        return "number"
    where = sample_where(path, fact.record)
    raise where.error(
        dotted("scores", scorer, "value"),
        f'cannot read the score value {where.quoted(value)}; expected "C", "I", "P" or "N", '
        "true/false, or a finite number",
    )


def score_as_verdict(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return VERDICT_WORDS[value]


def score_as_float(value: Any) -> float:
    if isinstance(value, str):
        return SCORE_WORDS[value]
    return float(value)
