"""The "input formats" flags come from the formats: each format's `Options` declares them, so a
new format's options reach the command line (its help, its parsing, each arm's own value and
`format_options`) without a change in `evaltui/cli/`."""

from __future__ import annotations

import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

import evaltui.core.read.formats as formats
from evaltui.cli.format_flags import format_choices
from evaltui.cli.main import main
from evaltui.cli.parser import app_parser, build_parser, spec_from_args
from evaltui.core.read.formats import own_options
from evaltui.core.read.formats.contract import option

# The format flags and their help, as the command line offered them when they were hand-written.
FLAG_HELP = {
    "--filter": "lm-eval: which filter's lines to use when a task has several (default: the first)",
    "--higher-is-better": "lm-eval: whether more of the metric is better, when the results file "
    "beside the samples does not say (false: a rise is a regression)",
    "--exclude-nonfinite": "lm-eval: a record whose metric is NaN or infinite becomes an errored "
    "item (counted; --on-error decides) instead of refusing the file",
    "--arm": "promptfoo: the provider/prompt of both runs",
    "--baseline-arm": "promptfoo: the baseline's arm",
    "--candidate-arm": "promptfoo: the candidate's arm",
    "--id-col": "the column holding the item id",
    "--pass-col": "the column holding the pass/fail verdict",
    "--score-col": "the column holding the graded score",
    "--slice-col": "the column holding the slice",
    "--cluster-col": "the column holding the cluster",
    "--text-cols": "columns for input, output, target, explanation (or name=field pairs)",
}
METAVARS = {"--id-col": "COL", "--text-cols": "A,B,C,D", "--baseline-arm": "BASELINE_ARM"}


def group_actions(parser):
    (group,) = [g for g in parser._action_groups if g.title == "input formats"]
    return {action.option_strings[0]: action for action in group._group_actions}


@pytest.mark.parametrize("command", ["report", "signoff", None])
def test_every_command_that_reads_runs_offers_the_format_flags_with_their_help(command):
    if command is None:
        parser = app_parser()
    else:
        parser = build_parser(command)._subparsers._group_actions[0].choices[command]
    actions = group_actions(parser)
    assert {flag: a.help for flag, a in actions.items()} == FLAG_HELP
    for flag, metavar in METAVARS.items():
        assert (actions[flag].metavar or actions[flag].dest.upper()) == metavar
    assert actions["--higher-is-better"].choices == ("true", "false")
    assert actions["--exclude-nonfinite"].nargs == 0  # a switch


