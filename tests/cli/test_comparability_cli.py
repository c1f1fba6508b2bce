"""Issue 24 items 3 and 4 through `evaltui report`: what was compared is named, and
comparability is decided, not assumed (exit codes and first lines from the one composer).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from evaltui.cli.main import main
from tests.conftest import DATA

LM = DATA / "lm_eval"
COPA_OLD = LM / "v0.4.2" / "pretrained__sshleifer__tiny-gpt2_copa.jsonl"
COPA_OLD_OTHER_MODEL = (
    LM / "v0.4.2" / "pretrained__hf-internal-testing__tiny-random-gpt2_copa.jsonl"
)
CHEM_OLD = LM / "other_task" / "pretrained__hf-internal-testing__tiny-random-gpt2_wmdp_chem.jsonl"
COPA_NEW = LM / "sshleifer__tiny-gpt2" / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
COPA_NEW_OTHER = (
    LM / "hf-internal-testing__tiny-random-gpt2" / "samples_copa_2026-10-01T23-15-52.736695.jsonl"
)
MAE = LM / "mae"
INSPECT = DATA / "inspect_ai"
GPT5 = INSPECT / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CLAUDE = INSPECT / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"
GPT5_DISAGREES = INSPECT / "variants" / "gpt5_summaries_disagree.eval"


def report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["report", *map(str, args)])
    return code, capsys.readouterr().out


def test_untitled_lm_eval_runs_whose_documents_differ_are_not_comparable(capsys):
    """Two lm-eval 0.4.0-0.4.2 files (no task name, no doc hashes): copa and another task on
    the same doc ids 0..19. Refused with the reason and the way out, exit 4."""
    code, out = report(capsys, COPA_OLD, CHEM_OLD)
    first = out.splitlines()[0]
    assert code == 4
    assert first.startswith("NOT COMPARABLE · not shown to be one task: documents differ on 20 ")
    assert "--accept-mismatch" in out
    code, out = report(capsys, COPA_OLD, CHEM_OLD, "--accept-mismatch")
    assert out.splitlines()[0].startswith("NOT ENOUGH DATA · mismatch accepted")  # 20 items


def test_untitled_lm_eval_runs_of_the_same_documents_pair(capsys):
    code, out = report(capsys, COPA_OLD_OTHER_MODEL, COPA_OLD)
    assert not out.startswith("NOT COMPARABLE")
    assert "documents differ" not in out and "prompts differ" not in out


def test_a_new_file_and_an_old_one_compare_their_documents_alike(capsys):
    """lm-eval >= 0.4.3 writes doc_hash; 0.4.2's is computed at load the same way, so the same
    documents in the two layouts are the same items, and copa against chem are not."""
    code, out = report(capsys, COPA_NEW, COPA_OLD_OTHER_MODEL)
    assert "documents differ" not in out
    code, out = report(capsys, CHEM_OLD, COPA_OLD_OTHER_MODEL)
    assert out.startswith("NOT COMPARABLE")


def few_shot(source: Path, dest: Path) -> Path:
    """The real samples file asked few-shot: each prompt gets two worked examples before it,
    and its prompt_hash is recomputed as lm-eval computes it (sha256 of the prompt)."""
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for request in record["arguments"].values():
            request["arg_0"] = "Example: A. Answer: 1\nExample: B. Answer: 2\n" + request["arg_0"]
        prompt = record["arguments"]["gen_args_0"]["arg_0"]
        record["prompt_hash"] = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
        lines.append(json.dumps(record, ensure_ascii=False))
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dest


def test_prompts_that_differ_are_counted_on_the_first_line_and_in_the_markdown(capsys, tmp_path):
    cand = few_shot(COPA_NEW_OTHER, tmp_path / "few" / COPA_NEW_OTHER.parent.name / COPA_NEW.name)
    code, out = report(capsys, COPA_NEW, cand)
    first = out.splitlines()[0]
    assert "prompts differ on 20 of 20 items" in first
    assert not first.startswith("NOT COMPARABLE")  # the same documents: the same task
    code, md = report(capsys, COPA_NEW, cand, "--format", "markdown")
    assert "prompts differ on 20 of 20 items (prompt\\_hash)" in md
    code, text = report(capsys, COPA_NEW, cand, "--format", "json")
    data = json.loads(text)
    assert data["comparability"]["prompts_differ"] == {"differ": 20, "of": 20, "by": "prompt_hash"}
    assert data["comparability"]["same_task_shown_by"] == "task name"


def mae_pair(tmp_path: Path, with_results: bool) -> tuple[Path, Path]:
    """The mae pair (a lower-is-better per-item metric) over 60 items: the 20 real-derived
    records three times with doc ids 0..59, so the pair is large enough for a verdict; the
    results file that declares the direction kept or left out."""
    out = []
    for model in ("sshleifer__tiny-gpt2", "hf-internal-testing__tiny-random-gpt2"):
        source = next((MAE / model).glob("samples_*.jsonl"))
        records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
        lines = []
        for copy in range(3):
            for record in records:
                again = {**record, "doc_id": record["doc_id"] + 20 * copy}
                again["doc_hash"] = hashlib.sha256(f"{again['doc_id']}".encode()).hexdigest()
                lines.append(json.dumps(again, ensure_ascii=False))
        dest = tmp_path / ("with" if with_results else "without") / model / source.name
        dest.parent.mkdir(parents=True)
        dest.write_text("\n".join(lines) + "\n", encoding="utf-8")
        if with_results:
            results = next((MAE / model).glob("results_*.json"))
            shutil.copy(results, dest.parent / results.name)
        out.append(dest)
    return out[0], out[1]


def test_a_metric_whose_direction_the_log_does_not_declare_gets_no_directional_verdict(
    capsys, tmp_path
):
    base, cand = mae_pair(tmp_path, with_results=False)
    code, out = report(capsys, base, cand)
    assert code == 4
    assert out.startswith("NOT ENOUGH DATA · direction unknown (--direction)")
    assert "its name suggests lower is better: confirm with --direction lower" in out
    assert "Regressions (0): none" in out  # no item called a regression on a guess
    code, lower = report(capsys, base, cand, "--direction", "lower", "--format", "json")
    data = json.loads(lower)
    assert data["direction"] == {
        "higher_is_better": False,
        "source": "--direction lower",
        "inferred": False,
    }
    assert data["verdict"] in ("improved", "regressed", "no_significant_difference")
    declared = json.loads(report(capsys, *mae_pair(tmp_path, True), "--format", "json")[1])
    # The same answer when the results file declares it as when the user says it.
    assert declared["regressions"] == data["regressions"] and data["regressions"]
    assert declared["verdict"] == data["verdict"]
    assert "declared by results_" in declared["direction"]["source"]


def test_a_lower_is_better_name_is_read_that_way_and_said_to_be_inferred(capsys, write_jsonl):
    """A JSONL run has no way to declare a direction: its `score:latency_ms` is read as
    lower-is-better from the name, and every report says so."""
    base = write_jsonl(
        "b.jsonl", [{"item_id": str(i), "score:latency_ms": 100.0 + i % 5} for i in range(40)]
    )
    cand = write_jsonl(
        "c.jsonl", [{"item_id": str(i), "score:latency_ms": 80.0 + i % 5} for i in range(40)]
    )
    code, out = report(capsys, base, cand)
    assert "direction: lower is better (inferred from the metric name 'latency_ms')" in out
    data = json.loads(report(capsys, base, cand, "--format", "json")[1])
    assert data["verdict"] == "improved" and data["regressions"] == []  # 20 ms faster
    assert data["direction"]["inferred"] is True


def test_an_inspect_log_whose_summaries_disagree_with_its_results_is_named(capsys):
    """The real gpt-5 log with sample 5's SUMMARIES edited to "C" (samples and results left
    as Inspect wrote them): the samples are used, and the first line says so."""
    code, out = report(capsys, GPT5_DISAGREES, CLAUDE)
    first = out.splitlines()[0]
    assert "baseline log: summaries disagree, samples used" in first
    assert "5 of 50 samples have other scores in their sample member" in out
    _, plain = report(capsys, GPT5, CLAUDE, "--format", "json")
    _, edited = report(capsys, GPT5_DISAGREES, CLAUDE, "--format", "json")
    # The numbers are the untouched log's: the samples, not the edited summaries.
    assert json.loads(edited)["graded"] == json.loads(plain)["graded"]


def test_the_markdown_names_what_was_compared_without_absolute_local_paths(capsys, tmp_path):
    far = tmp_path / "elsewhere"
    far.mkdir()
    base, cand = shutil.copy(GPT5, far / GPT5.name), shutil.copy(CLAUDE, far / CLAUDE.name)
    code, md = report(capsys, Path(base).resolve(), Path(cand).resolve(), "--format", "markdown")
    assert str(far) not in md and str(tmp_path) not in md
    row = next(line for line in md.splitlines() if line.startswith("| baseline |"))
    for word in ("popularity", "openai/gpt-5", "match", "Inspect AI 0.3.128", "UTC", GPT5.name):
        assert word in row, word
    assert "2025-09-15 19:04:34 UTC" in row  # created 15:04:34-04:00, said in UTC


def test_independent_runs_whose_metric_direction_is_unknown_get_no_directional_verdict(
    capsys, tmp_path
):
    """The same mae logs compared as two samples of different items: an unknown direction is
    no directional verdict there too (it was read higher-is-better), until --direction says."""
    base, cand = mae_pair(tmp_path, with_results=False)
    code, out = report(capsys, base, cand, "--design", "independent")
    assert code == 4
    assert out.startswith("NOT ENOUGH DATA · ")
    assert "direction unknown (--direction)" in out.splitlines()[0]
    code, out = report(capsys, base, cand, "--design", "independent", "--direction", "lower")
    assert "direction unknown" not in out.splitlines()[0]
