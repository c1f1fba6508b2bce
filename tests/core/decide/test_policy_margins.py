"""Policy margins: parsing `non_inferiority_margin` / `equivalence_margin`, their hash, their
relation to `min_effect`, and the margin as a gate-like result on pairs made in the test."""

from __future__ import annotations

import pytest

from evaltui.core.analysis.pair import analyze
from evaltui.core.canonical import canonical_sha256
from evaltui.core.compare.options import AnalysisOptions
from evaltui.core.compare.pairing import pair_runs
from evaltui.core.decide.gates import evaluate_gates, margin_accepts_regression
from evaltui.core.errors import InputError
from evaltui.core.policy import load_policy, loads_policy
from evaltui.core.read.formats import load_run
from tests.conftest import SAMPLE_RUNS

SAMPLE_POLICY_HASH = "e8639ca40298d8cb04b531c4c2244ee4384b99c6a6e939058dff8a0c1a9b7a4b"


def test_margins_are_read_with_their_kind():
    ni = loads_policy("non_inferiority_margin = 0.01\n")
    assert ni.non_inferiority_margin == 0.01 and ni.margin == ("non_inferiority", 0.01)
    eq = loads_policy('primary_metric = "score"\nequivalence_margin = 2\n')
    assert eq.equivalence_margin == 2.0 and isinstance(eq.equivalence_margin, float)
    assert eq.margin == ("equivalence", 2.0)


def test_equivalence_margin_of_two_on_a_pass_rate_is_refused_but_fine_on_a_score():
    with pytest.raises(InputError, match="no margin on a pass rate") as err:
        loads_policy("equivalence_margin = 2\n", "p.toml")
    assert err.value.field == "equivalence_margin" and err.value.line == 1
    policy = loads_policy('primary_metric = "score"\nequivalence_margin = 2\n')
    assert policy.margin == ("equivalence", 2.0)


def test_a_policy_without_margins_keeps_the_hash_its_records_cite():
    # The sample policy's pinned hash (tests/core/policy/test_policy.py) does not move: the margin
    # keys enter the canonical rules only when the file states them.
    policy = load_policy(SAMPLE_RUNS / "policy.toml")
    assert policy.hash == SAMPLE_POLICY_HASH
    assert "non_inferiority_margin" not in policy.canonical()
    assert "equivalence_margin" not in policy.canonical()


def test_a_stated_margin_changes_the_hash_and_is_in_the_rules():
    plain = loads_policy("alpha = 0.05\n")
    ni = loads_policy("alpha = 0.05\nnon_inferiority_margin = 0.01\n")
    other = loads_policy("alpha = 0.05\nnon_inferiority_margin = 0.02\n")
    eq = loads_policy("alpha = 0.05\nequivalence_margin = 0.01\n")
    assert len({plain.hash, ni.hash, other.hash, eq.hash}) == 4
    assert ni.canonical()["non_inferiority_margin"] == 0.01
    assert ni.hash == canonical_sha256(ni.canonical())


@pytest.mark.parametrize(
    ("text", "line", "field", "fragment"),
    [
        ("non_inferiority_margin = 0\n", 1, "non_inferiority_margin", "a positive number"),
        ("non_inferiority_margin = -0.01\n", 1, "non_inferiority_margin", "a positive number"),
        ('equivalence_margin = "1pt"\n', 1, "equivalence_margin", "expected a number"),
        ("equivalence_margin = true\n", 1, "equivalence_margin", "expected a number"),
        ("equivalence_margin = nan\n", 1, "equivalence_margin", "expected a number"),
        ("equivalence_margin = inf\n", 1, "equivalence_margin", "a positive number"),
        ("non_inferiority_margin = 1.0\n", 1, "non_inferiority_margin", "below 1"),
        (
            "alpha = 0.05\nnon_inferiority_margin = 0.01\nequivalence_margin = 0.02\n",
            3,
            "equivalence_margin",
            "states both non_inferiority_margin and equivalence_margin",
        ),
        (
            "min_effect = -0.01\nnon_inferiority_margin = 0.01\n",
            1,
            "min_effect",
            r"a negative min_effect \(-0.01\) is a non-inferiority margin",
        ),
        (
            "alpha = 0.5\nequivalence_margin = 0.01\n",
            1,
            "alpha",
            "no interval at 1 - 2 alpha",
        ),
    ],
)
def test_wrong_margins_name_the_file_line_and_key(tmp_path, text, line, field, fragment):
    path = tmp_path / "policy.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=fragment) as err:
        load_policy(path)
    assert err.value.field == field and err.value.line == line
    assert str(err.value).startswith(f"{path}:{line}:")
    assert "\n" not in str(err.value)