def test_the_help_words_of_the_format_flags_are_printed(capsys):
    assert main(["report", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "input formats:" in out
    for flag, words in FLAG_HELP.items():
        assert flag in out and words in out, flag


def test_the_parsed_flags_become_typed_format_options_for_both_runs_and_each_arm(tmp_path):
    base, cand = tmp_path / "a.json", tmp_path / "b.json"
    args = app_parser().parse_args(
        [str(base), str(cand), "--higher-is-better", "false", "--exclude-nonfinite"]
        + ["--text-cols", "q,a", "--id-col", "qid", "--baseline-arm", "x", "--candidate-arm", "y"]
    )
    spec = spec_from_args(args)
    assert dict(spec.format_options) == {
        "higher_is_better": False,
        "exclude_nonfinite": True,
        "text_cols": ("q", "a"),
        "id_col": "qid",
    }
    assert dict(spec.baseline_options) == {"arm": "x"}
    assert dict(spec.candidate_options) == {"arm": "y"}


def test_flags_not_given_are_not_options_and_an_empty_text_cols_is_not_given(tmp_path):
    args = app_parser().parse_args([str(tmp_path / "a"), str(tmp_path / "b"), "--text-cols", ""])
    choices = format_choices(args)
    assert {k: v for k, v in choices.format_options.items() if v is not None} == {}
    assert not choices.arms_differ()


@dataclass(frozen=True)
class _FakeOptions:
    level: int | None = option("fakefmt: how deep to read", metavar="N", parse=int)
    strict: bool | None = option("fakefmt: refuse a short record", switch=True)
    side: str | None = option(
        "fakefmt: the side of both runs",
        per_arm=("fakefmt: the baseline's side", "fakefmt: the candidate's side"),
    )
    plain: str | None = None  # declared without option(...): still offered, as text


@pytest.fixture
def fake_format(monkeypatch):
    """A format registered the way a new one would be: its options module (NAME, Options), its
    module (which takes both from there, and reads files) and its name in REGISTRY."""
    declared = types.ModuleType("evaltui.core.read.formats.fakefmt_options")
    declared.NAME = "fakefmt"
    declared.Options = _FakeOptions
    module = types.ModuleType("evaltui.core.read.formats.fakefmt")
    module.NAME, module.Options = declared.NAME, declared.Options
    module.sniff = lambda path, head: head.startswith(b"FAKE")
    module.load = lambda path, options, own: pytest.fail("not loaded here")
    monkeypatch.setitem(sys.modules, declared.__name__, declared)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(formats, "REGISTRY", (*formats.REGISTRY, "fakefmt"))
    return module


def test_a_new_formats_options_reach_the_command_line_without_touching_cli(
    fake_format, tmp_path, capsys
):
    assert main(["report", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--level N fakefmt: how deep to read" in out
    assert "--strict fakefmt: refuse a short record" in out
    assert "--baseline-side BASELINE_SIDE fakefmt: the baseline's side" in out
    assert "--plain PLAIN fakefmt: its plain option" in out
    base, cand = tmp_path / "a.fake", tmp_path / "b.fake"
    argv = [str(base), str(cand), "--level", "3", "--strict", "--candidate-side", "right"]
    spec = spec_from_args(app_parser().parse_args([*argv, "--plain", "p"]))
    assert dict(spec.format_options) == {"level": 3, "strict": True, "plain": "p"}
    assert dict(spec.candidate_options) == {"side": "right"} and spec.baseline_options == ()
    own = own_options(fake_format, spec.load_options("candidate"), cand)
    assert own == _FakeOptions(level=3, strict=True, side="right", plain="p")


def test_the_same_file_twice_is_refused_unless_a_per_arm_option_tells_the_arms_apart(
    fake_format, tmp_path, capsys
):
    run = tmp_path / "one.fake"
    run.write_bytes(b"FAKE")
    assert main(["report", str(run), str(run)]) == 2
    assert "given as both the baseline and the candidate" in capsys.readouterr().err
    args = app_parser().parse_args([str(run), str(run), "--baseline-side", "l"])
    assert dict(spec_from_args(args).baseline_options) == {"side": "l"}


def test_a_format_option_that_would_shadow_another_argument_is_refused(monkeypatch):
    @dataclass(frozen=True)
    class Shadowing:
        baseline: str | None = option("shadows the BASE argument")

    module = types.ModuleType("evaltui.core.read.formats.shadowing")
    module.NAME, module.Options = "shadowing", Shadowing
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(formats, "REGISTRY", (*formats.REGISTRY, "shadowing"))
    with pytest.raises(ValueError, match="'baseline' would shadow another argument"):
        app_parser()
    parser = build_parser("plan")  # a command that reads no runs does not build them
    assert parser.parse_args(["plan", "--delta", "0.05"]).command == "plan"


def test_commands_that_read_no_runs_parse_without_importing_the_formats():
    code = (
        "import sys\n"
        "from evaltui.cli.main import main\n"
        "for argv in (['plan', '--help'], ['verify', '--help'], ['prefer', '--help']):\n"
        "    assert main(argv) == 0\n"
        "print('polars' in sys.modules, 'evaltui.core.read.formats' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=Path(__file__).parent,
    )  # fmt: skip
    assert done.stdout.strip().splitlines()[-1] == "False False"


HEAVY = ("polars", "numpy", "scipy", "textual")


def test_building_the_parsers_that_read_runs_imports_no_polars_numpy_scipy_or_textual():
    """`--help` of report, signoff and the app stays instant: their format flags come from each
    format's light options module, never from its reader."""
    code = (
        "import sys\n"
        "from evaltui.cli.parser import build_parser, app_parser\n"
        "build_parser('report'); build_parser('signoff'); app_parser()\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=Path(__file__).parent,
    )  # fmt: skip
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_format_flags_are_read_from_the_options_modules_never_the_readers(
    fake_format, monkeypatch
):
    def no_reader(name):
        pytest.fail(f"building the parser asked for the reader of {name}")

    monkeypatch.setattr(formats, "format_module", no_reader)
    actions = group_actions(app_parser())
    fake = {"--level", "--strict", "--side", "--baseline-side", "--candidate-side", "--plain"}
    assert set(actions) == {*FLAG_HELP, *fake}
    assert actions["--level"].help == "fakefmt: how deep to read"


def test_a_format_declaring_its_options_in_its_own_module_still_offers_its_flags(monkeypatch):
    """Without an options module the parser falls back to the format's module (and so imports
    it): the flags are the same, only `--help` pays for the reader's imports."""
    module = types.ModuleType("evaltui.core.read.formats.inlinefmt")
    module.NAME, module.Options = "inlinefmt", _FakeOptions
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(formats, "REGISTRY", (*formats.REGISTRY, "inlinefmt"))
    assert "--level" in group_actions(app_parser())
