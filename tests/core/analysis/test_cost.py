"""What the runs cost, per sample and per run: the numbers evaltui reads from an Inspect log
are the ones Inspect's own reader gives (checked with `inspect_ai.log.read_eval_log` when it is
installed, else against the values it gave, stored here), and their paired comparison."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from evaltui.core.analysis.cost import RESAMPLES, SEED, cost_comparison, figure_intervals
from evaltui.core.compare.pairing import pair_runs
from evaltui.core.read.runs import Run, RunSource, stats_table
from evaltui.core.read.turns import cost_column
from evaltui.core.report.cost import cost_headline, cost_lines, cost_markdown
from evaltui.core.stats.graded import paired_bootstrap
from evaltui.core.stats.paired_ratio import paired_ratio_bootstrap
from tests.core.agent_fixtures import BASE, CAND, agent_pair

# (total tokens, working time, limit type, retried attempts) per sample, as
# inspect_ai 0.3.285's read_eval_log gave them for the two fixtures (script:
# tests/data/inspect_ai/agent/make_agent_logs.py; the times are those of that run).
STORED = {
    "baseline": {
        "drug-1/1": (3650, 0.915, None, 0), "drug-1/2": (3650, 0.318, None, 0),
        "drug-2/1": (4730, 0.59, None, 0), "drug-2/2": (4730, 0.314, None, 0),
        "drug-3/1": (3650, 0.242, None, 0), "drug-3/2": (3650, 0.243, None, 0),
        "drug-4/1": (27540, 0.213, "token", 0), "drug-4/2": (27540, 0.235, "token", 0),
        "drug-5/1": (3650, 0.223, None, 0), "drug-5/2": (3650, 0.244, None, 0),
    },
    "candidate": {
        "drug-1/1": (3650, 0.355, None, 0), "drug-1/2": (3650, 0.318, None, 0),
        "drug-2/1": (3650, 0.346, None, 0), "drug-2/2": (3650, 0.326, None, 0),
        "drug-3/1": (3650, 0.34, None, 1), "drug-3/2": (3650, 0.333, None, 0),
        "drug-4/1": (4680, 0.654, "message", 0), "drug-4/2": (4680, 0.633, "message", 0),
        "drug-5/1": (None, 0.132, None, 1), "drug-5/2": (None, 0.116, None, 1),
    },
}  # fmt: skip


def inspect_values() -> dict[str, dict[str, tuple]]:
    """Per sample, what Inspect's own reader says (skips when Inspect is not installed)."""
    log_module = pytest.importorskip("inspect_ai.log")
    out = {}
    for arm, path in (("baseline", BASE), ("candidate", CAND)):
        log = log_module.read_eval_log(str(path))
        out[arm] = {
            f"{s.id}/{s.epoch}": (
                sum(u.total_tokens for u in s.model_usage.values()) if s.model_usage else None,
                s.working_time,
                s.limit.type if s.limit is not None else None,
                len(s.error_retries or []),
            )
            for s in log.samples
        }
    return out


def ours() -> dict[str, dict[str, tuple]]:
    paired = agent_pair()
    out = {}
    for arm, run in (("baseline", paired.baseline), ("candidate", paired.candidate)):
        columns = [
            "item_id",
            "epoch",
            *(cost_column(n) for n in ("total_tokens", "working_time", "limit", "retries")),
        ]
        out[arm] = {
            f"{i}/{e}": (None if t is None else int(t), w, limit, int(r))
            for i, e, t, w, limit, r in run.table.select(columns).iter_rows()
        }
    return out


def test_per_sample_cost_equals_inspects_own_reader():
    assert ours() == inspect_values()


def test_per_sample_cost_equals_the_stored_values_from_inspects_reader():
    assert ours() == STORED


def per_item(arm: str, index: int) -> dict[str, float]:
    """Each item's mean over its epochs, from the stored values (None: not recorded)."""
    items: dict[str, list] = {}
    for key, values in STORED[arm].items():
        items.setdefault(key.split("/")[0], []).append(values[index])
    return {i: (None if None in v else float(np.mean(v))) for i, v in items.items()}


