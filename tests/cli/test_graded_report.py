"""Graded scores, epochs and clusters through the whole path: files -> report JSON/Markdown."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from evaltui.cli.main import main
from tests.conftest import DATA

INSPECT = DATA / "inspect_ai"
GPT5 = INSPECT / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CLAUDE = INSPECT / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"


def report(capsys, *args):
    code = main(["report", *map(str, args), "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 4), err  # ready/needs review, blocked, no verdict
    result = json.loads(out)
    assert code == result["decision"]["exit_code"]
    return code, result


def rated_pair(write_jsonl, n=120, seed=3, clustered=True):
    """Judge ratings 1-5; the candidate drops one point on a tenth of the items (the first
    12, which are the first two of 20 clusters of 6 when `clustered`)."""
    rng = np.random.default_rng(seed)
    base = rng.integers(2, 6, size=n)
    cand = base.copy()
    cand[: n // 10] -= 1
    cand[n // 10 : n // 10 + 3] += 0  # unchanged items stay
    records_b = [
        {"item_id": f"r{i}", "score:judge": int(b), "cluster": f"doc{i // 6}"}
        for i, b in enumerate(base)
    ]
    records_c = [
        {"item_id": f"r{i}", "score:judge": int(c), "cluster": f"doc{i // 6}"}
        for i, c in enumerate(cand)
    ]
    if not clustered:
        for record in (*records_b, *records_c):
            del record["cluster"]
    return (
        write_jsonl("b.jsonl", records_b),
        write_jsonl("c.jsonl", records_c),
        (cand - base).astype(float),
    )


def test_inspect_epochs_pair_is_analysed_on_per_item_pass_rates(capsys):
    code, r = report(capsys, GPT5, CLAUDE)
    assert code == 4  # ten items: no verdict, and the exit code says so
    assert r["analysis"] == "graded" and r["metric"] == "passed"
    assert r["n_paired"] == 10
    assert r["pairing"]["epochs"] == {"baseline": [5, 5], "candidate": [5, 5]}
    assert r["epochs"]["baseline"]["min"] == 5 and not r["epochs"]["candidate"]["unequal"]
    # Only item 5 differs: gpt-5 IIIII (0/5) vs claude CCIIC (3/5), so the mean delta is 0.6/10.
    assert r["graded"]["mean_delta"] == pytest.approx(0.06)
    assert r["improvements"] == ["5"] and r["regressions"] == []
    assert r["baseline"]["mean"] == pytest.approx(0.6) and r["candidate"]["mean"] == pytest.approx(
        0.66
    )
    assert r["verdict"] == "insufficient_data"  # 10 items: counts only
    assert r["table"] is None and r["mcnemar"] is None


def test_graded_report_has_bootstrap_t_and_wilcoxon(capsys, write_jsonl):
    # 240 items: a tenth dropping one point is skewness -2.67, which Cochran's rule accepts
    # from 178 items on (at 120 items the decision is "not enough data": stats.mean_check).
    base, cand, deltas = rated_pair(write_jsonl, n=240, clustered=False)
    code, r = report(capsys, base, cand, "--seed", "7")
    g = r["graded"]
    assert r["analysis"] == "graded" and r["metric"] == "score:judge"
    assert g["mean_delta"] == pytest.approx(deltas.mean())
    assert g["resamples"] == 10_000 and g["seed"] == 7 and g["method"] == "bca"
    t_ci = stats.ttest_1samp(deltas, 0).confidence_interval(0.95)
    assert g["t_ci"] == pytest.approx([t_ci.low, t_ci.high], abs=1e-12)
    assert g["wilcoxon_p"] == pytest.approx(stats.wilcoxon(deltas).pvalue, rel=1e-9)
    assert g["t_p"] == pytest.approx(stats.ttest_1samp(deltas, 0).pvalue, rel=1e-9)
    assert r["delta"]["ci"] == g["t_ci"] and r["delta"]["method"] == "paired-t"
    assert g["mean_check"]["holds"] and g["mean_check"]["items_needed"] == 178
    assert g["ci"][1] < 0 and r["verdict"] == "regressed" and code == 1
    assert len(r["regressions"]) == 24 and r["improvements"] == []
    # Same seed, same interval: reproducible.
    _, again = report(capsys, base, cand, "--seed", "7")
    assert again["graded"]["ci"] == g["ci"]


def test_tolerance_decides_which_drops_count_as_regressions(capsys, write_jsonl):
    base, cand, _ = rated_pair(write_jsonl)
    _, r = report(capsys, base, cand, "--tolerance", "1")
    assert r["regressions"] == []  # a one-point drop is within tolerance 1


def test_pass_threshold_turns_scores_into_verdicts(capsys, write_jsonl):
    base, cand, _ = rated_pair(write_jsonl)
    _, r = report(capsys, base, cand, "--pass-threshold", "4")
    assert r["analysis"] == "binary" and r["table"] is not None
    assert r["options"]["threshold_metric"] == "score:judge"
    t = r["table"]
    assert t["both_pass"] + t["regressions"] + t["improvements"] + t["both_fail"] == 120
    assert t["improvements"] == 0 and t["regressions"] > 0


def test_clusters_report_design_effect_and_keep_the_naive_interval(capsys, sample_pair):
    _, r = report(capsys, *sample_pair)
    c = r["clusters"]
    assert c["n_clusters"] == 31 and c["n_items"] == 200
    assert c["design_effect"] == pytest.approx((c["clustered_se"] / c["naive_se"]) ** 2)  # Kish
    assert c["se_ratio"] == pytest.approx(c["clustered_se"] / c["naive_se"])
    assert c["design_effect"] > 1.0
    assert c["naive_ci"][0] < c["naive_ci"][1] and c["ci"][0] < c["ci"][1]
    assert any("the verdict follows the cluster-aware interval" in w for w in r["warnings"])


def test_a_graded_drop_bunched_in_two_clusters_is_not_called_a_regression(capsys, write_jsonl):
    """The same drop in 12 items: a regression when the items are independent, not when the
    12 are two of 20 clusters (the wild cluster bootstrap-t interval includes zero)."""
    base, cand, _ = rated_pair(write_jsonl)
    code, r = report(capsys, base, cand)
    assert r["graded"]["ci"][1] < 0  # the item-level bootstrap interval
    assert r["verdict"] == "no_significant_difference" and code == 0
    lo, hi = r["clusters"]["verdict_ci"]
    assert lo < 0 < hi


def test_few_clusters_are_warned_about(capsys, write_jsonl):
    base, cand, _ = rated_pair(write_jsonl)  # 120 items in 20 clusters of 6
    records = [json.loads(line) for line in base.read_text().splitlines()]
    for rec in records:
        rec["cluster"] = "doc" + str(int(rec["cluster"][3:]) % 5)
    base.write_text("".join(json.dumps(x) + "\n" for x in records))
    records = [json.loads(line) for line in cand.read_text().splitlines()]
    for rec in records:
        rec["cluster"] = "doc" + str(int(rec["cluster"][3:]) % 5)
    cand.write_text("".join(json.dumps(x) + "\n" for x in records))
    _, r = report(capsys, base, cand)
    assert r["clusters"]["n_clusters"] == 5
    assert "few_clusters" in r["flags"]
    assert any("only 5 clusters" in w for w in r["warnings"])


def test_graded_markdown_shows_histogram_and_reference_tests(capsys, write_jsonl):
    base, cand, _ = rated_pair(write_jsonl)
    code = main(["report", str(base), str(cand), "--format", "markdown"])
    out = capsys.readouterr().out
    assert code == 0  # needs review: the drop sits in two of 20 clusters (see above)
    assert out.startswith("## NEEDS REVIEW · 12 of 12 untriaged · overall mean Δ -0.100")
    assert "bootstrap CI" in out and "paired t CI" in out and "Wilcoxon" in out
    assert "Per-item deltas: −1 " in out and "│" in out
    assert "Clusters: 20 over 120 items" in out


def test_errored_records_without_scores_are_refused_unless_excluded(capsys, write_jsonl):
    base = write_jsonl("b.jsonl", [{"item_id": f"x{i}", "score": 0.5} for i in range(40)])
    cand = write_jsonl(
        "c.jsonl",
        [{"item_id": "x0", "score": None, "status": "error"}]
        + [{"item_id": f"x{i}", "score": 0.4} for i in range(1, 40)],
    )
    code = main(["report", str(base), str(cand)])
    err = capsys.readouterr().err
    assert code == 2 and "no score" in err and "--on-error exclude" in err
    code, r = report(capsys, base, cand, "--on-error", "exclude")
    assert r["n_paired"] == 39
