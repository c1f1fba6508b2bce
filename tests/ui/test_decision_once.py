"""The app decides on the report's path, once (issue 28, items 3 and 4).

The analysis that decides (`pipeline.complete_analysis`: the clusters, the metric family) is
started by the loading worker as soon as the headline analysis exists (`ui/completion.py`) and
taken by the app when its first screen is up: it runs once per open, and the header's decision
is the one `evaltui report` prints for the same files. A pair opened again from the scan cache
(no parse) shows the same decision.
"""

from __future__ import annotations

import json
import shutil
import threading

import pytest

import evaltui.core.analysis.pipeline as pipeline
from evaltui.cli.main import main
from evaltui.core.read.formats import scan_cache
from evaltui.ui.app import AppConfig, create_app
from tests.ui.helpers import SAMPLE, settle


class CountedCompletion:
    """Counts `complete_analysis` calls (and the analyses they returned)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.returned: list[object] = []
        self.threads: list[str] = []
        real = pipeline.complete_analysis

        def counted(analysis, progress=None):
            self.threads.append(threading.current_thread().name)
            done = real(analysis, progress)
            self.returned.append(done)
            return done

        monkeypatch.setattr(pipeline, "complete_analysis", counted)


def report_line(base, cand, capsys) -> str:
    main(["report", str(base), str(cand), "--format", "json"])
    return json.loads(capsys.readouterr().out)["decision"]["line"]


async def decided_line(base, cand, state) -> tuple[str, object]:
    app = create_app(AppConfig.for_pair(base, cand, state_root=state))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        loaded = app.loaded
        assert loaded is not None and loaded.decision.first_line.final
        await pilot.press("q")
    return loaded.decision.line, loaded.analysis


@pytest.mark.slow
async def test_the_app_completes_the_analysis_once_and_decides_as_the_report(
    tmp_path, monkeypatch, capsys
):
    counted = CountedCompletion(monkeypatch)
    line, analysis = await decided_line(*SAMPLE, tmp_path / "state")
    # One completion per open, started by the loading worker, and the very analysis shown.
    assert len(counted.returned) == 1
    assert counted.threads == ["evaltui-complete"]  # (the loading worker's, not after it)
    assert analysis is counted.returned[0]
    assert line == report_line(*SAMPLE, capsys)


@pytest.mark.slow
async def test_a_pair_reopened_from_the_scan_cache_is_not_parsed_and_decides_the_same(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)
    paths = []
    for source in SAMPLE:
        paths.append(tmp_path / source.name)
        shutil.copyfile(source, paths[-1])
    first, _ = await decided_line(*paths, tmp_path / "state")  # fills the cache
    assert len(list((tmp_path / "cache").iterdir())) == 2

    def no_parse(*args, **kwargs):
        raise AssertionError("a cached run was parsed again")

    monkeypatch.setattr("evaltui.core.read.formats.jsonl.scan_jsonl", no_parse)
    again, analysis = await decided_line(*paths, tmp_path / "state")
    assert again == first == report_line(*paths, capsys)
    assert not analysis.paired.baseline.source.hash_checked  # the entry's, re-hashed after