def test_paired_token_and_working_time_comparison():
    cost = cost_comparison(agent_pair())
    assert cost is not None and cost.n_items == 5
    tokens = cost.figure("total_tokens")
    base, cand = per_item("baseline", 0), per_item("candidate", 0)
    both = [i for i in base if base[i] is not None and cand[i] is not None]
    assert tokens.n == 4 and tokens.missing == 1  # drug-5's candidate errored: no usage
    assert tokens.median == (np.median([base[i] for i in both]), np.median([cand[i] for i in both]))
    deltas = np.array([cand[i] - base[i] for i in both])
    assert tokens.difference.mean_delta == pytest.approx(deltas.mean())  # -5,985
    assert tokens.difference.ci == paired_bootstrap(deltas, resamples=2000, method="percentile").ci
    assert tokens.relative == pytest.approx(deltas.mean() / np.mean([base[i] for i in both]))
    working = cost.figure("working_time")
    wb, wc = per_item("baseline", 1), per_item("candidate", 1)
    assert working.n == 5
    assert working.mean[1] - working.mean[0] == pytest.approx(np.mean([wc[i] - wb[i] for i in wb]))
    assert cost.figure("retries").total == (0.0, 3.0)
    assert cost.errors == (0, 2)


def test_limits_per_run_and_no_test_when_the_runs_never_disagree():
    limits = cost_comparison(agent_pair()).limits
    assert limits.items == (1, 1) and limits.samples == (2, 2)
    assert limits.by_type == ({"token": 2}, {"message": 2})
    assert limits.exact_p is None  # drug-4 stopped in both: nothing to weigh
    assert (
        "no item stopped in one run only, nothing to test"
        in cost_lines(cost_comparison(agent_pair()))[-2]
    )


def run_with_limits(stopped: list[bool], tokens: list[float]) -> Run:
    n = len(stopped)
    table = stats_table([f"i{k}" for k in range(n)], [1] * n, ["ok"] * n, passed=[True] * n)
    table = table.with_columns(
        pl.Series(cost_column("total_tokens"), tokens, dtype=pl.Float64),
        pl.Series(cost_column("limit"), ["token" if s else None for s in stopped], dtype=pl.String),
    )
    return Run(RunSource("x.eval", "inspect_eval", 0, "0" * 64), table)


def test_limit_hits_exact_mcnemar_against_scipy():
    # 40 items: both stopped on 2, only the candidate on 7, only the baseline on 1.
    base = [True] * 2 + [False] * 7 + [True] + [False] * 30
    cand = [True] * 2 + [True] * 7 + [False] + [False] * 30
    paired = pair_runs(run_with_limits(base, [100.0] * 40), run_with_limits(cand, [120.0] * 40))
    cost = cost_comparison(paired)
    assert cost.limits.items == (3, 9)
    assert cost.limits.exact_p == pytest.approx(stats.binomtest(1, 8, 0.5).pvalue)  # 0.0703
    tokens = cost.figure("total_tokens")
    assert tokens.difference.mean_delta == pytest.approx(20.0) and tokens.relative == pytest.approx(
        0.2
    )
    assert "limit hits 3 → 9 (exact p 0.0703)" in cost_headline(cost)
    assert "tokens +20% [+20%, +20%]" in cost_headline(cost)
    markdown = "\n".join(cost_markdown(cost))
    assert "| tokens | 100 | 120 | +20 [+20, +20] | +20% |" in markdown


def test_runs_without_cost_columns_have_no_cost_comparison(sample_pair):
    from evaltui.core.analysis.pipeline import compare_files

    assert cost_comparison(compare_files(*sample_pair, complete=False).paired) is None


