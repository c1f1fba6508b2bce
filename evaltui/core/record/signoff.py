"""The sign-off record: one JSON document another person or a CI job can audit, plus Markdown.

It holds who decided what, on which files (sha256), with which numbers and policy, and every
discordant item with its tag and note. A hash over the record's own content makes a later edit
detectable. Approving while regressions are untriaged needs an explicit override with a reason,
which the record keeps.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from evaltui import __version__
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.canonical import HASH_FIELD, canonical_sha256
from evaltui.core.decide.deciding import waiting_for
from evaltui.core.errors import UsageError
from evaltui.core.read.runs import CLUSTER, ITEM_ID, SLICE
from evaltui.core.record.journal import ReviewSession
from evaltui.core.record.session import (
    check_override,
    decide_review,
    evaluate_policy_gates,
    override_for,
    reviewer_identity,
    tag_meanings,
)
from evaltui.core.record.signoff_markdown import record_markdown
from evaltui.core.record.team_review import team_block
from evaltui.core.report.pair import (
    input_dict,
    options_dict,
    pairing_dict,
    report_dict,
)
from evaltui.core.textsafe import csv_cell, inert_json

SIGNOFF_SCHEMA = "evaltui.signoff/2"
READABLE_SCHEMAS = ("evaltui.signoff/1", SIGNOFF_SCHEMA)  # verify reads both
DECISIONS = ("approve", "block", "needs-more-data")
RESULT_KEYS = (
    "analysis", "metric", "n_paired", "table", "baseline", "candidate", "delta", "mcnemar",
    "unpaired", "graded", "epochs", "clusters", "metrics", "slices", "flags", "warnings",
    "verdict", "headline",
)  # fmt: skip
# Results a record carries when the report has them, and that an older record may lack: the
# outcome categories (a record made before they existed reads as having none).
OPTIONAL_RESULT_KEYS = ("categories",)
# Results a record carries only when the report has them (the key is absent otherwise): the
# paired cost block of agent runs whose logs record what each sample cost. A record made before
# it was recorded lacks it and is verified without it (`verify.rebuild`).
WHEN_PRESENT_RESULT_KEYS = ("cost",)


@dataclass(frozen=True)
class ReviewerDecision:
    """What the reviewer decided, in their words."""

    reviewer: str
    decision: str
    rationale: str
    override_reason: str | None = None  # required to approve with untriaged regressions

    def __post_init__(self) -> None:
        if self.decision not in DECISIONS:
            raise UsageError(
                f"decision must be one of {', '.join(DECISIONS)}, got {self.decision!r}"
            )
        if not self.reviewer.strip():
            raise UsageError("a sign-off needs a reviewer name")
        if not self.rationale.strip():
            raise UsageError("a sign-off needs a rationale: say why, in a sentence")


def default_reviewer() -> str:
    """The reviewer a sign-off names when none is given (see `workflow.reviewer_identity`)."""
    return reviewer_identity()


def build_record(
    analysis: Analysis, session: ReviewSession, decision: ReviewerDecision
) -> dict[str, Any]:
    """Assemble the record; an approval over untriaged regressions or failed gates needs an
    override reason, which the record keeps (`workflow.check_override`). An analysis whose
    deciding parts are still to come (the app's first screen) is refused: nothing provisional
    is signed."""
    pending = waiting_for(analysis)
    if pending:
        raise UsageError(
            f"the decision is still being made (the {' and '.join(pending)} are not computed "
            "yet): a record is written from the final decision only"
        )
    gates = evaluate_policy_gates(analysis, session)
    override = override_for(analysis, session, gates)
    overriding = check_override(decision.decision, decision.override_reason, override)
    untriaged = list(override.untriaged)
    failed = list(override.failed_gates)
    assessment = decide_review(analysis, gates, session)
    report = report_dict(analysis, gates, assessment)
    paired = analysis.paired
    if analysis.policy is not None:
        policy = {
            "path": analysis.policy.source_path,
            "sha256": analysis.policy.sha256,
            "rules": analysis.policy.canonical(),
            "options": options_dict(analysis),
            "on_error": paired.report.on_error,
            "allow_missing": paired.report.allow_missing,
        }
        policy_hash = analysis.policy.hash
    else:
        policy = {
            **options_dict(analysis),
            "on_error": paired.report.on_error,
            "allow_missing": paired.report.allow_missing,
            "gates": [],
        }
        policy_hash = _hash(policy)
    items = _discordant_items(analysis, session)
    by_tag: dict[str, int] = {}
    for item in items:
        if item["direction"] == "regression" and item["tag"] is not None:
            by_tag[item["tag"]] = by_tag.get(item["tag"], 0) + 1
    record: dict[str, Any] = {
        "schema": SIGNOFF_SCHEMA,
        "tool": {"name": "evaltui", "version": __version__},
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "decision": report["decision"],
        "reviewer": decision.reviewer,
        "reviewer_decision": decision.decision,
        "rationale": decision.rationale,
        "override": (
            {
                "reason": decision.override_reason,
                "overrides": override.problems(),
                "untriaged_regressions": untriaged,
                "failed_gates": failed,
                "confirmed_regressions": list(override.confirmed),
                "regressed": override.regressed,
                "regressed_metrics": list(override.regressed_metrics),
                **(
                    {"regressed_scorer": override.regressed_scorer}
                    if override.regressed_scorer
                    else {}
                ),
            }
            if overriding
            else None
        ),
        "inputs": {
            "baseline": input_dict(paired.baseline, paired.report.baseline),
            "candidate": input_dict(paired.candidate, paired.report.candidate),
        },
        "pairing": pairing_dict(analysis),
        "spec": analysis.spec.to_dict() if analysis.spec is not None else None,
        "policy": policy,
        "policy_hash": policy_hash,
        "results": {
            **{key: report[key] for key in RESULT_KEYS},
            **{key: report.get(key) for key in OPTIONAL_RESULT_KEYS},
            **{key: report[key] for key in WHEN_PRESENT_RESULT_KEYS if key in report},
        },
        "triage": {
            "regressions": len(analysis.regressions),
            "triaged": len(analysis.regressions) - len(untriaged),
            "untriaged": untriaged,
            "by_tag": by_tag,
            "tags": list(session.info.tags),
            "meanings": tag_meanings(analysis).canonical(),
        },
        "items": items,
        "gates": report["gates"] or [],
        "review_notices": [notice.text for notice in session.notices],
        "session_journal": str(session.path),
        "team_review": team_block(analysis, session),
    }
    record[HASH_FIELD] = _hash(record)
    return record


def _discordant_items(analysis: Analysis, session: ReviewSession) -> list[dict[str, Any]]:
    """Every discordant item with its review, regressions first. Only the discordant rows are
    read (a join on their ids), never every paired row: 300k items took 1.5 s that way."""
    items = analysis.paired.items
    cols = [c for c in (ITEM_ID, SLICE, CLUSTER) if c in items.columns]
    wanted = [*analysis.regressions, *analysis.improvements]
    ids = pl.DataFrame({ITEM_ID: wanted}, schema={ITEM_ID: pl.String})
    found = ids.join(items.select(cols), on=ITEM_ID, how="left", maintain_order="left")
    slices = found[SLICE].to_list() if SLICE in found.columns else [None] * found.height
    clusters = found[CLUSTER].to_list() if CLUSTER in found.columns else [None] * found.height
    n_regressions = len(analysis.regressions)
    out = []
    for index, (item_id, slice_name, cluster) in enumerate(
        zip(wanted, slices, clusters, strict=True)
    ):
        review = session.review(item_id)
        out.append(
            {
                "item_id": item_id,
                "direction": "regression" if index < n_regressions else "improvement",
                "slice": slice_name,
                "cluster": cluster,
                "tag": review.tag,
                "note": review.note,
                "tagged_by": review.reviewer or None,
                "tagged_at": review.updated or None,
            }
        )
    return out


def _hash(obj: Any) -> str:
    return "sha256:" + canonical_sha256(obj)


def record_hash_ok(record: dict[str, Any]) -> bool:
    """True when the record's content still matches the hash it was written with."""
    claimed = record.get(HASH_FIELD)
    body = {k: v for k, v in record.items() if k != HASH_FIELD}
    return isinstance(claimed, str) and claimed == _hash(body)


CSV_COLUMNS = (
    "item_id", "direction", "slice", "cluster", "tag", "note", "tagged_by", "tagged_at",
)  # fmt: skip


def record_csv(record: dict[str, Any]) -> str:
    """The discordant items with their tags and notes, for a spreadsheet; formula-safe."""
    return items_csv([((), record["items"])])


def items_csv(groups: list[tuple[tuple[tuple[str, str], ...], list[dict[str, Any]]]]) -> str:
    """Items as CSV, each group's rows led by its own (column, value) cells (a run-set record
    puts the pair first). Every cell goes through `csv_cell` (line breaks as LF, no other
    control characters, the formula guard at the start and after each line break), and a cell
    holding a line break is quoted, so no text from a run or a note can start a row or a
    formula of its own."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    lead = tuple(name for name, _ in groups[0][0]) if groups else ()
    writer.writerow([*lead, *CSV_COLUMNS])
    for cells, items in groups:
        first = [csv_cell(value) for _, value in cells]
        for item in items:
            writer.writerow([*first, *(csv_cell(item.get(col)) for col in CSV_COLUMNS)])
    return out.getvalue()


RENAMING = "evaltui: failed while renaming the record's files into place"


def write_record(
    record: dict[str, Any], analysis: Analysis, prefix: str | Path
) -> tuple[Path, Path]:
    """Write PREFIX.json, PREFIX.md and PREFIX.csv together: the three texts are made
    first, written to temporary names beside the targets and fsynced, and only then renamed
    over them, the JSON (the record `verify` reads) last. An existing record at PREFIX is
    replaced whole; a failed write (a full disk, a read-only folder) leaves it as it was and
    nothing behind. A target that is a folder or a symbolic link is refused (a link is never
    written through). Returns the JSON and Markdown paths (the CSV sits beside them)."""
    json_path, md_path, _csv_path = write_record_files(
        prefix, record, record_markdown(record, analysis), record_csv(record)
    )
    return json_path, md_path


def write_record_files(
    prefix: str | Path, record: dict[str, Any], markdown: str, csv_text: str
) -> tuple[Path, Path, Path]:
    """PREFIX.json, PREFIX.md and PREFIX.csv, written as `write_record` says (any record: a
    pair's, or a run set's); returns the three paths."""
    from evaltui.core.read.remote.urls import url_of
    from evaltui.core.record.journal import StateWriteError, os_error_text

    if (url := url_of(prefix)) is not None:  # (it said "folder az:/b does not exist")
        raise UsageError(
            f"cannot write the sign-off to {url}: its files are written to a local folder "
            "(give a local --output, then copy them where they are kept)"
        )
    prefix = Path(prefix)
    if prefix.suffix in (".json", ".md"):
        prefix = prefix.with_suffix("")
    folder = prefix.parent
    if not folder.exists():
        raise UsageError(f"cannot write the sign-off: folder {folder} does not exist")
    if not folder.is_dir():
        raise UsageError(f"cannot write the sign-off: {folder} is not a folder")
    json_path, md_path, csv_path = (
        folder / (prefix.name + ext) for ext in (".json", ".md", ".csv")
    )
    for path in (json_path, md_path, csv_path):
        if path.is_symlink():
            raise UsageError(
                f"cannot write the sign-off: {path} is a symbolic link (to {os.readlink(path)}); "
                "remove it or choose another --output"
            )
        if path.is_dir():
            raise UsageError(f"cannot write the sign-off: {path} is a folder")
    texts = [
        (csv_path, csv_text),
        (md_path, markdown),
        (json_path, inert_json(record) + "\n"),
    ]
    try:
        _atomic_write(texts)
    except OSError as exc:
        left = (
            "the record may be incomplete: write it again"
            if RENAMING in getattr(exc, "__notes__", ())
            else "nothing was written (a record already there is unchanged)"
        )
        raise StateWriteError(
            f"cannot write the sign-off record {exc.filename or json_path}: "
            f"{os_error_text(exc)}; {left}"
        ) from None
    return json_path, md_path, csv_path


def _shared_file_mode() -> int:
    """The mode a new file gets from the user's umask (0644 under the usual 022): a sign-off
    record is made to be read by others (an auditor, a CI job, a PR), and it holds nothing
    secret, only what the reviewer chose to record. The umask is read from /proc, never set:
    setting it to read it back would race with other threads creating files."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o644


def _atomic_write(texts: list[tuple[Path, str]]) -> None:
    """Each (path, text) to a temporary file beside its path, fsynced; then every rename, in
    order, and an fsync of the folder. A failure removes the temporary files left; one before
    the renames (the likely kind: a full disk, a read-only folder) leaves every target as it
    was. The renames need no space and `write_record` has checked their targets first."""
    temps: list[tuple[str, Path]] = []
    try:
        for path, text in texts:
            try:
                fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
                temps.append((tmp, path))
                os.fchmod(fd, _shared_file_mode())  # mkstemp makes it 0600
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
                    handle.flush()
                    os.fsync(handle.fileno())
            except OSError as exc:
                exc.filename = str(path)  # the target, not the temporary name
                raise
        while temps:
            tmp, path = temps[0]
            try:
                os.replace(tmp, path)
            except OSError as exc:
                exc.filename = str(path)
                exc.add_note(RENAMING)  # an earlier file of the record may be the new one
                raise
            temps.pop(0)
    except BaseException:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
        raise
    try:  # the renames themselves on disk: a crash now keeps the new record
        folder = os.open(texts[-1][0].parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return  # an unreadable folder cannot be fsynced; the files themselves are
    try:
        os.fsync(folder)
    except OSError:
        pass  # some file systems cannot fsync a folder
    finally:
        os.close(folder)
