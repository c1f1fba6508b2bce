"""Join two runs item by item, following the pairing rules, and say exactly what happened.

Nothing is dropped silently: an item missing from one side is an error (or, with
`allow_missing`, attrition reported per arm by id); a duplicate id is an error unless epochs
explain it; errored records are failures unless the user excludes them, and then they are
counted per arm. Epoch k of one run has nothing to do with epoch k of the other: each item's
epochs are averaged within its arm, and only the per-item means are paired.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

import numpy as np
import polars as pl

from evaltui.core.compare.errored import errored_treatment
from evaltui.core.compare.item_join import first_per_item, side_by_side
from evaltui.core.compare.lookalikes import lookalike_warnings
from evaltui.core.compare.run_metadata import metadata_warnings
from evaltui.core.errors import InputError, PairingError, UsageError
from evaltui.core.read.runs import (
    CLUSTER,
    EPOCH,
    FAILURE_STATUSES,
    ITEM_ID,
    PASSED,
    ROW,
    SLICE,
    STATUS,
    Run,
    is_score_column,
    is_verdict_column,
)

OnError = Literal["fail", "exclude"]
ON_ERROR_CHOICES = ("fail", "exclude")
SHOW_IDS = 5  # how many ids an error message lists before "..."

# Columns of PairedRuns.items
BASE_PASS = "baseline_pass"
CAND_PASS = "candidate_pass"
BASE_ROW = "baseline_row"
CAND_ROW = "candidate_row"
BASE_EPOCHS = "baseline_epochs"
CAND_EPOCHS = "candidate_epochs"
BASE_STATUS = "baseline_status"
CAND_STATUS = "candidate_status"


def arm_columns(metric: str) -> tuple[str, str]:
    """The (baseline, candidate) columns of `PairedRuns.items` holding `metric`: the per-item
    pass rate for "passed", else the score column's per-item mean."""
    if metric == PASSED:
        return BASE_PASS, CAND_PASS
    return f"baseline_{metric}", f"candidate_{metric}"


@dataclass(frozen=True)
class PairingOptions:
    allow_missing: bool = False
    on_error: OnError = "fail"

    def __post_init__(self) -> None:
        if self.on_error not in ON_ERROR_CHOICES:
            raise UsageError(
                f"--on-error must be one of {', '.join(ON_ERROR_CHOICES)}, got {self.on_error!r}"
            )


@dataclass(frozen=True)
class ArmReport:
    """What pairing did to one arm."""

    records: int  # records in the file (items x epochs)
    items: int  # distinct item ids in the file
    errored_records: int  # status error/timeout
    excluded_records: int  # removed by on_error=exclude
    epochs_min: int
    epochs_max: int
    missing_items: tuple[str, ...]  # ids of the *other* arm that this arm lacks

    @property
    def unequal_epochs(self) -> bool:
        return self.epochs_min != self.epochs_max


@dataclass(frozen=True)
class PairingReport:
    """The pairing as the report and the sign-off record state it."""

    paired: int
    baseline: ArmReport
    candidate: ArmReport
    allow_missing: bool
    on_error: OnError
    excluded_items: tuple[str, ...] = ()  # items dropped from both arms by on_error=exclude
    slice_conflicts: int = 0  # paired items whose slice differs between the files
    warnings: tuple[str, ...] = field(default=())

    @property
    def missing_in_baseline(self) -> tuple[str, ...]:
        return self.baseline.missing_items

    @property
    def missing_in_candidate(self) -> tuple[str, ...]:
        return self.candidate.missing_items

    @property
    def has_epochs(self) -> bool:
        return self.baseline.epochs_max > 1 or self.candidate.epochs_max > 1

    @property
    def problems(self) -> list[str]:
        """Plain-words pairing problems a reviewer must not miss (empty when clean), errored
        records stated as a verdict or score counts them (failures); `problems_for` follows
        the compared metric."""
        return self.problems_for(None)

    def problems_for(self, metric: str | None) -> list[str]:
        """The problems with errored records stated as `metric` counts them (`errored`)."""
        out = []
        for name, arm in (("baseline", self.baseline), ("candidate", self.candidate)):
            if arm.missing_items:
                out.append(
                    f"{len(arm.missing_items)} item(s) missing from the {name} "
                    f"(paired on the overlap): {_list_ids(arm.missing_items)}"
                )
        if self.on_error == "exclude" and self.excluded_items:
            out.append(
                f"{len(self.excluded_items)} item(s) excluded for errors/timeouts "
                f"(baseline {self.baseline.excluded_records} records, "
                f"candidate {self.candidate.excluded_records} records)"
            )
        elif self.on_error == "fail":
            errs = (self.baseline.errored_records, self.candidate.errored_records)
            if any(errs):
                out.append(
                    f"errors/timeouts {errored_treatment(metric)}: "
                    f"baseline {errs[0]}, candidate {errs[1]}"
                )
        for name, arm in (("baseline", self.baseline), ("candidate", self.candidate)):
            if arm.unequal_epochs:
                out.append(
                    f"unequal epochs in the {name}: {arm.epochs_min} to {arm.epochs_max} per item"
                )
        out.extend(self.warnings)
        return out