def test_a_policy_gate_bounds_the_candidates_growth_in_cost():
    from dataclasses import replace

    from evaltui.core.analysis.pair import analyze
    from evaltui.core.decide.gates import evaluate_gates
    from evaltui.core.errors import InputError
    from evaltui.core.policy import loads_policy

    base = [False] * 40
    paired = pair_runs(run_with_limits(base, [100.0] * 40), run_with_limits(base, [120.0] * 40))
    analysis = analyze(paired)
    policy = loads_policy(
        "[[gates]]\nkind = 'max_cost_growth'\nfigure = 'total_tokens'\ngrowth = 0.1\n"
        "[[gates]]\nkind = 'max_cost_growth'\nfigure = 'total_tokens'\ngrowth = 0.25\n"
        "[[gates]]\nkind = 'max_cost_growth'\ngrowth = 0.2\n"
    )
    with pytest.raises(InputError, match="entry 3: cannot be evaluated on this pair: the runs"):
        evaluate_gates(policy, paired, analysis, None)  # they record no working time
    tight, loose = evaluate_gates(replace(policy, gates=policy.gates[:2]), paired, analysis, None)
    assert (tight.name, tight.status) == ("total tokens growth <= +10%", "failed")
    assert tight.detail.startswith("total tokens +20.0% per item (95% CI [+20.0%, +20.0%], 40")
    assert loose.status == "passed"
    agent = agent_pair()
    working = loads_policy("[[gates]]\nkind = 'max_cost_growth'\ngrowth = 0.2\n")
    [result] = evaluate_gates(working, agent, analyze(agent), None)
    assert (result.name, result.status) == ("working time growth <= +20%", "passed")


def test_a_cost_gate_on_a_slice_is_refused_naming_the_key():
    from evaltui.core.errors import InputError
    from evaltui.core.policy import loads_policy

    with pytest.raises(InputError, match="compare the whole runs; remove 'slice'"):
        loads_policy("[[gates]]\nkind = 'max_cost_growth'\ngrowth = 0.2\nslice = 'x'\n")
    with pytest.raises(InputError, match="figure"):
        loads_policy("[[gates]]\nkind = 'max_cost_growth'\ngrowth = 0.2\nfigure = 'money'\n")


def test_metric_chooses_a_cost_figure_compared_as_a_loss():
    from evaltui.core.analysis.pipeline import compare_files

    analysis = compare_files(BASE, CAND, metric="working_time", complete=False)
    assert analysis.metric == "score:working_time" and analysis.lower_is_better
    wb, wc = per_item("baseline", 1), per_item("candidate", 1)
    slower = sorted(i for i in wb if wc[i] > wb[i])
    faster = sorted(i for i in wb if wc[i] < wb[i])
    assert sorted(analysis.regressions) == slower and sorted(analysis.improvements) == faster
    assert analysis.graded.mean_delta == pytest.approx(np.mean([wc[i] - wb[i] for i in wb]))
    tokens = compare_files(BASE, CAND, metric="total_tokens", on_error="exclude")
    assert tokens.metric == "score:total_tokens" and tokens.paired.n == 4
    assert sorted(tokens.improvements) == ["drug-2", "drug-4"] and tokens.regressions == ()


def test_metric_on_a_cost_the_log_does_not_record_is_one_line(tmp_path):
    from evaltui.core.analysis.pipeline import compare_files
    from evaltui.core.errors import InputError
    from tests.conftest import DATA

    logs = sorted((DATA / "inspect_ai").glob("2025-09-15*.eval"))
    with pytest.raises(InputError, match="--metric reasoning_tokens: the log records no"):
        compare_files(*logs, metric="reasoning_tokens")


def test_metric_on_a_cost_is_refused_for_a_format_that_records_no_costs(capsys):
    """Only Inspect logs record what a sample cost: `--metric working_time` on JSONL is one
    line naming the file and exit 2, never silently a comparison of the verdicts."""
    from evaltui.cli.main import main
    from evaltui.core.analysis.pipeline import compare_files
    from evaltui.core.errors import UsageError
    from tests.conftest import ROOT

    runs = [ROOT / "sample_runs" / name for name in ("baseline.jsonl", "candidate.jsonl")]
    with pytest.raises(UsageError, match="records no per-sample cost: only Inspect logs"):
        compare_files(*runs, metric="working_time")
    assert main(["report", *map(str, runs), "--metric", "total_tokens"]) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "--metric total_tokens is a cost figure" in err
    assert "baseline.jsonl (jsonl)" in err