def test_a_positive_min_effect_stays_the_superiority_bar_beside_a_margin():
    policy = loads_policy(
        'min_effect = 0.02\nnon_inferiority_margin = 0.01\n[[gates]]\nkind = "min_effect"\n'
    )
    assert policy.min_effect == 0.02 and policy.margin == ("non_inferiority", 0.01)


# --- the margin as a gate-like result ------------------------------------------------------


def _pair(write_jsonl, base, cand):
    return pair_runs(load_run(write_jsonl("b.jsonl", base)), load_run(write_jsonl("c.jsonl", cand)))


def _verdicts(both_pass, regressions, improvements, both_fail):
    base, cand = [], []
    cells = [(True, True)] * both_pass + [(True, False)] * regressions
    cells += [(False, True)] * improvements + [(False, False)] * both_fail
    for i, (b, c) in enumerate(cells):
        base.append({"item_id": f"q{i}", "passed": b})
        cand.append({"item_id": f"q{i}", "passed": c})
    return base, cand


def test_non_inferiority_on_a_binary_pair_reads_the_newcombe_90_interval(write_jsonl):
    # 1,000 items, 40 regressions, 30 improvements: delta -1.0 pts, Newcombe 90% interval
    # [-2.39, +0.39] pts (tests/core/stats/test_margins.py): not non-inferior at 2 points, and
    # non-inferior at 3.
    # Tango's is the default since issue 30: the analysis and its policy name Newcombe's here
    # (the CLI makes a policy's ci_method the analysis's).
    paired = _pair(write_jsonl, *_verdicts(700, 40, 30, 230))
    analysis = analyze(paired, AnalysisOptions(ci_method="newcombe"))
    two = loads_policy('ci_method = "newcombe"\nnon_inferiority_margin = 0.02\n')
    (result,) = evaluate_gates(two, paired, analysis, None)
    assert result.kind == "non_inferiority" and result.status == "failed"
    assert result.name == "non-inferiority (margin 2 pts)"
    assert result.summary == "not shown non-inferior: lower limit -2.4 pts ≤ -2.0 pts"
    assert result.margin.interval_method == "Newcombe 90%"
    assert result.margin.test == "Tango score"
    assert result.margin.interval[0] == pytest.approx(-0.0239, abs=1e-4)
    three = loads_policy('ci_method = "newcombe"\nnon_inferiority_margin = 0.03\n')
    (result,) = evaluate_gates(three, paired, analysis, None)
    assert result.status == "passed"
    assert result.summary == "non-inferior: lower limit -2.4 pts > -3.0 pts"
    assert margin_accepts_regression((result,))


def test_the_margin_comes_after_the_file_gates(write_jsonl):
    paired = _pair(write_jsonl, *_verdicts(700, 40, 30, 230))
    policy = loads_policy('equivalence_margin = 0.03\n[[gates]]\nkind = "no_regressions"\n')
    gates = evaluate_gates(policy, paired, analyze(paired), None)
    assert [g.kind for g in gates] == ["no_regressions", "equivalence"]
    assert gates[1].summary == "equivalent: [-2.4, +0.4] pts inside ±3.0 pts"


