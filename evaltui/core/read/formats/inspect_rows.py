"""Inspect AI samples -> the statistics table, and the run's metadata from the log header.

One row per sample; a scorer whose values are dicts gives one score column per key. Shared by
the `.eval` and `.json` formats once their samples are read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from operator import attrgetter
from typing import Any

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.fields import LogPath, dotted, is_finite
from evaltui.core.read.formats.inspect_common import (
    HARNESS,
    MAX_METADATA_CHARS,
    SampleFacts,
    error_message,
    sample_where,
)
from evaltui.core.read.formats.inspect_scores import (
    SCORE_WORDS,
    available_scorers,
    chosen_key,
    key_column,
    score_as_float,
    score_as_verdict,
    score_value,
    scorer_keys,
    value_kind,
)
from evaltui.core.read.formats.jsontext import object_at
from evaltui.core.read.runs import OUTCOME, SCORE_PREFIX, VERDICT_PREFIX, stats_table
from evaltui.core.read.turns import (
    LIMIT_HITS,
    LIMIT_VERDICT,
    NUMERIC_COSTS,
    SampleCost,
    cost_column,
    cost_metric,
)


def build_table(
    path: LogPath, facts: Sequence[SampleFacts], scorer: str | None, requested: str | None = None
) -> pl.DataFrame:
    """The statistics table (`scored_table`), with the samples' cost columns when the log
    records what they cost. `--metric` naming a cost figure (`working_time`) adds it as the
    score `score:<figure>` beside the verdicts: the metric compared (lower is better, see
    `cost_direction`)."""
    figure = cost_metric(requested)
    table = with_costs(scored_table(path, facts, scorer, None if figure else requested), facts)
    return with_cost_metric(path, table, requested)


def with_cost_metric(path: LogPath, table: pl.DataFrame, requested: str | None) -> pl.DataFrame:
    """The metric a `--metric` naming a per-sample cost compares, beside the verdicts: a
    figure as the score `score:<figure>` (a loss), `limit_hits` as the verdict
    `passed:no_limit_hit` (not stopped passes); the table unchanged for any other metric."""
    figure = cost_metric(requested)
    if figure is None:
        return table
    if figure == LIMIT_HITS:
        if cost_column("limit") not in table.columns:
            raise InputError(
                path,
                "--metric limit_hits: the log records nothing of what its samples cost",
                field="limit",
            )
        return table.with_columns(pl.col(cost_column("limit")).is_null().alias(LIMIT_VERDICT))
    column = cost_column(figure)
    if column not in table.columns or table[column].is_null().all():
        raise InputError(
            path,
            f"--metric {requested}: the log records no {figure} for its samples",
            field="model_usage" if figure.endswith("tokens") else figure,
        )
    return table.with_columns(pl.col(column).alias(SCORE_PREFIX + figure))


def cost_direction(requested: str | None) -> dict[str, str]:
    """The run metadata that make a cost figure compared as a loss (lower is better); none
    for `limit_hits`, a verdict (not stopped passes)."""
    if cost_metric(requested) in (None, LIMIT_HITS):
        return {}
    return {"higher_is_better": "false", "direction_source": "a cost: lower is better"}


def with_costs(table: pl.DataFrame, facts: Sequence[SampleFacts]) -> pl.DataFrame:
    """`cost:<name>` columns (COST_COLUMNS): tokens, time, working time, retries as numbers,
    the limit that stopped a sample as its type (null: none). Not scores: they are compared
    beside the metric (`analysis.cost`), never as part of its family."""
    costs: list[Any] = list(map(_COST, facts))
    missing = costs.count(None)  # (in C: a large log's samples nearly all record one)
    if missing == len(costs):
        return table
    if missing:
        nothing = (None,) * len(COST_FIELDS)
        costs = [c or nothing for c in costs]
    by_field = dict(zip(COST_FIELDS, zip(*costs, strict=True), strict=True))
    columns = [
        pl.Series(cost_column(name), by_field[name], dtype=pl.Float64) for name in NUMERIC_COSTS
    ]
    stopped = by_field["limit"]
    limits = (
        [limit.split(" (")[0] if limit else None for limit in stopped]
        if any(stopped)
        else [None] * len(stopped)  # no sample stopped by a limit
    )
    columns.append(pl.Series(cost_column("limit"), limits, dtype=pl.String))
    return table.with_columns(columns)


COST_FIELDS = tuple(f.name for f in fields(SampleCost))  # `SampleFacts.cost`'s order
_COST = attrgetter("cost")


def scored_table(
    path: LogPath, facts: Sequence[SampleFacts], scorer: str | None, requested: str | None = None
) -> pl.DataFrame:
    """The statistics table: one row per sample, in `facts` order (`row` = index in `facts`).

    A scorer whose values are dicts gives one score column per key (`key_column`), the key
    `requested` names (SCORER/KEY or KEY) first, so it is the metric compared by default and
    the others join the metric family."""
    table = _primary_table(path, facts, scorer, requested)
    return table.with_columns(_other_scorers(path, facts, scorer))


def _primary_table(
    path: LogPath, facts: Sequence[SampleFacts], scorer: str | None, requested: str | None
) -> pl.DataFrame:
    keys = scorer_keys(facts).get(scorer) if scorer is not None else None
    if scorer is not None and keys:
        return _keyed_table(path, facts, scorer, keys, requested)
    keys, read = _read_values(path, facts, scorer)
    ids = list(map(_ITEM_ID, facts))
    epochs = list(map(_EPOCH, facts))
    statuses = list(map({k: _STATUS[kind] for k, (kind, _) in read.items()}.__getitem__, keys))
    if any(kind in ("partial", "number") for kind, _ in read.values()):  # graded: C=1, I=0, P=.5
        floats = {k: None if p[0] == "error" else score_as_float(p[1]) for k, p in read.items()}
        table = stats_table(ids, epochs, statuses, score=list(map(floats.__getitem__, keys)))
    else:
        verdicts = {
            k: False if p[0] == "error" else score_as_verdict(p[1]) for k, p in read.items()
        }
        table = stats_table(ids, epochs, statuses, passed=list(map(verdicts.__getitem__, keys)))
    return _with_outcomes(table, keys, read)


_ITEM_ID, _EPOCH = attrgetter("item_id"), attrgetter("epoch")
_INPUT_HASH = attrgetter("input_hash")
_SCORES, _ERROR = attrgetter("scores"), attrgetter("error")
_STATUS = {"error": "error", "verdict": "ok", "partial": "ok", "number": "ok"}
_ERRORED: Any = object()  # the key of an errored sample's row


def _read_values(
    path: LogPath, facts: Sequence[SampleFacts], scorer: str | None
) -> tuple[list[Any], dict[Any, tuple[str, Any]]]:
    """Each row's key, and each key's (kind, value): "verdict", "partial" or "number"
    (`value_kind`), or ("error", None) for an errored sample's key. A value and its kind depend
    on the scores object alone, and a large log's samples share a few
    (`inspect_common.shared_scores`): a row's key is its scores object's identity (the facts
    keep every object alive), and each object is read once, at its first unerrored sample, in
    row order, so a failing one raises at the first sample that holds it, as a loop over the
    rows did. The rows then take their values by C loops: the loop per row was a quarter of
    building a 200,000-sample log's table."""
    if set(map(_ERROR, facts)) <= {None}:
        keys: list[Any] = list(map(id, map(_SCORES, facts)))
    else:
        keys = [id(f.scores) if f.error is None else _ERRORED for f in facts]
    first = dict(zip(reversed(keys), reversed(facts), strict=True))  # each key's first fact
    read: dict[Any, tuple[str, Any]] = {}
    for key in dict.fromkeys(keys):
        if key is _ERRORED:
            read[key] = ("error", None)
            continue
        fact = first[key]
        value = score_value(path, fact, scorer)
        read[key] = (value_kind(path, fact, scorer, value), value)
    return keys, read


