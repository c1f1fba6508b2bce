"""The generated agent pair (tests/data/inspect_ai/agent), loaded once per test session."""

from __future__ import annotations

import functools
from pathlib import Path

from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW, PairedRuns
from evaltui.core.read.runs import Transcript

AGENT = Path(__file__).resolve().parents[1] / "data" / "inspect_ai" / "agent"
BASE = AGENT / "drug_interactions_baseline.eval"
CAND = AGENT / "drug_interactions_candidate.eval"


@functools.cache
def agent_pair() -> PairedRuns:
    from evaltui.core.analysis.pipeline import compare_files

    return compare_files(BASE, CAND, complete=False).paired


def transcripts(item_id: str) -> tuple[Transcript, Transcript]:
    """Both runs' first-epoch transcripts of one item."""
    paired = agent_pair()
    record = paired.items.row(paired.items["item_id"].index_of(item_id), named=True)
    return (
        paired.baseline.transcripts.read(record[BASE_ROW]),
        paired.candidate.transcripts.read(record[CAND_ROW]),
    )


def raw_sample(path: Path, member: str) -> dict:
    """One sample member of an `.eval` fixture as Inspect wrote it (events included)."""
    import json
    import zipfile

    from evaltui.core.read.formats.zip_members import read_member

    with zipfile.ZipFile(path) as archive:
        data = read_member(archive, archive.getinfo(member), path, 1 << 26)
    return json.loads(data)