def test_too_few_items_leave_the_margin_undecided(write_jsonl):
    paired = _pair(write_jsonl, *_verdicts(10, 1, 2, 5))
    (result,) = evaluate_gates(
        loads_policy("non_inferiority_margin = 0.05\n"), paired, analyze(paired), None
    )
    assert result.status == "undecided"
    assert (
        result.detail
        == "no verdict on non-inferiority: only 18 paired items: counts only, no verdict"
    )


def test_no_item_changing_is_evidence_of_equivalence_not_undecided(write_jsonl):
    paired = _pair(write_jsonl, *_verdicts(500, 0, 0, 500))
    (result,) = evaluate_gates(
        loads_policy("equivalence_margin = 0.01\n"), paired, analyze(paired), None
    )
    assert result.status == "passed"  # Newcombe 90% [-0.16, +0.16] pts inside ±1 pt


def test_a_graded_pair_needs_its_score_named_as_the_primary_metric(write_jsonl):
    base = [{"item_id": f"q{i}", "score": 0.5 + (i % 5) / 10} for i in range(40)]
    cand = [{"item_id": f"q{i}", "score": 0.5 + (i % 5) / 10 - 0.01 * (i % 3)} for i in range(40)]
    paired = _pair(write_jsonl, base, cand)
    analysis = analyze(paired, AnalysisOptions(resamples=2000))
    with pytest.raises(
        InputError,
        match="primary_metric 'passed' cannot be evaluated: these "
        "runs have no pass/fail verdict; expected one of 'score'",
    ) as err:
        evaluate_gates(loads_policy("non_inferiority_margin = 0.05\n"), paired, analysis, None)
    assert err.value.field == "primary_metric"
    policy = loads_policy('primary_metric = "score"\nnon_inferiority_margin = 0.05\n')
    (result,) = evaluate_gates(policy, paired, analysis, None)
    assert result.status == "passed" and result.margin.test == "paired t"
    # The graded verdict's own interval, at 1 - 2 alpha, which the one-sided t tests invert.
    assert result.margin.interval_method == "paired t 90%"
    assert result.name == "non-inferiority (margin 0.05)"


@pytest.mark.parametrize(
    ("gate", "field", "fragment"),
    [
        ('kind = "min_pass_rate"\nrate = 0.5', "kind", "a pass rate needs pass/fail verdicts"),
        ('kind = "min_effect"\nslice = "a"', "slice", "an effect on a slice needs pass/fail"),
    ],
)
def test_gates_a_graded_pair_cannot_answer_are_refused_naming_the_gate(
    write_jsonl, gate, field, fragment
):
    base = [{"item_id": f"q{i}", "score": i / 40, "slice": "a"} for i in range(40)]
    cand = [{"item_id": f"q{i}", "score": i / 40 + 0.01, "slice": "a"} for i in range(40)]
    paired = _pair(write_jsonl, base, cand)
    text = f'primary_metric = "score"\nmin_effect = 0.0\n\n[[gates]]\n{gate}\n'
    with pytest.raises(InputError, match=fragment) as err:
        evaluate_gates(loads_policy(text, "p.toml"), paired, analyze(paired), None)
    assert err.value.field == field and err.value.line == 4
    assert "[[gates]] entry 1" in str(err.value)


def test_graded_regressions_are_the_analysis_ones_beyond_the_tolerance(write_jsonl):
    base = [{"item_id": f"q{i}", "score": 0.5} for i in range(40)]
    cand = [{"item_id": f"q{i}", "score": 0.5 - (0.2 if i < 3 else 0.01)} for i in range(40)]
    paired = _pair(write_jsonl, base, cand)
    analysis = analyze(paired, AnalysisOptions(tolerance=0.05, resamples=1000))
    policy = loads_policy('primary_metric = "score"\n[[gates]]\nkind = "no_regressions"\n')
    (result,) = evaluate_gates(policy, paired, analysis, None)
    assert result.status == "failed" and result.item_ids == ("q0", "q1", "q2")
    assert "a regression is a delta below -0.05" in result.detail
