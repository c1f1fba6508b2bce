"""`--metric` on every per-sample cost the issue names (retries and limit hits beside tokens and
times), what it refuses with what to use instead, and the policy gate on limit hits."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from scipy import stats

from evaltui.core.analysis.cost import cost_comparison
from evaltui.core.analysis.pair import analyze
from evaltui.core.analysis.pair_result import AnalysisOptions
from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.compare.pairing import arm_columns, pair_runs
from evaltui.core.decide.gates import evaluate_gates
from evaltui.core.errors import InputError, UsageError
from evaltui.core.policy import loads_policy
from evaltui.core.read.formats.inspect_rows import with_cost_metric
from evaltui.core.read.runs import Run
from evaltui.core.read.turns import LIMIT_VERDICT
from tests.core.agent_fixtures import BASE, CAND
from tests.core.analysis.test_cost import STORED, per_item, run_with_limits


def test_metric_retries_compares_retried_attempts_per_item_as_a_loss():
    analysis = compare_files(BASE, CAND, metric="retries", complete=False)
    assert analysis.metric == "score:retries" and analysis.lower_is_better
    base, cand = per_item("baseline", 3), per_item("candidate", 3)
    assert analysis.graded.mean_delta == pytest.approx(np.mean([cand[i] - base[i] for i in base]))
    assert sorted(analysis.regressions) == sorted(i for i in base if cand[i] > base[i])
    assert sorted(analysis.regressions) == ["drug-3", "drug-5"]


def test_metric_limit_hits_is_the_paired_test_on_hit_or_not_per_item():
    analysis = compare_files(BASE, CAND, metric="limit_hits", complete=False)
    assert analysis.metric == LIMIT_VERDICT and analysis.binary is not None
    stopped = {
        arm: {k.split("/")[0] for k, v in STORED[arm].items() if v[2] is not None} for arm in STORED
    }
    assert stopped == {"baseline": {"drug-4"}, "candidate": {"drug-4"}}
    table = analysis.binary.table
    assert (table.both_pass, table.both_fail, table.regressions, table.improvements) == (
        4, 1, 0, 0,
    )  # fmt: skip
    assert analysis.binary.mcnemar.exact_p is None  # no item stopped in one run only


def limit_run(stopped: list[bool]) -> Run:
    run = run_with_limits(stopped, [100.0] * len(stopped))
    table = with_cost_metric(run.source.path, run.table, "limit_hits")
    return Run(run.source, table)


def test_metric_limit_hits_exact_mcnemar_equals_scipy_and_the_cost_block():
    # 40 items: both stopped on 2, only the candidate on 7, only the baseline on 1.
    base = [True] * 2 + [False] * 7 + [True] + [False] * 30
    cand = [True] * 2 + [True] * 7 + [False] + [False] * 30
    paired = pair_runs(limit_run(base), limit_run(cand))
    analysis = analyze(paired, AnalysisOptions(metric=LIMIT_VERDICT))
    assert analysis.binary is not None
    assert analysis.binary.mcnemar.exact_p == pytest.approx(stats.binomtest(1, 8, 0.5).pvalue)
    assert analysis.binary.mcnemar.exact_p == pytest.approx(cost_comparison(paired).limits.exact_p)
    assert len(analysis.regressions) == 7 and len(analysis.improvements) == 1


@pytest.mark.parametrize(
    ("metric", "instead"),
    [
        ("limit_hits", "drop --pass-threshold"),
        ("working_time", "or bound its growth with a policy gate (max_cost_growth)"),
        ("retries", "compare it per item without --pass-threshold"),
    ],
)
def test_pass_threshold_on_a_cost_is_refused_saying_what_to_use(capsys, metric, instead):
    from evaltui.cli.main import main

    code = main(["report", str(BASE), str(CAND), "--metric", metric, "--pass-threshold", "1"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and instead in err and "Traceback" not in err


def test_metric_limit_hits_in_the_independent_design_is_one_line_naming_the_paired_design(capsys):
    from evaltui.cli.main import main

    argv = ["report", str(BASE), str(CAND), "--design", "independent", "--metric", "limit_hits"]
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "compares 'passed', not limit hits" in err and "drop --design independent" in err


def test_metric_limit_hits_is_refused_for_a_format_that_records_no_costs():
    from tests.conftest import ROOT

    runs = [ROOT / "sample_runs" / name for name in ("baseline.jsonl", "candidate.jsonl")]
    with pytest.raises(UsageError, match="--metric limit_hits is a cost figure; .*baseline.jsonl"):
        compare_files(*runs, metric="limit_hits")


def test_max_limit_hits_growth_gate_reads_the_items_stopped_per_run():
    base = [True] * 2 + [False] * 7 + [True] + [False] * 30  # 3 items stopped
    cand = [True] * 2 + [True] * 7 + [False] + [False] * 30  # 9 items stopped
    paired = pair_runs(run_with_limits(base, [1.0] * 40), run_with_limits(cand, [1.0] * 40))
    policy = loads_policy(
        "[[gates]]\nkind = 'max_limit_hits_growth'\ngrowth = 0\n"
        "[[gates]]\nkind = 'max_limit_hits_growth'\ngrowth = 2.0\n"
    )
    none, tripled = evaluate_gates(policy, paired, analyze(paired), None)
    assert (none.name, none.status) == ("limit hits growth <= +0%", "failed")
    assert none.detail == (
        "items stopped by a limit 3 → 9 (+200%; exact McNemar p 0.0703), bound +0%"
    )
    assert tripled.status == "passed"  # 9 <= 3 * (1 + 2)
    same = pair_runs(run_with_limits(base, [1.0] * 40), run_with_limits(base, [1.0] * 40))
    (kept,) = evaluate_gates(loads_policy(policy_text(0.0)), same, analyze(same), None)
    assert kept.status == "passed" and "no item stopped in one run only" in kept.detail
    clean = [False] * 40
    grew = pair_runs(run_with_limits(clean, [1.0] * 40), run_with_limits(base, [1.0] * 40))
    (first,) = evaluate_gates(loads_policy(policy_text(5.0)), grew, analyze(grew), None)
    assert first.status == "failed" and "0 → 3 (none before" in first.detail


def policy_text(growth: float) -> str:
    return f"[[gates]]\nkind = 'max_limit_hits_growth'\ngrowth = {growth}\n"


def test_max_limit_hits_growth_gate_on_runs_without_limits_is_one_error(sample_pair):
    analysis = compare_files(*sample_pair, complete=False)
    with pytest.raises(InputError, match="entry 1: cannot be evaluated on this pair: the runs"):
        evaluate_gates(loads_policy(policy_text(0.0)), analysis.paired, analysis, None)
    with pytest.raises(InputError, match="compare the whole runs; remove 'slice'"):
        loads_policy(policy_text(0.0) + "slice = 'x'\n")
    with pytest.raises(InputError, match="growth"):
        loads_policy("[[gates]]\nkind = 'max_limit_hits_growth'\n")


def test_a_policy_without_the_limit_gate_keeps_its_rules_hash():
    # Computed before the max_limit_hits_growth kind existed (this branch, commit 11eb88d).
    text = (
        "[[gates]]\nkind = 'max_cost_growth'\nfigure = 'total_tokens'\ngrowth = 0.1\n"
        "[[gates]]\nkind = 'no_regressions'\n"
    )
    assert (
        loads_policy(text).hash
        == "41011a82e1f327d7ea295ea5dc12e1374e067c5c9b60c2c1a42b9bd6a6da3b20"
    )


def test_a_cost_gate_on_a_figure_without_an_interval_in_the_report_is_evaluated():
    """`max_cost_growth` on input tokens (the report gives them as medians only) is answered
    on that figure's own ratio interval, not refused as if the runs did not record it."""
    from tests.core.agent_fixtures import agent_pair

    paired = agent_pair()
    policy = loads_policy(
        "[[gates]]\nkind = 'max_cost_growth'\nfigure = 'input_tokens'\ngrowth = 0\n"
    )
    (gate,) = evaluate_gates(policy, paired, analyze(paired), None)
    base, cand = (
        per_item_inputs(paired.baseline.table),
        per_item_inputs(paired.candidate.table),
    )
    both = [i for i in base if base[i] is not None and cand[i] is not None]
    growth = np.mean([cand[i] for i in both]) / np.mean([base[i] for i in both]) - 1
    assert gate.status == "passed" and f"input tokens {growth:+.1%} per item" in gate.detail


