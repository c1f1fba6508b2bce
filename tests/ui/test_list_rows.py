"""The list rows `loading.list_rows` builds (positionally, from whole columns): each row holds
its own item's file position, id, slice, record rows, delta and the session's tag, in the
analysis' order of regressions and improvements (no Textual)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW
from evaltui.core.read.runs import ITEM_ID, SLICE
from evaltui.core.record.session import start_review
from evaltui.ui.loading import list_rows
from tests.ui.helpers import SAMPLE


def expected_row(analysis, item_id: str, tag: str | None) -> dict:
    items = analysis.paired.items
    index = items[ITEM_ID].to_list().index(item_id)
    record = items.row(index, named=True)
    return {
        "index": index,
        "item_id": item_id,
        "slice": record.get(SLICE) or "",
        "preview": "",
        "search_text": item_id.lower(),
        "tag": tag,
        "disputed": False,
        "assigned": False,
        "hidden": 0,
        "delta": float(analysis.deltas[index]) if analysis.kind == "graded" else None,
        "rows": (record[BASE_ROW], record[CAND_ROW]),
    }


def graded_pair(folder: Path) -> tuple[Path, Path]:
    """Forty items with a score (a graded metric), a slice on some, in a shuffled order."""
    paths = folder / "baseline.jsonl", folder / "candidate.jsonl"
    for path, shift in zip(paths, (7, 3), strict=True):
        lines = []
        for n in (7 * k % 40 for k in range(40)):
            record = {
                "item_id": f"Item-{n:02d}",
                "passed": n % 2 == 0,
                "score": (n * shift % 10) / 10,
            }
            if n % 3:
                record["slice"] = f"s{n % 3}"
            lines.append(json.dumps(record))
        path.write_text("\n".join(lines) + "\n")
    return paths


@pytest.mark.parametrize("graded", [False, True])
def test_each_row_holds_its_own_items_fields_and_the_sessions_tag(tmp_path, graded):
    if graded:
        analysis = compare_files(*graded_pair(tmp_path), metric="score")
        assert analysis.kind == "graded"
    else:
        analysis = compare_files(*SAMPLE)
    session = start_review(analysis, state_root=tmp_path)
    try:
        tagged = analysis.regressions[1]
        tag = session.info.tags[0]
        session.set_tag(tagged, tag)
        rows = list_rows(analysis, session)
        assert [r.item_id for r in rows["regressions"]] == list(analysis.regressions)
        assert [r.item_id for r in rows["improvements"]] == list(analysis.improvements)
        for row in [*rows["regressions"], *rows["improvements"]]:
            want = expected_row(analysis, row.item_id, tag if row.item_id == tagged else None)
            assert {name: getattr(row, name) for name in want} == want
    finally:
        session.close()
