"""The suite never reads the reviewer's own state: every test has a HOME and XDG folders of its
own (tests/conftest.py), so a review tagged with the README's first command changes no result."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.record.session import start_review
from tests.conftest import (
    ROOT,
    SAMPLE_RUNS,
    USER_STATE_OVERRIDES,
    USER_STATE_VARIABLES,
    isolate_user_state,
)

DEMO = (SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl")


def _as_a_users_shell(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The environment of a reviewer's shell: HOME set, no XDG variables, no overrides."""
    monkeypatch.setenv("HOME", str(home))
    for name in (*USER_STATE_VARIABLES[1:], *USER_STATE_OVERRIDES):
        monkeypatch.delenv(name, raising=False)


def _tag_the_demo(home: Path) -> None:
    """What a reviewer does with `evaltui` on the demo: tag the first regression (the journal
    goes to HOME's ~/.local/state/evaltui, the default)."""
    analysis = compare_files(*DEMO)
    session = start_review(analysis)
    try:
        session.set_tag(analysis.regressions[0], "confirmed regression")
    finally:
        session.close()
    assert list((home / ".local" / "state" / "evaltui").rglob("*.jsonl")), "no journal written"


def _report(capsys: pytest.CaptureFixture[str]) -> str:
    main(["report", *map(str, DEMO)])
    return capsys.readouterr().out


def test_every_test_has_a_home_and_xdg_folders_of_its_own(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    for name in USER_STATE_VARIABLES:
        assert Path(os.environ[name]).is_relative_to(base), f"{name}={os.environ[name]}"
    assert Path.home().is_relative_to(base)
    for name in USER_STATE_OVERRIDES:
        assert name not in os.environ


def test_a_tagged_demo_review_in_the_real_home_changes_no_report(tmp_path, monkeypatch, capsys):
    clean = _report(capsys)
    real_home = tmp_path / "real-home"
    _as_a_users_shell(monkeypatch, real_home)
    _tag_the_demo(real_home)
    tagged = _report(capsys)
    # the journal is read when nothing isolates it: the first line changes with the tag
    assert tagged.splitlines()[0] != clean.splitlines()[0]
    assert tagged.startswith("BLOCKED")
    isolate_user_state(monkeypatch, tmp_path / "private")  # what the autouse fixture does
    assert _report(capsys) == clean
    assert list((real_home / ".local" / "state" / "evaltui").rglob("*.jsonl"))  # untouched


@pytest.mark.slow
def test_the_report_tests_pass_when_the_real_home_holds_a_tagged_demo(tmp_path, monkeypatch):
    """The issue's sequence: tag the demo in the real HOME, then run the tests that read `report`
    on the demo pair in a child pytest with that HOME; they pass, and the journal is unchanged."""
    real_home = tmp_path / "real-home"
    _as_a_users_shell(monkeypatch, real_home)
    _tag_the_demo(real_home)
    journals = {p: p.read_bytes() for p in real_home.rglob("*.jsonl")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/cli/test_text_report.py", "tests/cli/test_first_line_everywhere.py",
         "tests/cli/test_exit_codes.py"],
        cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert {p: p.read_bytes() for p in real_home.rglob("*.jsonl")} == journals
