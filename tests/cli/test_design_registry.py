"""The CLI's `report`, `signoff`, `verify` and `prefer` dispatch on the Design registry: each
command picks one design from its arguments and calls it; the exit codes stay the decisions'."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltui.cli import commands
from evaltui.cli.main import main
from evaltui.core.designs import (
    DESIGNS,
    INDEPENDENT,
    PAIR,
    PREFERENCE,
    RUN_SET,
    design_for_runs,
    design_named,
    design_of_record,
)
from evaltui.core.errors import UsageError
from tests.conftest import DATA, SAMPLE_RUNS

BASE, CAND, CAND2 = (
    str(SAMPLE_RUNS / f"{n}.jsonl") for n in ("baseline", "candidate", "candidate2")
)
APART = (
    str(DATA / "independent" / "baseline.jsonl"),
    str(DATA / "independent" / "candidate.jsonl"),
)


def test_the_registry_names_each_design_once():
    assert list(DESIGNS) == ["pair", "run_set", "independent", "preference"]
    for name, design in DESIGNS.items():
        assert design_named(name) is design and design.name == name
    with pytest.raises(UsageError, match="designs: pair, run_set, independent, preference"):
        design_named("multirun")


def test_the_arguments_pick_the_design():
    assert design_for_runs(2) is PAIR
    assert design_for_runs(2, "independent") is INDEPENDENT
    assert design_for_runs(3) is RUN_SET
    assert design_of_record({"schema": "evaltui.signoff-runset/1"}) is RUN_SET
    assert design_of_record({"schema": "evaltui.signoff/2"}) is PAIR


def test_only_the_pair_and_the_run_set_sign_off():
    assert [d.name for d in DESIGNS.values() if d.signs_off] == ["pair", "run_set"]
    for design in (INDEPENDENT, PREFERENCE):
        assert design.refusal("evaltui signoff")
        with pytest.raises(UsageError):
            design.sign_off(None, None, "x", print)


@pytest.mark.parametrize(
    ("argv", "design", "code"),
    [
        (["report", BASE, CAND], "pair", 0),
        (["report", BASE, CAND, CAND2], "run_set", 0),
        (["report", *APART, "--design", "independent"], "independent", 0),
        (["report", *APART, "--design", "auto"], "independent", 0),
        (["prefer", str(SAMPLE_RUNS / "preferences.jsonl")], "preference", 1),
    ],
)
def test_report_dispatches_each_design_with_its_exit_code(
    argv, design, code, monkeypatch, tmp_path: Path, capsys
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    seen: list[str] = []
    original = commands.print_report

    def spy(chosen, decided, form, *more):
        seen.append(chosen.name)
        return original(chosen, decided, form, *more)

    monkeypatch.setattr(commands, "print_report", spy)
    assert main([*argv, "--format", "json"]) == code
    assert seen == [design]
    capsys.readouterr()