def _other_scorers(
    path: LogPath, facts: Sequence[SampleFacts], primary: str | None
) -> list[pl.Series]:
    """Every other scorer of the log as its own metric column, so the decision reads them all:
    pass/fail scorers as `passed:<scorer>`, graded ones as `score:<scorer>`, dict-valued ones
    one `score:<scorer>/<key>` per key. An errored sample fails (or has no score, graded); a
    scored sample without this scorer has no value (the analysis names such items)."""
    keyed = scorer_keys(facts)
    out: list[pl.Series] = []
    for name in available_scorers(facts):
        if name == primary:
            continue
        if name in keyed:
            keyed_table = _keyed_table(path, facts, name, keyed[name], None)
            out += [keyed_table[c] for c in keyed_table.columns if c.startswith(SCORE_PREFIX)]
            continue
        kinds: list[str] = []
        values: list[Any] = []
        for fact in facts:
            if fact.error is not None:
                kinds.append("error")
                values.append(None)
            elif not isinstance(fact.scores, dict) or name not in fact.scores:
                kinds.append("absent")
                values.append(None)
            else:
                value = score_value(path, fact, name)
                kinds.append(value_kind(path, fact, name, value))
                values.append(value)
        pairs = list(zip(kinds, values, strict=True))
        if any(kind in ("partial", "number") for kind in kinds):
            scores = [
                score_as_float(v) if k in ("verdict", "partial", "number") else None
                for k, v in pairs
            ]
            out.append(pl.Series(f"{SCORE_PREFIX}{name}", scores, dtype=pl.Float64))
        else:
            verdicts = [
                False if k == "error" else None if k == "absent" else score_as_verdict(v)
                for k, v in pairs
            ]
            out.append(pl.Series(f"{VERDICT_PREFIX}{name}", verdicts, dtype=pl.Boolean))
    return out


