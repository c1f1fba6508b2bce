"""The headless commands as a user or CI job runs them: output, exit codes, one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evaltui.cli.main import main
from tests.conftest import table_records

REQUIRED_KEYS = {
    "schema",
    "inputs",
    "pairing",
    "n_paired",
    "table",
    "baseline",
    "candidate",
    "delta",
    "mcnemar",
    "unpaired",
    "flags",
    "verdict",
    "regressions",
    "improvements",
}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_report_json_on_the_demo_pair_shows_the_worked_example(capsys, sample_pair):
    code, out, err = run(capsys, "report", *map(str, sample_pair), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report.keys() >= REQUIRED_KEYS
    assert report["schema"] == "evaltui.report/2"
    assert report["table"] == {
        "both_pass": 141,
        "regressions": 9,
        "improvements": 21,
        "both_fail": 29,
    }
    assert report["n_paired"] == 200
    assert report["baseline"]["passes"] == 150 and report["candidate"]["passes"] == 162
    assert report["delta"]["estimate"] == pytest.approx(0.06)
    assert report["delta"]["method"] == "tango" and report["delta"]["confidence"] == 0.95
    assert report["mcnemar"]["exact_p"] == pytest.approx(0.0428, abs=5e-5)
    # The item-level Tango interval lies above zero, but the demo's 200 items come from 31
    # source documents: the verdict rests on the cluster-aware interval, which includes zero.
    assert report["delta"]["ci"][0] > 0
    assert report["verdict"] == "no_significant_difference"
    assert report["clusters"]["verdict_method"] == "wild-cluster-t"
    assert report["clusters"]["verdict_ci"][0] < 0 < report["clusters"]["verdict_ci"][1]
    assert report["decision"]["status"] == "needs_review"  # 9 regressions untriaged
    assert report["decision"]["line"].startswith("NEEDS REVIEW · 9 of 9 untriaged · overall")
    assert len(report["regressions"]) == 9 and len(report["improvements"]) == 21
    for arm in ("baseline", "candidate"):
        assert set(report["inputs"][arm]) >= {"path", "sha256", "format", "items"}
    assert report["pairing"]["excluded_errors"] == {"baseline": 0, "candidate": 0}


def test_report_text_and_markdown_carry_the_headline(capsys, sample_pair):
    code, out, _ = run(capsys, "report", *map(str, sample_pair))
    assert code == 0 and "Candidate +6.0 pts" in out and "141" in out
    code, out, _ = run(capsys, "report", *map(str, sample_pair), "--format", "markdown")
    assert code == 0
    assert "| **baseline pass** | 141 | 9 (regressions) |" in out


def test_ci_method_and_confidence_are_honoured(capsys, sample_pair):
    code, out, _ = run(
        capsys,
        "report",
        *map(str, sample_pair),
        "--format",
        "json",
        "--ci-method",
        "wald",
        "--confidence",
        "0.9",
    )
    delta = json.loads(out)["delta"]
    assert delta["method"] == "wald" and delta["confidence"] == 0.9
    assert delta["ci"][0] == pytest.approx(0.06 - 1.6448536 * 0.0271109, abs=1e-4)


def test_regressed_candidate_exits_1(capsys, write_jsonl):
    base, cand = table_records(100, 30, 5, 15)
    code, out, _ = run(
        capsys,
        "report",
        str(write_jsonl("b.jsonl", base)),
        str(write_jsonl("c.jsonl", cand)),
        "--format",
        "json",
    )
    assert code == 1 and json.loads(out)["verdict"] == "regressed"


def test_on_error_exclude_reports_counts_per_arm(capsys, sample_pair):
    code, out, _ = run(
        capsys, "report", *map(str, sample_pair), "--format", "json", "--on-error", "exclude"
    )
    pairing = json.loads(out)["pairing"]
    assert code == 0
    assert pairing["excluded_errors"] == {"baseline": 1, "candidate": 2}
    assert pairing["paired"] == 200 - len(pairing["excluded_items"])


def bad_inputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    good = [{"item_id": f"q{i}", "passed": True} for i in range(3)]

    def jsonl(name, lines):
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        return path

    def records(name, recs):
        return jsonl(name, [json.dumps(r) for r in recs])

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    truncated = tmp_path / "cut.jsonl"
    truncated.write_text('{"item_id": "q0", "passed": true}\n{"item_id": "q1", "pa')
    no_id = tmp_path / "noid.csv"
    no_id.write_text("id,passed\nq0,true\n")
    return {
        "missing ids": (records("missing.jsonl", good[:2]), "are missing from"),
        "duplicate": (records("dup.jsonl", good + good[:1]), "duplicate item_id 'q0'"),
        "pass string": (
            records("pass.jsonl", [*good[:2], {"item_id": "q2", "passed": "pass"}]),
            "pass.jsonl:3: field 'passed': expected true or false, got \"pass\"",
        ),
        "one": (
            records("one.jsonl", [*good[:2], {"item_id": "q2", "passed": 1}]),
            "one.jsonl:3: field 'passed': expected true or false, got 1",
        ),
        "null": (
            records("null.jsonl", [*good[:2], {"item_id": "q2", "passed": None}]),
            "null.jsonl:3: field 'passed': missing",
        ),
        "empty": (empty, "empty.jsonl: the file is empty"),
        "truncated": (truncated, "cut.jsonl:2: the line is not valid JSON"),
        "csv no id": (no_id, "noid.csv: field 'item_id': no 'item_id' column"),
    }


@pytest.mark.parametrize(
    "case",
    ["missing ids", "duplicate", "pass string", "one", "null", "empty", "truncated", "csv no id"],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(capsys, tmp_path, write_jsonl, case):
    good = write_jsonl("good.jsonl", [{"item_id": f"q{i}", "passed": True} for i in range(3)])
    path, expected = bad_inputs(tmp_path)[case]
    code, out, err = run(capsys, "report", str(good), str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("evaltui: error: ")
    assert expected in err
    assert "Traceback" not in err


def test_usage_errors_exit_2_with_one_line(capsys, sample_pair):
    code, _, err = run(capsys, "report", str(sample_pair[0]))
    assert code == 2 and err.count("\n") == 1
    code, _, err = run(capsys, "report", *map(str, sample_pair), "--confidence", "1.5")
    assert code == 2 and "--confidence" in err


def test_signoff_writes_json_and_markdown_and_guards_approval(
    capsys, sample_pair, tmp_path, monkeypatch
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    args = ["signoff", *map(str, sample_pair), "--reviewer", "dana", "--rationale", "ok"]
    code, _, err = run(capsys, *args, "--decision", "approve", "--output", str(tmp_path / "a"))
    assert code == 2 and "untriaged" in err and "--override-reason" in err
    assert not (tmp_path / "a.json").exists()
    code, out, _ = run(capsys, *args, "--decision", "block", "--output", str(tmp_path / "b"))
    assert code == 0 and "b.json" in out
    record = json.loads((tmp_path / "b.json").read_text())
    assert record["reviewer_decision"] == "block" and record["reviewer"] == "dana"
    markdown = (tmp_path / "b.md").read_text()
    assert markdown.startswith("**NEEDS REVIEW** · 9 of 9 untriaged · overall +6.0 pts")
    assert "**Reviewer's decision: block** by dana" in markdown


def test_installed_console_script_runs_the_report(sample_pair):
    script = shutil.which("evaltui", path=str(Path(sys.executable).parent))
    assert script, "the evaltui console script is not installed next to this Python"
    done = subprocess.run(
        [script, "report", *map(str, sample_pair), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["table"]["both_pass"] == 141


def test_the_app_without_a_terminal_is_a_one_line_error(capsys, sample_pair, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run(capsys, *map(str, sample_pair))
    assert code == 2 and "needs a terminal" in err and "evaltui report" in err


def test_a_mistyped_command_suggests_the_right_one(capsys):
    code, _, err = run(capsys, "reprot", "a.jsonl", "b.jsonl")
    assert code == 2
    assert "unknown command 'reprot'; did you mean 'report'?" in err and err.count("\n") == 1


def test_a_command_after_options_is_told_to_go_first(capsys, sample_pair):
    """Parsed as the app on runs "report", BASE and CAND, it said "report: no such file" at a
    terminal and that the app needs one elsewhere."""
    code, _, err = run(capsys, "--no-cache", "report", *map(str, sample_pair))
    assert code == 2 and err.count("\n") == 1
    assert "'report' is a command: put it first, then its options" in err
    assert "(evaltui report --no-cache ...)" in err


def test_a_metric_a_jsonl_run_does_not_have_is_refused_naming_its_scores(capsys, sample_pair):
    """A JSONL run has no scorers to choose among: `--metric nope` was dropped without a word
    and the pair compared on `passed`."""
    code, _, err = run(capsys, "report", *map(str, sample_pair), "--metric", "nope")
    assert code == 2 and err.count("\n") == 1
    assert "--metric nope: " in err
    assert "(jsonl) has no score of that name (its scores: none)" in err
    code, out, _ = run(capsys, "report", *map(str, sample_pair), "--metric", "passed")
    assert code == 0 and out.startswith("NEEDS REVIEW")
    third = sample_pair[0].parent / "candidate2.jsonl"  # (a run set: each run checked)
    code, _, err = run(capsys, "report", *map(str, sample_pair), str(third), "--metric", "nope")
    assert code == 2 and "(jsonl) has no score of that name" in err


def test_verify_says_who_decided_what_when_it_succeeds(capsys, sample_pair, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    prefix = tmp_path / "rec"
    args = ["--decision", "block", "--reviewer", "dana", "--rationale", "no", "--output"]
    code, out, _ = run(capsys, "signoff", *map(str, sample_pair), *args, str(prefix))
    assert code == 0
    assert out.strip() == "wrote " + ", ".join(
        str((tmp_path / f"rec.{ext}").resolve()) for ext in ("json", "md", "csv")
    )
    code, out, _ = run(capsys, "verify", str(prefix) + ".json", *map(str, sample_pair))
    assert code == 0
    summary = out.splitlines()[-1]
    assert summary.startswith("evaltui: dana decided block on ")
    assert "; the tool said: NEEDS REVIEW · 9 of 9 untriaged" in summary


def test_a_url_as_the_review_folder_is_refused_and_nothing_is_made_locally(
    capsys, sample_pair, tmp_path, monkeypatch
):
    """`Path` made `--review-dir az://b/reviews` a local folder `./az:/b/reviews` that the
    reviewer took for the bucket; journals are appended to and locked, which a store cannot."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    argv = ["signoff", *map(str, sample_pair), "--decision", "block", "--rationale", "r",
            "--reviewer", "ana", "--review-dir", "az://b/reviews", "--output", "so"]  # fmt: skip
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("evaltui: error: --review-dir az://b/reviews: a shared review folder")
    assert not (tmp_path / "az:").exists() and not (tmp_path / "so.json").exists()


