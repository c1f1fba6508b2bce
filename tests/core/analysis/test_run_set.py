"""Three or more runs: the omnibus test, every pair, the family adjustment and the decision."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evaltui.core.analysis.run_set import RunSetSpec, compare_runs, run_names
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.errors import UsageError
from evaltui.core.record.session import judge_run_set, start_review
from evaltui.core.report.run_set import run_set_lines, run_set_report_dict
from evaltui.core.stats.multiplicity import adjust_pvalues

ROOT = Path(__file__).resolve().parent.parents[2]
DEMO = [ROOT / "sample_runs" / f"{name}.jsonl" for name in ("baseline", "candidate", "candidate2")]


def run_set(paths, **choices):
    spec = CompareSpec.create(paths[0], paths[1], **choices)
    return compare_runs(RunSetSpec.of(spec, paths[2:]))


def write_runs(folder: Path, columns: dict[str, list], field: str = "passed") -> list[Path]:
    paths = []
    for name, values in columns.items():
        path = folder / f"{name}.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            for index, value in enumerate(values):
                handle.write(json.dumps({"item_id": f"q{index:03d}", field: value}) + "\n")
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def demo():
    return run_set(DEMO)


def test_three_demo_runs_pair_every_run_with_every_other(demo):
    tables = {
        (p.baseline, p.candidate): (
            p.analysis.binary.table.regressions,
            p.analysis.binary.table.improvements,
        )
        for p in demo.pairs
    }
    assert tables == {(0, 1): (9, 21), (0, 2): (5, 21), (1, 2): (2, 6)}
    assert demo.names == ("baseline", "candidate", "candidate2")


def test_cochran_q_of_the_demo_matches_statsmodels(demo):
    # statsmodels 0.15.0: cochrans_q(<200 x 3 pass matrix of sample_runs>) -> statistic 13.0,
    # pvalue 0.0015034391929775717, df 2 (tests/data/reference/multirun_demo_cochran.py).
    o = demo.omnibus
    assert o.test == "cochran_q"
    assert o.statistic == pytest.approx(13.0, abs=1e-12)
    assert o.p == pytest.approx(0.0015034391929775717, rel=1e-12)
    assert (o.df, o.n, o.k) == (2, 200, 3)


def test_baseline_pairs_are_adjusted_among_themselves_and_candidate_pairs_apart(demo):
    """The decision asks about the baseline against each candidate: Holm over those pairs
    alone (two here); the candidate-against-candidate pair is its own family of one."""
    raw = [p.p_raw for p in demo.pairs]  # (0, 1), (0, 2), (1, 2)
    adjusted = [p.p_adjusted for p in demo.pairs]
    assert adjusted[:2] == pytest.approx(adjust_pvalues(raw[:2], "holm"))
    assert adjusted[2] == pytest.approx(raw[2])
    assert demo.family_size == 2 and demo.family_label == "2 baseline pairs"


def test_a_pair_significant_alone_is_not_significant_after_the_family_adjustment(tmp_path):
    # Baseline vs cand: 11 improvements, 3 regressions over 100 items, its own Newcombe
    # interval excludes 0. The baseline's family is its two pairs: at Holm the smaller p is
    # doubled and the borderline pair fails.
    n = 100
    base = [True] * 60 + [False] * 40
    cand = list(base)
    for i in range(60, 71):  # 11 improvements
        cand[i] = True
    for i in range(0, 3):  # 3 regressions
        cand[i] = False
    third = list(base)  # one improvement, one regression: p = 1, but a member of the family
    third[71], third[3] = True, False
    paths = write_runs(tmp_path, {"base": base, "cand": cand, "third": third})
    result = run_set(paths)
    pair = result.pair(0, 1)
    assert pair.analysis.binary.mcnemar.exact_p == pytest.approx(
        stats.binomtest(3, 14, 0.5).pvalue, rel=1e-9
    )
    assert pair.own_verdict == "improved"
    assert pair.p_adjusted >= 0.05
    assert pair.verdict == "no_significant_difference"
    assert pair.p_adjusted == pytest.approx(2 * pair.p_raw)
    assert any("adjusted over the 2 baseline pairs" in w for w in pair.analysis.warnings)
    assert n == len(base)


def test_a_candidate_that_regressed_blocks_the_set_with_exit_code_one(tmp_path):
    base = [True] * 70 + [False] * 30
    worse = [False] * 25 + [True] * 45 + [False] * 30  # 25 regressions, no improvements
    same = list(base)
    paths = write_runs(tmp_path, {"base": base, "worse": worse, "same": same})
    result = run_set(paths)
    decision = judge_run_set(result)
    assert result.pair(0, 1).verdict == "regressed"
    assert decision.status == "blocked" and decision.exit_code == 1
    assert decision.line.startswith("BLOCKED · 3 runs against base · worse: blocked")
    statuses = {result.names[p.candidate]: d.status for p, d in decision.pairs}
    assert statuses == {"worse": "blocked", "same": "not_enough_data"}


def test_graded_runs_get_friedman_and_pairwise_wilcoxon_adjusted_like_scipy(tmp_path):
    rng = np.random.default_rng(7)
    n = 60
    truth = rng.uniform(0.2, 0.8, n)
    columns = {
        "base": np.round(truth + rng.normal(0, 0.05, n), 3),
        "tuned": np.round(truth + 0.04 + rng.normal(0, 0.05, n), 3),
        "other": np.round(truth + rng.normal(0, 0.05, n), 3),
    }
    paths = write_runs(tmp_path, {k: v.tolist() for k, v in columns.items()}, field="score")
    result = run_set(paths, resamples=2000)
    assert result.kind == "graded" and result.omnibus.test == "friedman"
    reference = stats.friedmanchisquare(*columns.values())
    assert result.omnibus.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.omnibus.p == pytest.approx(reference.pvalue, rel=1e-9)
    values = list(columns.values())
    wilcoxon = [stats.wilcoxon(values[j] - values[i]).pvalue for i, j in ((0, 1), (0, 2), (1, 2))]
    assert [p.p_rank for p in result.pairs] == pytest.approx(wilcoxon, rel=1e-9)
    assert [p.p_rank_adjusted for p in result.pairs] == pytest.approx(
        [*adjust_pvalues(wilcoxon[:2], "holm"), wilcoxon[2]], rel=1e-9
    )
    t_p = [stats.ttest_rel(values[j], values[i]).pvalue for i, j in ((0, 1), (0, 2), (1, 2))]
    assert [p.p_raw for p in result.pairs] == pytest.approx(t_p, rel=1e-9)
    assert result.pair(0, 1).verdict == "improved"


def test_the_report_names_every_candidate_and_the_omnibus_test_on_its_first_line(demo):
    decision = judge_run_set(demo)
    first = run_set_lines(demo, decision, md=False)[0]
    assert first.startswith("NEEDS REVIEW · 3 runs against baseline")
    assert "candidate: needs review" in first and "candidate2: needs review" in first
    assert first.endswith("Cochran's Q p = 0.002")
    markdown = run_set_lines(demo, decision, md=True)
    assert markdown[0].startswith("## NEEDS REVIEW")
    matrix = "\n".join(markdown)
    assert "| candidate2 | ▲ +8.0 pts [+2.2, +13.7] | · +2.0 pts [-1.1, +5.1] | — |" in matrix


def test_the_json_report_carries_every_pair_and_the_baseline_pairs_full_reports(demo):
    d = run_set_report_dict(demo, judge_run_set(demo))
    assert d["schema"] == "evaltui.report-runset/1"
    assert [(p["baseline"], p["candidate"]) for p in d["pairs"]] == [(0, 1), (0, 2), (1, 2)]
    assert d["pairs"][0]["report"]["schema"] == "evaltui.report/2"
    assert d["pairs"][2]["report"] is None
    assert d["omnibus"]["statistic"] == 13.0
    assert RunSetSpec.from_dict(d["run_set"]).runs == tuple(Path(p) for p in DEMO)


def test_run_names_tell_files_of_the_same_name_apart():
    assert run_names([Path("a/run.jsonl"), Path("b/run.jsonl")]) == (
        "a/run.jsonl",
        "b/run.jsonl",
    )
    assert run_names([Path("x/run.jsonl"), Path("x/run.json")]) == ("run.jsonl", "run.json")
    assert run_names([Path("a/x/r.jsonl"), Path("b/x/r.jsonl")]) == ("r.jsonl (1)", "r.jsonl (2)")


def test_the_same_file_twice_or_per_arm_options_are_refused(tmp_path):
    paths = write_runs(tmp_path, {"a": [True, False], "b": [True, True]})
    spec = CompareSpec.create(paths[0], paths[1])
    with pytest.raises(UsageError, match="is given twice"):
        RunSetSpec.of(spec, [paths[0]])
    armed = CompareSpec.create(paths[0], paths[1], baseline_options={"arm": "x"})
    with pytest.raises(UsageError, match="--baseline-arm"):
        RunSetSpec.of(armed, [tmp_path / "c.jsonl"])
    with pytest.raises(UsageError, match="at most 12 can be compared"):
        RunSetSpec.of(spec, [tmp_path / f"r{i}.jsonl" for i in range(11)])


def test_outcome_mix_is_tested_pairwise_with_the_correction_over_the_pairs(tmp_path):
    from evaltui.core.stats.categorical import stuart_maxwell
    from evaltui.core.stats.categorical_table import CategoricalTable

    base = ["correct"] * 120 + ["incorrect"] * 60 + ["refused"] * 20
    moved = ["correct"] * 120 + ["incorrect"] * 35 + ["refused"] * 45  # 25 wrong -> refused
    third = ["correct"] * 120 + ["incorrect"] * 52 + ["refused"] * 28  # 8 wrong -> refused
    paths = []
    for name, outcomes in (("base", base), ("moved", moved), ("third", third)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text(
            "".join(
                json.dumps({"item_id": f"q{i:03d}", "passed": o == "correct", "outcome": o}) + "\n"
                for i, o in enumerate(outcomes)
            )
        )
        paths.append(path)
    result = run_set(paths)
    raw = []
    for pair in result.pairs:
        labels = (base, moved, third)
        table = CategoricalTable.from_labels(labels[pair.baseline], labels[pair.candidate])
        raw.append(stuart_maxwell(table).p_value)
    assert [p.p_outcome for p in result.pairs] == pytest.approx(raw, rel=1e-12)
    adjusted = adjust_pvalues(raw, "holm")
    assert [p.p_outcome_adjusted for p in result.pairs] == pytest.approx(adjusted, rel=1e-12)
    first = result.pair(0, 1).analysis.categorical
    assert first.family_label == "3 pairs" and first.rejects
    decision = judge_run_set(result)
    pair_lines = {result.names[p.candidate]: d.line for p, d in decision.pairs}
    assert "outcome mix changed" in pair_lines["moved"]
    reasons = [r.text for p, d in decision.pairs for r in d.reasons if r.kind == "outcome_mix"]
    assert any("adjusted over the 3 pairs" in text for text in reasons)


def test_the_set_decision_reads_the_tags_of_the_state_folder_it_is_given(tmp_path, demo):
    first = demo.pair(0, 1)
    session = start_review(first.analysis, state_root=tmp_path / "state")
    for item in first.analysis.regressions:
        session.set_tag(item, "acceptable")
    session.close()
    here = judge_run_set(demo, state_root=tmp_path / "state")
    elsewhere = judge_run_set(demo, state_root=tmp_path / "other")
    by_pair = {p.candidate: d for p, d in here.pairs}
    assert by_pair[1].untriaged == 0
    assert {p.candidate: d for p, d in elsewhere.pairs}[1].untriaged == 9


def test_a_run_set_written_out_names_its_urls_whole_and_reads_back_the_same():
    urls = ["s3://logs/a.eval", "gs://logs/b.eval", "https://example.org/c.eval"]
    spec = RunSetSpec.of(CompareSpec.create(urls[0], urls[1]), [urls[2]])
    written = spec.to_dict()
    assert written["runs"] == urls  # (`Path` folds them into `s3:/logs/a.eval`)
    assert (written["spec"]["baseline"], written["spec"]["candidate"]) == tuple(urls[:2])
    assert RunSetSpec.from_dict(json.loads(json.dumps(written))) == spec