@dataclass(frozen=True, eq=False)
class PairedRuns:
    """Two runs joined on item id: one row per paired item, in baseline file order.

    `items` columns: item_id, baseline_pass / candidate_pass (per-item mean of the verdicts over
    epochs; 0.0 or 1.0 for single-epoch runs), one `baseline_<score>` / `candidate_<score>` pair
    per score column both runs have, slice, cluster (when either run has them), baseline_row /
    candidate_row (first record, for drill-down), baseline_epochs / candidate_epochs,
    baseline_status / candidate_status (worst status over epochs).
    """

    baseline: Run
    candidate: Run
    items: pl.DataFrame
    report: PairingReport
    score_columns: tuple[str, ...]
    # Further pass/fail metrics both runs carry (`passed:<scorer>`), carried per item as the
    # pass rate over epochs like `passed`; each is compared as its own family member.
    verdict_columns: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return self.items.height

    @property
    def has_verdicts(self) -> bool:
        return BASE_PASS in self.items.columns

    @cached_property
    def binary(self) -> bool:
        """True when every per-item verdict is 0 or 1, so the 2x2 table applies as it stands."""
        if not self.has_verdicts:
            return False
        if not self.report.has_epochs:
            return True  # one verdict per item and arm
        for column in (BASE_PASS, CAND_PASS):
            values = self.items[column].to_numpy()
            if not np.all((values == 0.0) | (values == 1.0)):
                return False
        return True

    def verdicts(self, metric: str = PASSED) -> tuple[np.ndarray, np.ndarray]:
        """Per-item pass/fail (bool arrays) of a verdict metric, for the binary analysis."""
        base_col, cand_col = arm_columns(metric)
        base = self.items[base_col].to_numpy() >= 1.0
        cand = self.items[cand_col].to_numpy() >= 1.0
        return base, cand

    def is_binary(self, metric: str) -> bool:
        """True when `metric` is a verdict metric whose per-item values are all 0 or 1 (each
        item's epochs agree, or one epoch), so the 2x2 table applies."""
        if metric == PASSED:
            return self.binary
        if metric not in self.verdict_columns:
            return False
        for column in arm_columns(metric):
            values = self.items[column].to_numpy()
            if not np.all((values == 0.0) | (values == 1.0)):
                return False
        return True