def test_a_url_for_a_file_evaltui_writes_is_refused_before_reading(
    capsys, sample_pair, tmp_path, monkeypatch
):
    """`--junit s3://b/x.xml` failed after the whole comparison with "s3:/b/x.xml: No such
    file or directory"; `--output` said "folder s3:/b/out does not exist"."""
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    signoff = ["signoff", *map(str, sample_pair), "--decision", "block", "--rationale", "r",
               "--reviewer", "ana", "--output", "s3://b/out/so"]  # fmt: skip
    for argv, flag, url in (
        (signoff, "--output", "s3://b/out/so"),
        (["report", *map(str, sample_pair), "--junit", "gs://b/x.xml"], "--junit", "gs://b/x.xml"),
        (
            ["report", *map(str, sample_pair), "--summary", "az://c/s.md"],
            "--summary",
            "az://c/s.md",
        ),
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1
        assert err.startswith(f"evaltui: error: {flag} {url}: evaltui writes its files to a local")
    record = tmp_path / "rec.json"
    record.write_text("{}")
    signing = ["--signature", "s3://b/so.sig", "--allowed-signers", "s3://b/a", "--identity", "r"]
    code, _, err = run(capsys, "verify", str(record), "--record-only", *signing)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("evaltui: error: --signature s3://b/so.sig: ssh-keygen reads a local")
    from evaltui.core.errors import UsageError
    from evaltui.core.record.signoff import write_record_files

    with pytest.raises(UsageError, match="cannot write the sign-off to s3://b/so: its files"):
        write_record_files("s3://b/so", {}, "", "")  # (the core's own guard, for API callers)


@pytest.mark.parametrize("command", [["report"], []], ids=["report", "app"])
def test_a_lone_path_naming_nothing_is_said_missing_not_give_two_runs(capsys, tmp_path, command):
    """A mistyped log folder (`evaltui report logz/`) was told "give two runs (BASE CAND), or
    a log directory", as if it named one run."""
    missing = tmp_path / "logz"
    assert main([*command, str(missing)]) == 2
    assert capsys.readouterr().err.strip() == f"evaltui: error: {missing}: no such file or folder"


def test_a_lone_path_naming_one_run_is_told_to_give_two(capsys, sample_pair):
    assert main(["report", str(sample_pair[0])]) == 2
    assert capsys.readouterr().err.strip() == (
        "evaltui: error: give two runs (BASE CAND), or a log directory"
    )
