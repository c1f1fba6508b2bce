"""In GitHub Actions, no text from the runs steers the runner: every line `report` prints that
quotes the runs (item ids here, each a known trick: `::add-mask::`, a `##[stop-commands]` in
mid-line, a line break before `::error::`) is read by a model of the runner (`runner_reads`,
after actions/runner's ActionCommand parsing, with its stop-commands state), and the only
commands it finds are evaltui's own. A JSON or Markdown report stays the same document. The
same for every other command that prints run text (`show`'s transcripts, `prefer`'s system
names, `signoff`'s and `verify`'s lines), all through `cli/run_text.py`."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from evaltui.cli.errors import message_line
from evaltui.cli.main import main
from evaltui.cli.run_text import print_run_text
from evaltui.core.report.github import defused_document
from tests.core.report.ci_pairs import HOSTILE_IDS, write_pair
from tests.core.report.test_github import runner_reads


def runner_sees(text: str) -> list[tuple[str, str]]:
    """The workflow commands the runner acts on in this output, as (command, data), in order:
    between `::stop-commands::TOKEN` and `::TOKEN::` it acts on none (both forms)."""
    acted, token = [], None
    for line in text.split("\n"):
        message = line.lstrip()
        if token is not None:
            if message.strip() == f"::{token}::":
                token = None
            continue
        read = runner_reads(line)
        if read is None:
            continue
        name, _, data = read
        if name == "stop-commands":
            legacy = not message.startswith("::")
            token = line.split("]", 1)[1] if legacy else message[len("::stop-commands::") :]
        acted.append((name, data))
    return acted


@pytest.fixture
def actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "step_summary.md"))
    return tmp_path


def hostile_report(folder: Path, capsys, *form: str) -> tuple[str, str, list[str]]:
    base, cand, hostile = write_pair(folder, both=40, regressions=7, improvements=0, fail=10)
    assert main(["report", str(base), str(cand), *form]) == 1
    captured = capsys.readouterr()
    return captured.out, captured.err, hostile


def test_the_model_of_the_runner_acts_on_each_trick_undefended():
    """(The model is not blind: printed raw, the ids would steer the runner.)"""
    raw = "\n".join(HOSTILE_IDS)
    assert ("add-mask", "secret") in runner_sees(raw)
    assert "stop-commands" in [name for name, _ in runner_sees(raw)]


def test_a_json_report_in_actions_is_the_same_json_and_steers_nothing(actions, capsys):
    out, err, hostile = hostile_report(actions, capsys, "--format", "json")
    assert runner_sees(out) == []
    assert "##[" not in out
    assert json.loads(out)["regressions"] == hostile  # the same ids, read back whole
    ours = runner_sees(err)
    assert [name for name, _ in ours] == ["error"] * len(ours)  # the annotations only
    assert len(ours) == 8  # the decision and the 7 regressions


def test_a_markdown_report_in_actions_steers_nothing(actions, capsys):
    out, err, _ = hostile_report(actions, capsys, "--format", "markdown")
    assert runner_sees(out) == []
    assert "add-mask" in out and "stop-commands" in out  # shown, not obeyed
    assert [name for name, _ in runner_sees(err)] == ["error"] * 8


def test_a_text_report_in_actions_is_fenced_and_only_our_annotations_act(actions, capsys):
    out, _, _ = hostile_report(actions, capsys)
    acted = runner_sees(out)
    assert acted[0][0] == "stop-commands"
    assert [name for name, _ in acted[1:]] == ["error"] * 8


def test_outside_actions_the_documents_are_not_altered(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    out, _, _ = hostile_report(tmp_path, capsys, "--format", "json")
    assert "x ##[stop-commands]tok" in json.loads(out)["regressions"]
    assert "##[stop-commands]" in out


@pytest.mark.parametrize("form", ["json", "markdown"])
def test_defusing_a_document_leaves_nothing_the_runner_reads(form):
    text = "\n".join(f"{pad}{h}" for pad in ("", "  ", "\u2003") for h in HOSTILE_IDS)
    document = json.dumps(text.split("\n"), indent=1) if form == "json" else text
    defused = defused_document(document, form)
    assert runner_sees(defused) == []
    if form == "json":
        assert json.loads(defused) == json.loads(document)


def test_an_error_line_in_actions_carries_no_command(monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    line = message_line("no item 'x ##[add-mask]secret' ::error::y")
    assert runner_sees(f"evaltui: error: {line}") == []
    monkeypatch.delenv("GITHUB_ACTIONS")
    assert "##[add-mask]" in message_line("x ##[add-mask]secret")  # (unchanged elsewhere)


# -- every other command that prints run text: the same function (`cli/run_text.py`) ----------

TRICKS = "::add-mask::secret\nsee x ##[add-mask]hidden and\n  ::error::injected"


def only_our_fence(out: str) -> bool:
    """The runner acts on one command only: our `::stop-commands::` with its random token (a
    hostile `##[stop-commands]tok` in the text would be a command too, with its own token)."""
    acted = runner_sees(out)
    return [name for name, _ in acted] == ["stop-commands"] and bool(
        re.fullmatch(r"[0-9a-f]{32}", acted[0][1])
    )


def hostile_outputs(folder: Path) -> tuple[Path, Path]:
    """A pair whose one item (a hostile id) answers with workflow commands in its output."""
    paths = []
    for name, passed in (("baseline", True), ("candidate", False)):
        path = folder / f"{name}.jsonl"
        rows = [{"item_id": "::add-mask::id", "passed": passed, "output": f"{name}\n{TRICKS}"}]
        rows += [{"item_id": f"q{i}", "passed": True, "output": "fine"} for i in range(5)]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


def show(folder: Path, capsys, *form: str) -> str:
    base, cand = hostile_outputs(folder)
    assert main(["show", str(base), str(cand), "::add-mask::id", "--width", "100", *form]) == 0
    return capsys.readouterr().out


def test_show_outside_actions_prints_the_model_output_the_runner_would_obey(
    tmp_path, monkeypatch, capsys
):
    """(The transcripts reach stdout raw outside Actions: the cases below are real tricks.)"""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    names = [name for name, _ in runner_sees(show(tmp_path, capsys, "--stacked"))]
    assert "add-mask" in names and "error" in names


@pytest.mark.parametrize("layout", [(), ("--stacked",)])
def test_show_in_actions_fences_the_transcripts_and_steers_nothing(actions, capsys, layout):
    out = show(actions, capsys, *layout)
    assert only_our_fence(out)
    assert out.rstrip("\n").split("\n")[-1].startswith("::")  # the resume, on its own line
    assert "##[add-mask]hidden" in out  # shown as it is, not obeyed


def test_show_markdown_in_actions_steers_nothing(actions, capsys):
    out = show(actions, capsys, "--format", "markdown")
    assert runner_sees(out) == []
    assert out.startswith("<details>") and "add-mask" in out


def test_prefer_in_actions_steers_nothing_in_any_form(actions, capsys):
    path = actions / "p.jsonl"
    systems = ("::add-mask::a", "x ##[add-mask]b")
    path.write_text(
        "".join(
            json.dumps(
                {
                    "item_id": f"q{i}",
                    "preference": "A" if i % 3 else "B",
                    "system_a": systems[0],
                    "system_b": systems[1],
                }  # fmt: skip
            )
            + "\n"
            for i in range(30)
        ),
        encoding="utf-8",
    )
    outs = {}
    for form in ("text", "json", "markdown"):
        main(["prefer", str(path), "--format", form])
        outs[form] = capsys.readouterr().out
    assert only_our_fence(outs["text"])
    assert runner_sees(outs["json"]) == [] and runner_sees(outs["markdown"]) == []
    assert systems[1] in json.dumps(json.loads(outs["json"]), ensure_ascii=False)


def test_signoff_and_verify_in_actions_fence_what_quotes_the_runs(actions, capsys):
    base, cand = hostile_outputs(actions)
    folder = actions / "x ##[add-mask]dir"
    folder.mkdir()
    prefix = folder / "rec"
    who = ["--reviewer", "::add-mask::rev", "--rationale", "r", "--decision", "block"]
    assert main(["signoff", str(base), str(cand), *who, "--output", str(prefix)]) == 0
    out = capsys.readouterr().out
    assert "##[add-mask]dir" in out and only_our_fence(out)
    assert main(["verify", f"{prefix}.json", str(base), str(cand)]) == 0
    out = capsys.readouterr().out
    assert "::add-mask::rev decided block" in out and only_our_fence(out)


def test_a_report_with_github_off_in_actions_is_still_fenced(actions, capsys):
    out, _, _ = hostile_report(actions, capsys, "--github", "off")
    assert "x ##[stop-commands]tok" in out and only_our_fence(out)


def test_text_without_a_last_line_break_still_ends_the_fence(monkeypatch, capsys):
    """The resume token on the report's last line would never be read: the runner would act
    on nothing the step prints after it, our own annotations included."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert print_run_text("text", lambda: sys.stdout.write("::error::x") and 0) == 0
    print("::notice::after")
    acted = runner_sees(capsys.readouterr().out)
    assert [name for name, _ in acted] == ["stop-commands", "notice"]