def pair_runs(baseline: Run, candidate: Run, options: PairingOptions | None = None) -> PairedRuns:
    """Pair two loaded runs; raise PairingError/InputError instead of guessing."""
    options = options or PairingOptions()
    for run in (baseline, candidate):
        _check_duplicates(run)
    baseline, candidate = _crashed_takes_the_others_shape(baseline, candidate)
    if baseline.has_verdicts != candidate.has_verdicts:
        missing = candidate if baseline.has_verdicts else baseline
        raise InputError(
            missing.source.path,
            "has no 'passed' verdicts but the other run does; both runs need the same metric",
            field=PASSED,
        )
    scores = tuple(c for c in baseline.score_columns if c in candidate.score_columns)
    verdicts = tuple(c for c in baseline.verdict_columns if c in candidate.verdict_columns)
    if not baseline.has_verdicts and not scores:
        raise InputError(
            candidate.source.path,
            "shares no score column with the baseline "
            f"(baseline: {', '.join(baseline.score_columns)}; "
            f"candidate: {', '.join(candidate.score_columns)})",
        )

    base_items = _per_item(baseline, scores + verdicts)
    cand_items = _per_item(candidate, scores + verdicts)
    excluded: set[str] = set()
    excluded_records = {"baseline": 0, "candidate": 0}
    if options.on_error == "exclude":
        for name, run in (("baseline", baseline), ("candidate", candidate)):
            errored = run.table.filter(pl.col(STATUS).is_in(list(FAILURE_STATUSES)))
            excluded_records[name] = errored.height
            excluded.update(errored[ITEM_ID].to_list())
        base_items = base_items.filter(~pl.col(ITEM_ID).is_in(list(excluded)))
        cand_items = cand_items.filter(~pl.col(ITEM_ID).is_in(list(excluded)))

    joined = side_by_side(base_items, cand_items)
    only_base: tuple[str, ...] = ()
    only_cand: tuple[str, ...] = ()
    if joined.height < max(base_items.height, cand_items.height):  # ids are unique per arm
        only_base = _only_in(base_items, cand_items)
        only_cand = _only_in(cand_items, base_items)
    if (only_base or only_cand) and not options.allow_missing:
        raise PairingError(_missing_message(baseline, candidate, only_base, only_cand))
    if joined.height == 0:
        raise PairingError(
            f"{baseline.source.path} and {candidate.source.path} share no item ids; "
            "expected two runs of the same items"
        )
    _check_doc_hashes(baseline, candidate, joined)
    items, conflicts = _shape_items(joined, scores + verdicts)

    warnings = [*metadata_warnings(baseline, candidate), *lookalike_warnings(baseline, candidate)]
    if conflicts:
        warnings.append(
            f"{conflicts} paired item(s) have a different slice in the two files; "
            "the baseline's slice is used"
        )
    report = PairingReport(
        paired=items.height,
        baseline=_arm_report(baseline, excluded_records["baseline"], only_cand),
        candidate=_arm_report(candidate, excluded_records["candidate"], only_base),
        allow_missing=options.allow_missing,
        on_error=options.on_error,
        excluded_items=tuple(sorted(excluded)),
        slice_conflicts=conflicts,
        warnings=tuple(warnings),
    )
    return PairedRuns(baseline, candidate, items, report, scores, verdicts)


def _all_errored(run: Run) -> bool:
    """(An expression, not `table[STATUS]`: a run without a status column holds it as one
    "ok" broadcast, which taking the column would spell out a million times.)"""
    if run.table.height == 0:
        return False
    errored = pl.col(STATUS).is_in(list(FAILURE_STATUSES)).all()
    return bool(run.table.select(errored).item())


def paired_shapes(baseline: Run, candidate: Run) -> tuple[Run, Run]:
    """The two runs as `pair_runs` pairs them (a crashed run takes the other's columns): what
    a cached analysis' `PairedRuns` holds when it is rebuilt without pairing."""
    return _crashed_takes_the_others_shape(baseline, candidate)


def _crashed_takes_the_others_shape(baseline: Run, candidate: Run) -> tuple[Run, Run]:
    """A run in which every record errored has no verdict or score of its own (its loader
    cannot know whether the scorer gives verdicts or numbers), so it takes the other run's
    columns: every verdict false and every score 0, a failure, as errored records count. It is
    a result to compare, not a pair that cannot be made; the loader's warning says so."""
    runs = [baseline, candidate]
    for i, (run, other) in enumerate(((baseline, candidate), (candidate, baseline))):
        if not _all_errored(run) or _all_errored(other):
            continue
        metrics = [
            c
            for c in run.table.columns
            if c == PASSED or is_score_column(c) or is_verdict_column(c)
        ]
        table = run.table.drop(metrics)
        fills = [pl.lit(False).alias(PASSED)] if other.has_verdicts else []
        fills += [pl.lit(False).alias(c) for c in other.verdict_columns]
        fills += [pl.lit(0.0).alias(c) for c in other.score_columns]
        runs[i] = replace(run, table=table.with_columns(fills))
    return runs[0], runs[1]