def per_item_inputs(table: pl.DataFrame) -> dict[str, float | None]:
    grouped = table.group_by("item_id").agg(pl.col("cost:input_tokens").mean())
    return dict(zip(grouped["item_id"], grouped["cost:input_tokens"], strict=True))


def test_metric_limit_hits_on_a_log_that_records_no_costs_is_one_error_naming_the_field():
    from evaltui.core.read.runs import stats_table

    table = stats_table(["a", "b"], [1, 1], ["ok", "ok"], passed=[True, False])
    with pytest.raises(InputError, match="--metric limit_hits: the log records nothing") as exc:
        with_cost_metric("x.eval", table, "limit_hits")
    assert "limit" in str(exc.value) and "\n" not in str(exc.value)
    assert with_cost_metric("x.eval", table, "includes") is table  # not a cost: unchanged


ERRORED_WORDS = {
    "limit_hits": "errors/timeouts counted as not stopped by a limit "
    "(only a recorded limit is a hit): baseline 0, candidate 2",
    "retries": "errors/timeouts compared on the retries they recorded, not as failures: "
    "baseline 0, candidate 2",
    "working_time": "errors/timeouts compared on the working time they recorded, not as "
    "failures: baseline 0, candidate 2",
}


@pytest.mark.parametrize("metric", sorted(ERRORED_WORDS))
@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_report_says_what_a_cost_metric_does_with_errored_samples(capsys, metric, fmt):
    # The candidate's two errored samples are compared on what they recorded under a cost
    # metric: "counted as failures" would misstate it in every form of the report.
    from evaltui.cli.main import main

    main(["report", str(BASE), str(CAND), "--metric", metric, "--format", fmt])
    out, _ = capsys.readouterr()
    assert "counted as failures" not in out
    if fmt == "json":
        pairing = json.loads(out)["pairing"]
        assert ERRORED_WORDS[metric] in pairing["problems"]
        assert pairing["errors_counted_as_failures"] == {"baseline": 0, "candidate": 0}
        assert pairing["errors_compared_as_recorded"] == {"baseline": 0, "candidate": 2}
    else:
        assert ERRORED_WORDS[metric] in " ".join(out.split())


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_report_on_the_verdicts_still_counts_errored_samples_as_failures(capsys, fmt):
    from evaltui.cli.main import main

    main(["report", str(BASE), str(CAND), "--format", fmt])
    out, _ = capsys.readouterr()
    assert "errors/timeouts counted as failures: baseline 0, candidate 2" in out
    if fmt == "json":
        pairing = json.loads(out)["pairing"]
        assert pairing["errors_counted_as_failures"] == {"baseline": 0, "candidate": 2}
        assert pairing["errors_compared_as_recorded"] == {"baseline": 0, "candidate": 0}


def test_limit_hits_passes_an_errored_sample_no_limit_stopped():
    # What the words claim: the candidate's errored samples fail `passed` but pass
    # `no_limit_hit` unless a limit stopped them (no errored sample here hit one).
    analysis = compare_files(BASE, CAND, metric="limit_hits", complete=False)
    items = analysis.paired.items
    errored = items.filter(pl.col("candidate_status") != "ok")  # its two epochs errored
    assert errored.height == 1 and errored["candidate_epochs"].to_list() == [2]
    verdict = arm_columns(LIMIT_VERDICT)[1]
    assert errored[verdict].to_list() == [1.0]
    assert errored["candidate_pass"].to_list() == [0.0]


def test_independent_design_says_what_retries_do_with_errored_samples(capsys):
    from evaltui.cli.main import main

    main(["report", str(BASE), str(CAND), "--design", "independent", "--metric", "retries"])
    out, _ = capsys.readouterr()
    assert "counted as failures" not in out
    assert (
        "errors/timeouts in the candidate compared on the retries they recorded, not as "
        "failures: 2" in " ".join(out.split())
    )