def _with_outcomes(
    table: pl.DataFrame, keys: list[Any], read: dict[Any, tuple[str, Any]]
) -> pl.DataFrame:
    """The raw letter as the item's outcome category (C, I, P, N; an errored sample's is
    "error"), when every scored sample's value is a letter: the mix of outcomes is compared
    beside the verdict (a P or N the score mapping folds into 0.5 or a failure stays itself).
    `keys`, `read`: each row's key and each key's (kind, value) (`_read_values`)."""
    if not all(kind == "error" or value in SCORE_WORDS for kind, value in read.values()):
        return table  # numbers or booleans: no categories to keep
    outcome = {k: "error" if kind == "error" else value for k, (kind, value) in read.items()}
    outcomes = list(map(outcome.__getitem__, keys))
    return table.with_columns(pl.Series(OUTCOME, outcomes, dtype=pl.String))


def _keyed_table(
    path: LogPath,
    facts: Sequence[SampleFacts],
    scorer: str,
    keys: list[str],
    requested: str | None,
) -> pl.DataFrame:
    chosen = chosen_key(path, scorer, keys, requested)
    ordered = [chosen, *(k for k in keys if k != chosen)] if chosen else keys
    columns: dict[str, list[float | None]] = {key: [] for key in ordered}
    for fact in facts:
        if fact.error is not None:
            for key in ordered:
                columns[key].append(None)
            continue
        value = score_value(path, fact, scorer)
        where = sample_where(path, fact.record)
        if not isinstance(value, dict):
            raise where.expected(
                dotted("scores", scorer, "value"),
                f"a dict of values, as in the log's other samples (keys {', '.join(keys)})",
                value,
            )
        for key in ordered:
            if key not in value:
                present = ", ".join(map(str, value)) or "none"
                raise where.error(
                    dotted("scores", scorer, "value", key),
                    f"this sample (id {fact.item_id}, epoch {fact.epoch}) has no value for key "
                    f"'{key}' of scorer '{scorer}' (its keys: {present})",
                )
            item = value[key]
            if not (isinstance(item, bool) or item in SCORE_WORDS or is_finite(item)):
                raise where.error(
                    dotted("scores", scorer, "value", key),
                    f'cannot read the value {where.quoted(item)}; expected "C", "I", '
                    '"P" or "N", true/false, or a finite number',
                )
            columns[key].append(score_as_float(item))
    statuses = ["error" if f.error is not None else "ok" for f in facts]
    table = stats_table([f.item_id for f in facts], [f.epoch for f in facts], statuses)
    return table.with_columns(
        pl.Series(key_column(scorer, key), values, dtype=pl.Float64)
        for key, values in columns.items()
    )


