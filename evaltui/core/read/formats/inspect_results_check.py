"""An Inspect log's summaries checked against its header's results, and a sample's facts read
from its own member.

When the summaries' scores do not reproduce the header's results (`inspect_consistency`), the
sample members are the word: every one is read and used instead, and the run says so; a log
without a member for every sample cannot settle it and is refused. Kept apart from
`inspect_eval.py`, which reads the log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.archive_limits import Budget
from evaltui.core.read.formats import inspect_archive as archive_io
from evaltui.core.read.formats.inspect_common import SampleFacts, sample_facts
from evaltui.core.read.formats.inspect_consistency import differing_samples, mismatches
from evaltui.core.read.formats.inspect_eval_transcripts import RowSource, Source
from evaltui.core.read.zip_directory import ZipDirectory, ZipEntry


def checked_against_results(
    path: Source,
    archive: ZipDirectory,
    members: Mapping[str, ZipEntry],
    header: dict[str, Any],
    facts: list[SampleFacts],
    rows: list[RowSource],
    budget: Budget,
) -> tuple[list[SampleFacts], list[RowSource], str]:
    """The facts, checked against the header's results (`inspect_consistency`): when the
    summaries' means do not reproduce them, every sample member is read and used instead, and
    the third value says so in words (empty when they agree, or nothing could be checked); a
    log without a member for every sample cannot settle it and is refused."""
    found = mismatches(header, facts, "the summaries")
    if not found:
        return facts, rows, ""
    members_of = [row.member for row in rows]
    what = "; ".join(m.text for m in found)
    summarised = [m is None or " via " in f.record for m, f in zip(members_of, facts, strict=True)]
    if not any(summarised):  # every score read from its sample member already
        what = "; ".join(m.text for m in mismatches(header, facts, "the samples"))
        return facts, rows, (
            f"the samples' scores disagree with the log's results ({what}): the samples are used"
        )  # fmt: skip
    wanted = [m for m in members_of if m is not None]
    if len(wanted) < len(members_of):  # nothing to settle it with: neither side is taken
        raise InputError(
            path,
            f"the sample summaries disagree with the log's results ({what}) and the log holds "
            "no sample member for every sample to settle which is right; expected the "
            "summaries to hold the samples' scores (re-score or re-write the log)",
            record="summaries.json",
            field="scores",
        )
    samples = [
        facts_from_member(path, archive, members[m], f, budget)
        for m, f in zip(wanted, facts, strict=True)
    ]
    again = mismatches(header, samples, "the samples")
    changed = differing_samples(facts, samples)
    text = (
        f"the sample summaries disagree with the log's results ({what}); "
        f"{changed:,} of {len(facts):,} samples have other scores in their sample member, "
        "and the sample members are used"
    )
    if again:
        text += " (they disagree with the results too: " + "; ".join(m.text for m in again) + ")"
    return samples, [RowSource(m, None, m) for m in wanted], text


def facts_from_member(
    path: Source,
    archive: ZipDirectory,
    info: ZipEntry,
    expected: SampleFacts | None,
    budget: Budget,
) -> SampleFacts:
    sample = archive_io.read_json(path, archive, info, budget)
    fact = sample_facts(path, sample, info.filename)
    if expected is not None and (fact.item_id, fact.epoch) != (expected.item_id, expected.epoch):
        raise InputError(
            path,
            f"the member holds sample id {fact.item_id} epoch {fact.epoch}, but its name and "
            f"summary say id {expected.item_id} epoch {expected.epoch}",
            record=info.filename,
            field="id",
        )
    return fact
