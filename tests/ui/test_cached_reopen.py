"""A pair opened again shows the analysis its first open kept (no pairing, no statistics) with
the same header, lists and decision; a kept analysis the background re-hash refutes is never
left up: it is dropped and the pair computed again from the bytes on disk."""

from __future__ import annotations

import json
import logging
import os
import shutil

import pytest

from evaltui.core.analysis import analysis_cache, pair, pipeline
from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.compare import pairing
from evaltui.core.held_warnings import LOGGER, hold, holding
from evaltui.core.read.formats import entry_seal, scan_cache
from evaltui.ui.app import AppConfig, create_app
from tests.ui.helpers import SAMPLE, listed_ids, settle, text_of


@pytest.fixture
def pair_copy(tmp_path, monkeypatch):
    """The demo pair copied aside, read through a scan cache of its own (every size)."""
    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)
    monkeypatch.delenv("EVALTUI_NO_CACHE", raising=False)
    monkeypatch.setattr(analysis_cache, "MIN_ITEMS", 0)  # (the demo has 200 items)
    paths = []
    for source in SAMPLE:
        paths.append(tmp_path / source.name)
        shutil.copyfile(source, paths[-1])
    return paths


def refuse_recomputation(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("paired or analysed again instead of the kept analysis")

    for module, name in (
        (pipeline, "pair_runs"),
        (pipeline, "analyze"),
        (pipeline, "complete_analysis"),
        (pipeline, "metric_family"),
        (pair, "analyze"),
        (pairing, "pair_runs"),
    ):
        monkeypatch.setattr(module, name, refuse)


async def what_is_shown(paths, state) -> dict[str, object]:
    app = create_app(AppConfig.for_pair(*paths, state_root=state))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        loaded = app.loaded
        assert loaded is not None and loaded.decision.first_line.final
        shown = {
            "header": text_of(app, "#header"),
            "title": text_of(app, "#list-title"),
            "regressions": listed_ids(app),
            "line": loaded.decision.line,
            "interval": loaded.analysis.decision_ci,
            "table": loaded.analysis.binary.table if loaded.analysis.binary else None,
            "cached": app.analysis_cached,
        }
        await pilot.press("i")
        await settle(app, pilot)
        shown["improvements"] = listed_ids(app)
        await pilot.press("q")
    app.finish_keeping()  # (written in a thread of its own, as the CLI waits for it)
    return shown


@pytest.mark.slow
async def test_a_reopened_pair_shows_the_kept_analysis_as_a_fresh_open_does(
    tmp_path, pair_copy, monkeypatch
):
    first = await what_is_shown(pair_copy, tmp_path / "state")
    assert first.pop("cached") is False
    assert list((tmp_path / "cache" / analysis_cache.FOLDER).iterdir())  # kept
    with monkeypatch.context() as patched:
        refuse_recomputation(patched)
        # (another state folder: the first review's place, the list last shown, not reused)
        again = await what_is_shown(pair_copy, tmp_path / "state2")
    assert again.pop("cached") is True
    assert again == first
    assert first["regressions"] and first["improvements"]  # (lists to compare)


@pytest.mark.slow
@pytest.mark.parametrize("decided", ["at load", "after the first screen"])
async def test_the_first_open_keeps_its_analysis_whenever_it_was_decided(
    tmp_path, pair_copy, monkeypatch, decided
):
    # The analysis that decides is done either while the list rows are built (the first
    # screen shows the decision: `Completion.ready`) or after the first screen (DECIDING…
    # first): both are kept for the next open.
    from evaltui.ui.completion import Completion

    def at_load(self):
        self._done.wait()
        return self._result

    monkeypatch.setattr(Completion, "ready", at_load if decided == "at load" else lambda s: None)
    shown = await what_is_shown(pair_copy, tmp_path / "state")
    assert shown["cached"] is False
    assert len(list((tmp_path / "cache" / analysis_cache.FOLDER).iterdir())) == 1


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_no_cache_opens_compute_the_analysis(tmp_path, pair_copy, monkeypatch):
    await what_is_shown(pair_copy, tmp_path / "state")
    monkeypatch.setenv("EVALTUI_NO_CACHE", "1")
    counted = []
    real = pipeline.complete_analysis
    monkeypatch.setattr(
        pipeline, "complete_analysis", lambda *a, **k: counted.append(1) or real(*a, **k)
    )
    again = await what_is_shown(pair_copy, tmp_path / "state")
    assert again["cached"] is False and counted == [1]


def rewrite_keeping_size_and_time(path) -> None:
    """Five verdicts true -> false and five false -> true: other bytes, the same size, and
    the modification time set back."""
    stat = path.stat()
    text = path.read_text(encoding="utf-8")
    swapped = text.replace('"passed": true', "\0T", 5).replace('"passed": false', "\0F", 5)
    swapped = swapped.replace("\0T", '"passed": false').replace("\0F", '"passed": true')
    assert swapped != text and len(swapped) == len(text)
    path.write_text(swapped, encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@pytest.mark.slow
async def test_a_kept_analysis_the_re_hash_refutes_is_dropped_and_computed_again(
    tmp_path, pair_copy, monkeypatch
):
    # The scan cache's entry found by path alone, as if the file's identity had not moved
    # (same inode, size and times) while its bytes did.
    monkeypatch.setattr(
        scan_cache, "entry_key", lambda path, schema: f"by-path-{path.name}-{len(schema)}"
    )
    base, cand = pair_copy
    before = await what_is_shown(pair_copy, tmp_path / "state")
    kept = tmp_path / "cache" / analysis_cache.FOLDER
    assert len(list(kept.iterdir())) == 1
    rewrite_keeping_size_and_time(cand)
    with monkeypatch.context() as uncached:  # (a headless open would drop the stale entry)
        uncached.setenv(scan_cache.ENV, "off")
        truth = compare_files(base, cand)
    assert set(truth.regressions) != set(before["regressions"])  # (a stale list would show)

    app = create_app(AppConfig.for_pair(*pair_copy, state_root=tmp_path / "state"))
    seen: list[tuple[bool, bool]] = []
    refute = app.refute_cached

    def watched(problem):
        reloading = refute(problem)
        # Right then: nothing shown decides (DECIDING…), the sign-off is refused.
        seen.append((reloading, bool(app.state.loaded.analysis.breakdowns_pending)))
        assert app.state.inputs_problem is not None
        return reloading

    app.refute_cached = watched
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert seen == [(True, True)]
        loaded = app.loaded
        assert loaded.analysis.regressions == truth.regressions  # the bytes on disk
        assert loaded.analysis.improvements == truth.improvements
        assert loaded.decision.first_line.final
        digest = loaded.analysis.paired.candidate.source.sha256
        assert digest == truth.paired.candidate.source.sha256
        assert app.state.inputs_problem is None
        assert not app.analysis_cached
        said = [n.message for n in app._notifications]
        assert any("computing it again from the bytes on disk" in m for m in said)
        assert any("recomputed from the bytes on disk" in m for m in said)
        await pilot.press("q")
    app.finish_keeping()
    # The stale analysis is gone; the one kept now is of the bytes on disk.
    (entry,) = kept.iterdir()
    meta = json.loads((entry / analysis_cache.META).read_text(encoding="utf-8"))
    assert meta["key"] == entry.name


@pytest.mark.slow
async def test_an_analysis_of_an_input_the_re_hash_refutes_is_never_kept(tmp_path, pair_copy):
    from evaltui.core.read.formats import LoadOptions, load_run

    for path in pair_copy:
        load_run(path, None, LoadOptions())  # the scan cache's entries
    root = tmp_path / "cache"
    for entry in root.glob("*/meta.json"):  # the candidate's entry vouches for other bytes
        meta = json.loads(entry.read_text())
        if meta["path"].endswith("candidate.jsonl"):
            meta["sha256"] = "f" * 64
            entry.write_text(json.dumps(meta))
            entry_seal.seal(entry.parent)  # (an intact entry of other bytes)
    app = create_app(AppConfig.for_pair(*pair_copy, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.state.inputs_problem is not None  # (computed in this open: not reloaded)
        assert app.loaded.decision.first_line.final
        await pilot.press("q")
    app.finish_keeping()
    assert not list((root / analysis_cache.FOLDER).glob("*/" + analysis_cache.META))


@pytest.mark.slow
async def test_a_kept_analysis_found_damaged_is_said_on_screen_and_computed_afresh(
    tmp_path, pair_copy
):
    """The warning the command line prints on stderr (`entry_seal.say_damaged`) is a toast in
    the app, where stderr is never drawn, held if said before the app was up."""
    first = await what_is_shown(pair_copy, tmp_path / "state")
    (entry,) = (tmp_path / "cache" / analysis_cache.FOLDER).iterdir()
    items = entry / analysis_cache.ITEMS
    data = bytearray(items.read_bytes())
    data[len(data) // 2] ^= 0x5A
    items.write_bytes(bytes(data))
    held = hold()  # as the CLI does before its early read
    logging.getLogger(LOGGER).warning("evaltui: warning: said before the app was up")
    try:
        app = create_app(AppConfig.for_pair(*pair_copy, state_root=tmp_path / "state2"))
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            said = [str(n.message) for n in app._notifications]
            assert app.analysis_cached is False  # computed afresh, not shown from the entry
            assert app.loaded is not None and app.loaded.decision.line == first["line"]
            assert "said before the app was up" in said
            (damaged,) = [line for line in said if "was damaged" in line]
            assert damaged.startswith("the kept analysis of ")
            assert "items.parquet" in damaged and damaged.endswith("computed afresh")
            await pilot.press("q")
        app.finish_keeping()
        assert holding() is None  # the app stopped holding as it ended
    finally:
        held.stop_holding()
