"""One record a reader refuses (an lm-eval line with a key written twice where the load reads
no value) costs the list that item's preview alone: every other regression still gets its
preview and its search text, and the reviewer is told once which record and why: by the first
reader to meet it (the previews), the search's read of the same record going on past it
quietly (it said the same record a second time before)."""

from __future__ import annotations

import json
from pathlib import Path

from evaltui.ui.app import AppConfig, create_app
from tests.ui.helpers import settle, until

DATA = Path(__file__).resolve().parents[1] / "data" / "lm_eval"
NAME = "samples_copa_2026-10-01T23-15-32.942677.jsonl"
REFUSED = 2  # the baseline line (0-based) whose "target" is written twice


def _pair(folder: Path) -> tuple[Path, Path]:
    """Every line passes in the baseline and fails in the candidate: every item a regression."""
    lines = (DATA / "sshleifer__tiny-gpt2" / NAME).read_text(encoding="utf-8").splitlines()
    paths = []
    for model, acc in (("base-model", 1.0), ("cand-model", 0.0)):
        records = [dict(json.loads(line), acc=acc) for line in lines]
        texts = [json.dumps(record, ensure_ascii=False) for record in records]
        if model == "base-model":
            texts[REFUSED] = texts[REFUSED][:-1] + ', "target": "again"}'
        path = folder / model / NAME
        path.parent.mkdir(parents=True)
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


async def test_one_refused_record_costs_its_own_preview_and_is_told_once(tmp_path):
    base, cand = _pair(tmp_path / "runs")
    app = create_app(AppConfig.for_pair(base, cand, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await until(pilot, lambda: app.state.previews_ready, "the previews read")
        await settle(app, pilot)
        store = app.state.loaded.rows["regressions"]
        previews = {store.ids[at]: store.row(at).preview for at in range(len(store))}
        assert len(previews) == 20
        refused_id = next(item_id for item_id, text in previews.items() if not text)
        assert [item_id for item_id, text in previews.items() if not text] == [refused_id]
        await until(pilot, lambda: app.screen.search_index.complete, "the search index read")
        await settle(app, pilot)
        said = [str(n.message) for n in app._notifications]
        told = [line for line in said if "could not be read" in line]
        assert len(told) == 1, said
        assert told[0].startswith("previews: 1 record could not be read")
        assert ":3: field 'target'" in told[0]  # the file's line, the field, the reason
        # The search went on past that record: the other items' outputs are searchable.
        assert app.screen.search_index.covered == 20