def test_the_json_report_carries_the_cost_block_and_matches_the_schema(capsys):
    import json

    from evaltui.cli.main import main
    from tests.conftest import schema_errors

    main(["report", str(BASE), str(CAND), "--format", "json"])
    text = capsys.readouterr().out
    assert schema_errors("report", text) == []
    cost = json.loads(text)["cost"]
    tokens = cost["figures"][0]
    assert tokens["figure"] == "total_tokens" and tokens["difference"]["mean"] == -5985.0
    assert cost["limits"] == {
        "items": [1, 1],
        "samples": [2, 2],
        "by_type": [{"token": 2}, {"message": 2}],
        "exact_p": None,
    }
    assert cost["errors"] == [0, 2]


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The `compared` of each cost comparison actually computed (none kept from before)."""
    from evaltui.core.analysis import cost as cost_module

    calls: list[tuple[str, ...]] = []
    real = cost_module._cost_comparison

    def counted(paired, compared):
        calls.append(compared)
        return real(paired, compared)

    monkeypatch.setattr(cost_module, "_cost_comparison", counted)
    monkeypatch.setattr(cost_module, "_SEEN", [])
    return calls


def test_a_pairs_cost_comparison_is_computed_once_for_each_set_of_figures(computed):
    from dataclasses import replace

    from evaltui.core.analysis.cost import COMPARED

    paired = agent_pair()
    first = cost_comparison(paired)
    assert cost_comparison(paired) is first
    tokens_only = cost_comparison(paired, compared=("total_tokens",))
    assert tokens_only is not first and cost_comparison(paired) is first  # both kept
    assert computed == [COMPARED, ("total_tokens",)]
    again = cost_comparison(replace(paired))  # another pair object: computed for it
    assert again is not first and computed == [COMPARED, ("total_tokens",), COMPARED]
    assert cost_lines(again) == cost_lines(first)  # (seeded: the same comparison)


def test_a_cost_comparison_is_said_to_the_line_of_the_thread_that_asked_only(computed):
    """`costs_said_to` is the calling thread's: a comparison another thread computes meanwhile
    (an app worker, a pool) says nothing to this command's line, and the line is no longer
    told once the block ends."""
    import threading
    from dataclasses import replace

    from evaltui.core.analysis.cost import cost_comparison, costs_said_to

    said: list[str] = []
    paired = agent_pair()
    with costs_said_to(lambda what, step, steps: said.append(what)):
        elsewhere = threading.Thread(target=cost_comparison, args=(replace(paired),))
        elsewhere.start()
        elsewhere.join()
        assert said == []  # the other thread's comparison: not this line's
        cost_comparison(paired)
    assert len(said) == 1 and said[0].startswith("comparing the runs' costs")
    cost_comparison(replace(paired))  # after the block: said nowhere
    assert len(said) == 1 and len(computed) == 3


def test_the_text_report_compares_the_costs_once_saying_so_at_a_terminal(
    computed, monkeypatch, capsys
):
    import io
    import sys
    from functools import partial

    from evaltui.cli import progress_line
    from evaltui.cli.main import main
    from evaltui.core.analysis.cost import COMPARED

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    quick = partial(progress_line.terminal_progress, delay=0)  # (every step drawn)
    monkeypatch.setattr(progress_line, "terminal_progress", quick)
    main(["report", str(BASE), str(CAND)])
    assert "Cost and limits" in capsys.readouterr().out
    assert computed == [COMPARED]  # the report's dict and its cost table: one comparison
    items = agent_pair().items.height
    said = f"evaltui: comparing the runs' costs (paired bootstrap over {items:,} items)…"
    assert said + progress_line.ERASE in terminal.getvalue()  # (no percentage: not counted)


def test_signoff_compares_the_costs_once_saying_so_at_a_terminal(
    computed, monkeypatch, capsys, tmp_path
):
    """The record carries the cost block: `signoff` computes it inside its progress line too,
    once for the decision, the record and its markdown."""
    import io
    import sys
    from functools import partial

    from evaltui.cli import progress_line
    from evaltui.cli.main import main
    from evaltui.core.analysis.cost import COMPARED

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(progress_line, "terminal_progress",
                        partial(progress_line.terminal_progress, delay=0))  # fmt: skip
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    code = main(["signoff", str(BASE), str(CAND), "--decision", "block", "--reviewer", "r",
                 "--rationale", "costs", "--output", str(tmp_path / "so")])  # fmt: skip
    assert code == 0, terminal.getvalue()
    assert computed == [COMPARED]
    assert "comparing the runs' costs (paired bootstrap over" in terminal.getvalue()
    import json

    assert "cost" in json.loads((tmp_path / "so.json").read_text())["results"]


def test_verify_says_the_hashes_the_rebuild_and_the_costs_at_a_terminal(
    computed, monkeypatch, capsys, tmp_path
):
    """verify hashes the inputs (a record's URLs: whole-object downloads), rebuilds the
    analysis and its cost block: each said on the progress line, which is gone before the
    verdict is printed."""
    import io
    import sys
    from functools import partial

    from evaltui.cli import progress_line
    from evaltui.cli.main import main

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    assert main(["signoff", str(BASE), str(CAND), "--decision", "block", "--reviewer", "r",
                 "--rationale", "costs", "--output", str(tmp_path / "so")]) == 0  # fmt: skip
    capsys.readouterr()
    computed.clear()
    from evaltui.core.analysis import cost as cost_module

    monkeypatch.setattr(cost_module, "_SEEN", [])  # (verify's own process computes afresh)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(progress_line, "terminal_progress",
                        partial(progress_line.terminal_progress, delay=0))  # fmt: skip
    assert main(["verify", str(tmp_path / "so.json"), str(BASE), str(CAND)]) == 0
    assert "statistics recompute" in capsys.readouterr().out
    drawn = terminal.getvalue()
    size = (BASE.stat().st_size + CAND.stat().st_size) / 1e6
    steps = [
        "evaltui: verify 1/2 · checking the inputs' sha256 (",
        f" of {size:.1f} MB)",
        "evaltui: verify 2/2 · reading the baseline and the candidate",
        "evaltui: verify 2/2 · comparing the runs' costs (paired bootstrap over",
    ]
    at = [drawn.find(step) for step in steps]
    assert -1 not in at and at == sorted(at), drawn
    # each phase's percentage restarts, said by its phase: every line names one
    lines = [line for line in drawn.split(progress_line.ERASE) if line]
    assert all(line.startswith("evaltui: verify ") for line in lines), lines
    assert drawn.endswith(progress_line.ERASE) and len(computed) == 1


def test_the_figures_bootstrapped_side_by_side_give_the_intervals_of_one_after_the_other():
    """Each compared figure's two bootstraps run in threads (`figure_intervals`); each draws
    from its own seeded generator, so the intervals are the ones computed in turn, bit for
    bit: an item count and values varied per figure, continuous and tied."""
    rng = np.random.default_rng(7)
    values = []
    for n in (3_000, 3_000, 1_200):
        base = rng.gamma(2.0, 40.0, n)
        values.append((base, base * rng.uniform(0.7, 1.4, n)))
    ties = rng.integers(1, 5, 900).astype(np.float64)
    values.append((ties, ties + rng.integers(-1, 2, 900)))
    in_turn = figure_intervals(values, workers=1)
    side_by_side = figure_intervals(values, workers=4)
    assert side_by_side == in_turn
    assert [len(pair) for pair in in_turn] == [2, 2, 2, 2]
    for (difference, ratio), (b, c) in zip(in_turn, values, strict=True):
        assert difference == paired_bootstrap(
            c - b, resamples=RESAMPLES, seed=SEED, method="percentile"
        )
        assert ratio == paired_ratio_bootstrap(b, c, resamples=RESAMPLES, seed=SEED)


def test_an_approval_refused_over_untriaged_regressions_computes_no_costs(
    computed, monkeypatch, capsys, tmp_path
):
    """The refusal needs the decision and the tags, not the record's cost block: on a
    200,000-item pair the costs' bootstraps came first and the refusal 7 s later."""
    from evaltui.cli.main import main

    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    code = main(["signoff", str(BASE), str(CAND), "--decision", "approve", "--reviewer", "r",
                 "--rationale", "costs", "--output", str(tmp_path / "so")])  # fmt: skip
    assert code == 2
    assert "approving anyway needs an override reason" in capsys.readouterr().err
    assert computed == []
    assert not (tmp_path / "so.json").exists()