def run_metadata(
    header: Mapping[str, Any],
    scorer: str | None,
    facts: Sequence[SampleFacts],
    *,
    default_status: str,
) -> dict[str, str]:
    """Strings for `Run.metadata`: model, task, dataset, scorer, harness and the run's status."""
    spec = object_at(header, "eval")
    meta: dict[str, str] = {"harness": HARNESS}
    packages = spec.get("packages")
    if isinstance(packages, dict) and packages.get(HARNESS):
        meta["harness_version"] = str(packages[HARNESS])
    for key in (
        "model",
        "task",
        "task_version",
        "task_id",
        "task_file",
        "eval_id",
        "eval_set_id",
        "run_id",
        "created",
    ):
        if _scalar(spec.get(key)):
            meta[key] = str(spec[key])
    dataset = spec.get("dataset")
    if isinstance(dataset, dict):
        for key, value in dataset.items():
            if key == "name" and _scalar(value):
                meta["dataset"] = str(value)
            elif key != "sample_ids" and _scalar(value):
                meta[f"dataset_{key}"] = str(value)
    config = spec.get("config")
    if isinstance(config, dict):
        for key in ("epochs", "limit"):
            if _scalar(config.get(key)):
                meta[key] = str(config[key])
        if isinstance(config.get("epochs_reducer"), list):
            meta["epochs_reducer"] = ", ".join(map(str, config["epochs_reducer"]))
    revision = spec.get("revision")
    if isinstance(revision, dict):
        for key in ("origin", "commit"):
            if _scalar(revision.get(key)):
                meta[f"revision_{key}"] = str(revision[key])
    if _scalar(header.get("version")):
        meta["log_version"] = str(header["version"])
    status = header.get("status")
    meta["run_status"] = str(status) if _scalar(status) else default_status
    run_error = error_message(header.get("error"))
    if run_error:
        meta["run_error"] = run_error[:MAX_METADATA_CHARS]
    if scorer is not None:
        meta["scorer"] = scorer
    available = available_scorers(facts)
    if available:
        meta["scorers"] = ", ".join(available)
    keys = scorer_keys(facts).get(scorer or "")
    if keys:
        meta["scorer_keys"] = ", ".join(keys)
    errors = sum(1 for f in facts if f.error is not None)
    meta["samples"] = str(len(facts))
    meta["sample_errors"] = str(errors)
    if facts and errors == len(facts):
        meta["warning.all_errored"] = (
            f"every one of its {errors} samples errored (the run crashed?), so no sample has a "
            "score: each counts as a failure (--on-error fail), or is excluded with "
            "--on-error exclude"
        )
    return meta


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) and value != ""


PROMPT_HASH = "prompt_hash"  # compare.comparability reads it: which items' prompts changed


def with_prompt_hashes(table: pl.DataFrame, facts: Sequence[SampleFacts]) -> pl.DataFrame:
    """The table with each row's input digest (`inspect_common.input_digest`), when any."""
    hashes = list(map(_INPUT_HASH, facts))
    if hashes.count(None) == len(hashes):
        return table
    return table.with_columns(pl.Series(PROMPT_HASH, hashes, dtype=pl.String))
