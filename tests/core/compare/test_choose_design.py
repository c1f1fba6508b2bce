"""Choosing the design (D1-D4), the independent analysis of two runs and its decision (issue 17).

The statistics themselves are checked against R, statsmodels and the published examples in
test_independent.py; here: which design runs, why, what is refused, and what the result says.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from evaltui.core.analysis.independent import LABEL, IndependentAnalysis
from evaltui.core.analysis.pipeline import compare, compare_design
from evaltui.core.compare.choose_design import choose_design, refuse_accidental_pairing
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.decide.independent import decide_independent
from evaltui.core.decide.vocabulary import EXIT_BLOCKED, EXIT_NO_VERDICT, EXIT_READY
from evaltui.core.errors import InputError, PairingError, UsageError
from evaltui.core.policy import loads_policy
from evaltui.core.read.formats import load_run
from tests.conftest import DATA

FIXTURES = DATA / "independent"
BOOLQ = next((FIXTURES / "lm_eval" / "boolq").glob("samples_boolq_*.jsonl"))
PIQA = next((FIXTURES / "lm_eval" / "piqa").glob("samples_piqa_*.jsonl"))


def verdicts(prefix: str, n: int, passes: int, **extra) -> list[dict]:
    return [{"item_id": f"{prefix}{i}", "passed": i < passes, **extra} for i in range(n)]


@pytest.fixture
def apart(write_jsonl):
    """Two runs that share no item id: 48 of 80 and 56 of 70 pass (Newcombe 1998, Table II a)."""
    return write_jsonl("b.jsonl", verdicts("b", 80, 48)), write_jsonl(
        "c.jsonl", verdicts("c", 70, 56)
    )


def run(path, **metadata):
    loaded = load_run(path)
    return replace(loaded, metadata={**loaded.metadata, **metadata})


def independent(base, cand, **choices) -> IndependentAnalysis:
    result = compare_design(CompareSpec.create(base, cand, design="independent", **choices))
    assert isinstance(result, IndependentAnalysis)
    return result


# --- which design --------------------------------------------------------------------------


def test_runs_that_share_no_item_id_are_independent_under_auto(apart):
    choice = choose_design("auto", run(apart[0]), run(apart[1]))
    assert (choice.design, choice.rule, choice.shared_ids) == ("independent", "D1", 0)
    assert choice.reason == "the runs share no item ids (baseline 80 items, candidate 70 items)"


def test_ids_that_coincide_in_runs_of_different_datasets_are_not_paired(write_jsonl):
    base = run(write_jsonl("b.jsonl", verdicts("", 40, 20)), dataset="gsm8k")
    cand = run(write_jsonl("c.jsonl", verdicts("", 40, 25)), dataset="math")
    choice = choose_design("auto", base, cand)
    assert (choice.design, choice.rule, choice.shared_ids) == ("independent", "D1-accidental", 40)
    assert "dataset 'gsm8k' vs 'math'" in choice.reason and "coincide by accident" in choice.reason
    with pytest.raises(PairingError, match="--design independent.*--accept-mismatch"):
        refuse_accidental_pairing(base, cand, accept_mismatch=False)
    # The user says they are the same items: paired, as everything else is.
    assert choose_design("auto", base, cand, accept_mismatch=True).design == "paired"
    refuse_accidental_pairing(base, cand, accept_mismatch=True)


def test_shared_ids_that_all_name_different_documents_coincide_by_accident():
    # Two lm-eval tasks whose doc_ids 0..39 coincide; said to be one task, the documents
    # (lm-eval's doc_hash) still tell them apart, id by id.
    base, cand = run(BOOLQ, task="qa"), run(PIQA, task="qa")
    choice = choose_design("auto", base, cand)
    assert (choice.rule, choice.shared_ids) == ("D1-accidental", 40)
    assert "every one of the 40 shared item id(s) names a different document" in choice.reason
    assert "doc_hash differs" in choice.reason


def test_lm_eval_runs_of_two_tasks_with_coinciding_doc_ids_are_refused_as_a_pair():
    with pytest.raises(PairingError) as err:
        compare(CompareSpec.create(BOOLQ, PIQA))
    assert "task 'boolq' vs 'piqa'" in str(err.value) and "--design independent" in str(err.value)
    a = compare_design(CompareSpec.create(BOOLQ, PIQA, design="auto"))
    assert isinstance(a, IndependentAnalysis) and a.design.rule == "D1-accidental"


def test_runs_of_the_same_items_stay_paired_under_auto(write_jsonl):
    base = run(write_jsonl("b.jsonl", verdicts("q", 40, 20)))
    cand = run(write_jsonl("c.jsonl", verdicts("q", 40, 25)))
    choice = choose_design("auto", base, cand)
    assert (choice.design, choice.rule, choice.reason) == ("paired", "D4", "")


def test_independent_on_runs_that_could_be_paired_says_the_paired_analysis_is_stronger(
    write_jsonl,
):
    base = run(write_jsonl("b.jsonl", verdicts("q", 40, 20)))
    cand = run(write_jsonl("c.jsonl", verdicts("q", 40, 25)))
    choice = choose_design("independent", base, cand)
    assert (choice.design, choice.rule, choice.shared_ids) == ("independent", "requested", 40)
    assert "the paired analysis (the default) is the stronger one" in choice.reason


def test_an_unknown_design_is_a_usage_error(apart):
    with pytest.raises(UsageError, match="--design must be one of paired, independent, auto"):
        CompareSpec.create(*apart, design="crossover")


# --- the comparison entries ----------------------------------------------------------------


def test_the_paired_default_refuses_runs_without_shared_ids_and_names_the_way_out(apart):
    with pytest.raises(PairingError) as err:
        compare(CompareSpec.create(*apart))
    message = str(err.value)
    assert "share no item ids" in message and "--design independent" in message


def test_the_paired_entry_refuses_an_independent_design_for_the_app_and_signoff(apart):
    with pytest.raises(UsageError, match="reviews paired runs only.*--design independent"):
        compare(CompareSpec.create(*apart, design="auto"))


def test_auto_on_runs_of_the_same_items_gives_the_paired_analysis(write_jsonl):
    base = write_jsonl("b.jsonl", verdicts("q", 40, 20))
    cand = write_jsonl("c.jsonl", verdicts("q", 40, 25))
    result = compare_design(CompareSpec.create(base, cand, design="auto"))
    assert not isinstance(result, IndependentAnalysis) and result.paired.n == 40


def test_independent_pass_fail_runs_get_newcombe_and_both_tests(apart):
    a = independent(*apart)
    c = a.comparison
    assert a.kind == "binary" and a.design.rule == "D1"
    assert (c.candidate.passes, c.candidate.n, c.baseline.passes, c.baseline.n) == (56, 70, 48, 80)
    assert (round(c.ci.lower, 4), round(c.ci.upper, 4)) == (0.0524, 0.3339)  # Newcombe Table II
    assert (c.test.name, c.other_test.name) == ("z_pooled", "fisher_exact")
    assert a.verdict == "improved"
    assert a.headline.startswith("Independent (unpaired) comparison: candidate +20.0 pts")
    assert a.baseline.run.source.sha256 and a.candidate.run.source.sha256  # resolved


def test_errored_records_are_failures_or_leave_their_own_arm(write_jsonl):
    base = verdicts("b", 60, 30) + [{"item_id": "b-err", "status": "error"}]
    cand = verdicts("c", 60, 40)
    paths = write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand)
    failed = independent(*paths)
    assert failed.comparison.baseline.n == 61 and failed.comparison.baseline.passes == 30
    assert "errors/timeouts counted as failures in the baseline: 1" in failed.warnings
    excluded = independent(*paths, on_error="exclude")
    assert excluded.comparison.baseline.n == 60 and excluded.comparison.candidate.n == 60
    assert "1 errored record(s) excluded from the baseline" in excluded.warnings


def test_epochs_make_per_item_pass_rates_compared_with_welch(write_jsonl):
    def epochs(prefix: str, n: int, rate_of) -> list[dict]:
        return [
            {"item_id": f"{prefix}{i}", "epoch": e, "passed": e <= rate_of(i)}
            for i in range(n)
            for e in (1, 2)
        ]

    base = write_jsonl("b.jsonl", epochs("b", 40, lambda i: i % 3))
    cand = write_jsonl("c.jsonl", epochs("c", 40, lambda i: (i + 1) % 3))
    a = independent(base, cand)
    assert a.kind == "graded" and a.comparison.test.name == "welch_t"
    values = a.baseline.values
    assert set(np.unique(values)) <= {0.0, 0.5, 1.0} and a.in_points


def test_scores_are_compared_with_welch_and_a_loss_reverses_the_verdict(write_jsonl):
    base = [{"item_id": f"b{i}", "score": 0.5 + (i % 7) / 100} for i in range(40)]
    cand = [{"item_id": f"c{i}", "score": 0.6 + (i % 7) / 100} for i in range(40)]
    paths = write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand)
    a = independent(*paths)
    assert a.kind == "graded" and a.verdict == "improved" and a.metric == "score"
    loss = replace(run(paths[0]), metadata={"higher_is_better": "false"})
    from evaltui.core.analysis.independent import analyze_independent
    from evaltui.core.compare.options import AnalysisOptions

    choice = choose_design("independent", loss, run(paths[1]))
    flipped = analyze_independent(loss, run(paths[1]), choice, AnalysisOptions())
    assert flipped.verdict == "regressed" and flipped.comparison.lower_is_better


def test_an_item_without_its_score_is_refused_naming_the_file(write_jsonl):
    base = [{"item_id": f"b{i}", "score": 0.5} for i in range(40)]
    base.append({"item_id": "b-err", "status": "error"})
    cand = [{"item_id": f"c{i}", "score": 0.6} for i in range(40)]
    paths = write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand)
    with pytest.raises(InputError, match=r"b\.jsonl.*no score.*'b-err'.*--on-error exclude"):
        independent(*paths)


def test_clustered_items_are_warned_about(write_jsonl):
    base = [dict(r, cluster=f"d{i // 4}") for i, r in enumerate(verdicts("b", 40, 20))]
    paths = write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", verdicts("c", 40, 30))
    a = independent(*paths)
    assert any("the baseline items carry clusters" in w for w in a.warnings)


# --- the spec ------------------------------------------------------------------------------


def test_the_spec_keeps_the_design_and_old_records_read_as_paired(apart):
    spec = CompareSpec.create(*apart, design="independent")
    data = spec.to_dict()
    assert data["design"] == "independent"
    assert CompareSpec.from_dict(data).design == "independent"
    paired = CompareSpec.create(*apart).to_dict()
    assert "design" not in paired  # a record made before the design existed is unchanged
    assert CompareSpec.from_dict(paired).design == "paired"
    with pytest.raises(UsageError, match="--design must be one of"):
        CompareSpec.from_dict({**data, "design": "sideways"})


# --- the decision --------------------------------------------------------------------------


def test_an_improvement_on_independent_runs_needs_review_at_best(apart):
    d = decide_independent(independent(*apart))
    assert d.status == "needs_review" and d.exit_code == EXIT_READY
    assert d.line.startswith(f"NEEDS REVIEW · {LABEL} · overall +20.0 pts [+5.2, +33.4]")
    assert d.line.endswith("(independent), improved")
    assert d.reasons[0].kind == "independent" and "share no item ids" in d.reasons[0].text
    assert d.untriaged == 0 and d.by_tag == {} and d.sensitivity is None


def test_a_regression_on_independent_runs_blocks(apart):
    d = decide_independent(independent(apart[1], apart[0]))
    assert d.status == "blocked" and d.exit_code == EXIT_BLOCKED
    assert d.line.startswith(f"BLOCKED · {LABEL} · regressed · overall -20.0 pts")


def test_small_independent_arms_give_no_verdict(write_jsonl):
    paths = (
        write_jsonl("b.jsonl", verdicts("b", 20, 5)),
        write_jsonl("c.jsonl", verdicts("c", 20, 15)),
    )
    d = decide_independent(independent(*paths))
    assert d.status == "not_enough_data" and d.exit_code == EXIT_NO_VERDICT
    assert "an arm has fewer than 30 items (baseline 20, candidate 20)" in d.reasons[1].text


def test_a_different_scorer_is_not_comparable_unless_accepted(apart):
    a = independent(*apart)
    base = replace(a.baseline, run=replace(a.baseline.run, metadata={"scorer": "match"}))
    cand = replace(a.candidate, run=replace(a.candidate.run, metadata={"scorer": "judge"}))
    other = replace(a, baseline=base, candidate=cand)
    refused = decide_independent(other)
    assert refused.status == "not_comparable" and refused.exit_code == EXIT_NO_VERDICT
    accepted = decide_independent(other, accept_mismatch=True)
    assert accepted.status == "needs_review"


def test_different_datasets_are_said_but_not_refused(apart):
    a = independent(*apart)
    base = replace(a.baseline, run=replace(a.baseline.run, metadata={"dataset": "gsm8k"}))
    cand = replace(a.candidate, run=replace(a.candidate.run, metadata={"dataset": "math"}))
    d = decide_independent(replace(a, baseline=base, candidate=cand))
    assert d.status == "needs_review"
    assert any(r.kind == "different_sources" for r in d.reasons)


def test_a_policy_with_gates_cannot_be_read_on_independent_runs(apart):
    policy = loads_policy('[[gates]]\nkind = "no_regressions"\nname = "no regressions"\n')
    d = decide_independent(replace(independent(*apart), policy=policy))
    assert d.status == "not_enough_data" and d.exit_code == EXIT_NO_VERDICT
    assert "1 policy rule not evaluated" in d.line