def _ids_strictly_increasing(table: pl.DataFrame) -> bool:
    """Whether every id is greater than the one before it (then no two are equal). Many runs
    list their items in id order: one vectorised comparison (0.02 s CPU at a million ids)
    instead of hashing every id (0.36 s)."""
    ids = table.get_column(ITEM_ID)
    if table.height < 2 or ids.null_count():
        return table.height < 2
    return bool((ids.slice(1) > ids.slice(0, table.height - 1)).all())


def _check_duplicates(run: Run) -> None:
    table = run.table
    if table[EPOCH].n_unique() == 1 and (
        _ids_strictly_increasing(table) or table[ITEM_ID].n_unique() == table.height
    ):
        return  # one epoch, and no id twice: no two records share (id, epoch) (counting the
        # ids costs a sixth of marking duplicated rows: 2.5 against 16 ms at 200,000 text ids,
        # twice on the way to the first screen; ids in increasing order need neither)
    keys = table.select(ITEM_ID, EPOCH)
    if not keys.is_duplicated().any():
        return  # the common case, checked in one pass; the details below only on failure
    dupes = (
        run.table.group_by(ITEM_ID, EPOCH, maintain_order=True)
        .agg(pl.col(ROW).alias("rows"), pl.len().alias("count"))
        .filter(pl.col("count") > 1)
    )
    if dupes.height == 0:
        return
    first = dupes.row(0, named=True)
    records = ", ".join(str(r + 1) for r in first["rows"][:SHOW_IDS])
    has_epochs = run.table[EPOCH].n_unique() > 1
    hint = (
        "each (item_id, epoch) must appear once"
        if has_epochs
        else "each item_id must appear once, or give an 'epoch' column for repeated runs"
    )
    raise InputError(
        run.source.path,
        f"duplicate item_id {first[ITEM_ID]!r} at records {records} "
        f"({dupes.height} duplicated id(s) in all); {hint}",
        field=ITEM_ID,
    )


def _per_item(run: Run, scores: tuple[str, ...]) -> pl.DataFrame:
    """One row per item: mean verdict and scores over its epochs (errors count as failures)."""
    table = run.table
    if table[EPOCH].max() == 1:  # duplicates were refused: one record per item, nothing to average
        cols = [
            pl.col(ITEM_ID),
            pl.col(ROW).alias("row"),
            pl.lit(1, dtype=pl.UInt32).alias("epochs"),
            pl.col(STATUS).alias("status"),
        ]
        if PASSED in table.columns:
            cols.append(pl.col(PASSED).fill_null(False).cast(pl.Float64).alias("pass"))
        cols += [_as_number(c) for c in scores]
        cols += [pl.col(c) for c in (SLICE, CLUSTER) if c in table.columns]
        return table.select(cols)
    aggs = [
        pl.col(ROW).first().alias("row"),
        pl.len().alias("epochs"),
        pl.col(STATUS)
        .sort_by(pl.col(STATUS).replace_strict({"ok": 0, "timeout": 1, "error": 2}))
        .last()
        .alias("status"),
    ]
    if PASSED in table.columns:
        aggs.append(pl.col(PASSED).fill_null(False).cast(pl.Float64).mean().alias("pass"))
    aggs += [_as_number(c).mean().alias(c) for c in scores]
    for col in (SLICE, CLUSTER):
        if col in table.columns:
            aggs.append(pl.col(col).first().alias(col))
    return table.group_by(ITEM_ID, maintain_order=True).agg(aggs)


def _as_number(column: str) -> pl.Expr:
    """A metric column as numbers: a verdict column's pass/fail as 1/0 (a missing verdict of a
    scored sample stays missing: the analysis names it), a score column as it is."""
    if is_verdict_column(column):
        return pl.col(column).cast(pl.Float64).alias(column)
    return pl.col(column)


