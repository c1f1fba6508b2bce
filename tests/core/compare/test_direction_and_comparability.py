"""Which way is better (`compare.direction`) and what the logs show about two runs being one
task (`compare.comparability`), read without the command line."""

from __future__ import annotations

import pytest

from evaltui.core.compare.comparability import assess
from evaltui.core.compare.direction import from_name, metric_direction
from evaltui.core.errors import UsageError
from evaltui.core.read.formats import load_run
from tests.conftest import DATA


@pytest.mark.parametrize(
    "name",
    ["loss", "eval_loss", "perplexity", "word_perplexity", "ppl", "error_rate", "mae", "mse",
     "rmse", "wer", "cer", "ter", "latency", "latency_ms", "cost_usd", "score:mae"],
)  # fmt: skip
def test_the_usual_lower_is_better_names_are_recognised(name):
    assert from_name(name) is False


@pytest.mark.parametrize(
    "name", ["acc", "acc_norm", "exact_match", "f1", "bleu", "pass@1", "accuracy", "rouge1"]
)
def test_the_usual_higher_is_better_names_are_recognised(name):
    assert from_name(name) is True


@pytest.mark.parametrize("name", ["score", "gap", "match_error"])
def test_a_name_that_says_nothing_or_both_ways_is_not_read_either_way(name):
    assert from_name(name) is None


def test_the_user_wins_then_the_log_then_the_name():
    declared = {"higher_is_better": "true", "direction_source": "results_x.json"}
    assert metric_direction("score:mae", [declared, declared], "lower").higher is False
    assert metric_direction("score:mae", [declared, declared]).higher is True
    by_name = metric_direction("score:mae", [{}, {}])
    assert by_name.higher is False and by_name.inferred
    assert "inferred from the metric name 'mae'" in by_name.text


def test_a_log_that_could_declare_and_does_not_leaves_the_direction_unknown():
    unknown = {"higher_is_better": "unknown", "metric": "mae"}
    found = metric_direction("score", [unknown, unknown])
    assert found.higher is None
    assert "suggests lower is better" in found.source and "--direction lower" in found.source
    assert metric_direction("passed", [unknown, unknown]).higher is True  # a verdict


def test_runs_that_declare_opposite_directions_are_refused():
    with pytest.raises(UsageError, match="opposite directions"):
        metric_direction("score", [{"higher_is_better": "true"}, {"higher_is_better": "false"}])


def test_old_lm_eval_files_carry_document_and_prompt_hashes_computed_at_load():
    copa = load_run(DATA / "lm_eval" / "v0.4.2" / "pretrained__sshleifer__tiny-gpt2_copa.jsonl")
    chem = load_run(
        DATA
        / "lm_eval"
        / "other_task"
        / "pretrained__hf-internal-testing__tiny-random-gpt2_wmdp_chem.jsonl"
    )
    new = load_run(
        DATA / "lm_eval" / "sshleifer__tiny-gpt2" / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
    )
    assert {"input_hash", "prompt_hash"} <= set(copa.table.columns)
    # lm-eval's own doc_hash and prompt_hash, and the ones computed from the old layout, agree.
    same = assess(new, copa)
    assert same.inputs is not None and same.inputs.differ == 0 and same.inputs.shared == 20
    assert same.prompts is not None and same.prompts.differ == 0
    other = assess(copa, chem)
    assert other.refused and other.shown_by == "" and other.inputs.differ == 20
    assert "--accept-mismatch" in other.refusal
