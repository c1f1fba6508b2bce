"""Harness logs and other column names through the command line, with mismatch warnings."""

from __future__ import annotations

import json

from evaltui.cli.main import main
from tests.conftest import DATA

PROMPTFOO = DATA / "promptfoo" / "eval-two-providers.json"
LM_TINY = next((DATA / "lm_eval" / "sshleifer__tiny-gpt2").glob("*.jsonl"))
LM_RANDOM = next((DATA / "lm_eval" / "hf-internal-testing__tiny-random-gpt2").glob("*.jsonl"))
INSPECT_JSON = DATA / "inspect_ai" / "2025-05-12T20-28-13-04-00_popularity.json"


def report(capsys, *args):
    code = main(["report", *map(str, args), "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err


def test_two_arms_of_one_promptfoo_file_are_compared_with_per_side_arms(capsys):
    code, r, _ = report(
        capsys, PROMPTFOO, PROMPTFOO,
        "--baseline-arm", "provider=openai:gpt-4o-mini",
        "--candidate-arm", "provider=claude-3.5-haiku",
    )  # fmt: skip
    assert code == 4  # 12 tests: counts only, no verdict (the decision's exit code)
    assert r["decision"]["status"] == "not_enough_data"
    assert r["table"] == {"both_pass": 6, "regressions": 3, "improvements": 1, "both_fail": 2}


def test_promptfoo_file_with_several_arms_and_no_arm_is_a_clear_error(capsys, tmp_path):
    copy = tmp_path / "copy.json"
    copy.write_bytes(PROMPTFOO.read_bytes())
    code, _, err = report(capsys, PROMPTFOO, copy)
    assert code == 2 and "--arm" in err and err.count("\n") == 1


def test_one_file_given_twice_is_refused_unless_two_arms_are_chosen(capsys):
    code, _, err = report(capsys, PROMPTFOO, PROMPTFOO)
    assert code == 2 and "given as both the baseline and the candidate" in err
    assert err.count("\n") == 1


def test_lm_eval_pair_gives_the_expected_table(capsys):
    code, r, _ = report(capsys, LM_TINY, LM_RANDOM)
    assert r["table"] == {"both_pass": 10, "regressions": 2, "improvements": 6, "both_fail": 2}
    assert r["inputs"]["baseline"]["format"] == "lm_eval"
    assert r["inputs"]["candidate"]["metadata"]["model"] == "hf-internal-testing/tiny-random-gpt2"


def test_other_column_names_are_mapped_by_flags(capsys, tmp_path):
    for name, verdicts in (("b.csv", "1,1,0,0"), ("c.csv", "1,0,1,1")):
        rows = ["qid,correct,topic"] + [
            f"q{i},{'true' if v == '1' else 'false'},t{i % 2}"
            for i, v in enumerate(verdicts.split(","))
        ]
        (tmp_path / name).write_text("\n".join(rows) + "\n")
    code, r, err = report(
        capsys, tmp_path / "b.csv", tmp_path / "c.csv",
        "--id-col", "qid", "--pass-col", "correct", "--slice-col", "topic",
    )  # fmt: skip
    assert code == 4, err  # four items: no verdict
    assert r["table"] == {"both_pass": 1, "regressions": 1, "improvements": 2, "both_fail": 0}
    code, _, err = report(capsys, tmp_path / "b.csv", tmp_path / "c.csv", "--id-col", "nope")
    assert code == 2 and "nope" in err and "qid" in err


def test_runs_of_different_tasks_are_warned_about(capsys):
    # Different tasks whose ids coincide ("1", "2", "3") are not paired (issue 17): the ids
    # name different items. The refusal names the two ways out.
    code, r, err = report(capsys, INSPECT_JSON, LM_TINY, "--allow-missing")
    assert code == 2 and r is None
    assert "task 'popularity' vs 'copa'" in err and "coincide by accident" in err
    assert "--design independent" in err and "--accept-mismatch" in err
    code, r, _ = report(capsys, INSPECT_JSON, LM_TINY, "--allow-missing", "--accept-mismatch")
    assert "the runs differ in task: baseline 'popularity', candidate 'copa'" in r["warnings"]
    assert "the baseline log's run status is 'cancelled': it may be incomplete" in r["warnings"]
    assert r["decision"]["status"] != "not_comparable"
    assert any(x["kind"] == "mismatch_accepted" for x in r["decision"]["reasons"])
    assert r["spec"]["accept_mismatch"] is True


# --- a log directory in place of the two runs (issue 16, item 12) ----------------------------

HELM_OUTPUT = DATA / "helm" / "benchmark_output"
HELM_RUN = HELM_OUTPUT / "runs" / "v4" / "mmlu_subject=anatomy_model=eleutherai_pythia-1b-v0"


def test_report_on_a_log_directory_compares_the_runs_its_selectors_name(capsys):
    code, r, err = report(
        capsys, HELM_OUTPUT, "--baseline", "pythia-6.9b", "--candidate", "pythia-1b-v0"
    )
    assert code != 2, err
    assert r["table"] == {"both_pass": 4, "regressions": 4, "improvements": 1, "both_fail": 4}
    assert r["inputs"]["baseline"]["metadata"]["model"] == "eleutherai/pythia-6.9b"


def test_report_on_a_log_directory_defaults_to_the_two_latest_runs_of_one_task(capsys):
    code, r, err = report(capsys, HELM_OUTPUT)
    assert code != 2, err
    assert r["table"] == {"both_pass": 4, "regressions": 1, "improvements": 4, "both_fail": 4}


def test_two_helm_run_directories_are_two_runs_not_a_log_directory(capsys):
    other = HELM_RUN.parent / "mmlu_subject=anatomy_model=eleutherai_pythia-6.9b"
    code, r, err = report(capsys, HELM_RUN, other)
    assert code != 2, err
    assert r["table"]["improvements"] == 4


def test_a_selector_naming_no_run_is_one_line_exit_2(capsys):
    code, _, err = report(capsys, HELM_OUTPUT, "--baseline", "gpt-7")
    assert code == 2 and err.count("\n") == 1 and "names no run" in err


def test_selectors_without_a_log_directory_are_refused(capsys):
    code, _, err = report(capsys, LM_TINY, LM_RANDOM, "--baseline", "1")
    assert code == 2 and "pick runs from a log directory" in err