def _shape_items(joined: pl.DataFrame, scores: tuple[str, ...]) -> tuple[pl.DataFrame, int]:
    cols: list[pl.Expr] = [pl.col(ITEM_ID)]
    if "pass" in joined.columns:
        cols += [pl.col("pass").alias(BASE_PASS), pl.col("pass__cand").alias(CAND_PASS)]
    for score in scores:
        cols += [
            pl.col(score).alias(arm_columns(score)[0]),
            pl.col(f"{score}__cand").alias(arm_columns(score)[1]),
        ]
    conflicts = 0
    for col in (SLICE, CLUSTER):
        here, there = col in joined.columns, f"{col}__cand" in joined.columns
        if here and there:
            if col == SLICE:
                conflicts = joined.filter(
                    pl.col(col).is_not_null()
                    & pl.col(f"{col}__cand").is_not_null()
                    & (pl.col(col) != pl.col(f"{col}__cand"))
                ).height
            cols.append(pl.coalesce(col, f"{col}__cand").alias(col))
        elif here:
            cols.append(pl.col(col))
        elif there:
            cols.append(pl.col(f"{col}__cand").alias(col))
    cols += [
        pl.col("row").alias(BASE_ROW),
        pl.col("row__cand").alias(CAND_ROW),
        pl.col("epochs").alias(BASE_EPOCHS),
        pl.col("epochs__cand").alias(CAND_EPOCHS),
        pl.col("status").alias(BASE_STATUS),
        pl.col("status__cand").alias(CAND_STATUS),
    ]
    return joined.select(cols), conflicts


def _arm_report(run: Run, excluded_records: int, missing: tuple[str, ...]) -> ArmReport:
    table = run.table
    if table[EPOCH].max() == 1:  # duplicates were refused, so: one record per item
        n_items, low, high = table.height, 1, 1
    else:
        epochs = table.group_by(ITEM_ID).len()
        n_items, low, high = epochs.select(n=pl.len(), low=pl.min("len"), high=pl.max("len")).row(0)
    return ArmReport(
        records=table.height,
        items=n_items,
        errored_records=int(table[STATUS].is_in(list(FAILURE_STATUSES)).sum()),
        excluded_records=excluded_records,
        epochs_min=low,
        epochs_max=high,
        missing_items=missing,
    )


def _only_in(items: pl.DataFrame, other: pl.DataFrame) -> tuple[str, ...]:
    """Ids of `items` that `other` lacks, in file order (messages list the first ones found)."""
    missing = items.select(ITEM_ID).join(
        other.select(ITEM_ID), on=ITEM_ID, how="anti", maintain_order="left"
    )
    return tuple(missing[ITEM_ID].to_list())


def _missing_message(
    baseline: Run, candidate: Run, only_base: tuple[str, ...], only_cand: tuple[str, ...]
) -> str:
    parts = []
    if only_base:
        parts.append(
            f"{len(only_base)} item(s) of {baseline.source.path} are missing from "
            f"{candidate.source.path}: {_list_ids(only_base)}"
        )
    if only_cand:
        parts.append(
            f"{len(only_cand)} item(s) of {candidate.source.path} are missing from "
            f"{baseline.source.path}: {_list_ids(only_cand)}"
        )
    return "; ".join(parts) + "; pass --allow-missing to pair on the overlap and report attrition"


def _list_ids(ids: tuple[str, ...]) -> str:
    shown = ", ".join(repr(i) for i in ids[:SHOW_IDS])
    return shown + (f", ... ({len(ids) - SHOW_IDS} more)" if len(ids) > SHOW_IDS else "")


def _check_doc_hashes(baseline: Run, candidate: Run, joined: pl.DataFrame) -> None:
    """Formats that hash each item's document (lm-eval) let us prove a shared id is one item."""
    if "doc_hash" not in baseline.table.columns or "doc_hash" not in candidate.table.columns:
        return
    # In baseline file order: `unique` without maintain_order shuffles the ids between runs,
    # so the error would name different items each time it is read.
    hashes = first_per_item(baseline.table, candidate.table, "doc_hash", "doc_hash").filter(
        pl.col("base") != pl.col("cand")
    )
    if hashes.height:
        ids = tuple(hashes[ITEM_ID].to_list())
        raise PairingError(
            f"{len(ids)} item id(s) name different documents in {baseline.source.path} and "
            f"{candidate.source.path} (doc_hash differs): {_list_ids(ids)}; "
            "these are not the same items"
        )
