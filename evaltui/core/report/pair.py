"""The pair's report as data: JSON (`evaltui.report/2`), keys documented in docs/report.md.

Its Markdown is `report.pair_markdown`'s and its terminal (Rich) rendering `evaltui.cli.render`'s;
both read the same `report_dict`, so the three forms cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from evaltui import __version__
from evaltui.core.analysis.cost import cost_comparison
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.canonical import json_number as _num
from evaltui.core.compare.comparability import assess
from evaltui.core.compare.errored import ErroredAs, errored_counted_as
from evaltui.core.compare.pairing import ArmReport, PairingReport, arm_columns
from evaltui.core.decide.pair import decide_unreviewed
from evaltui.core.read.describe import describe
from evaltui.core.read.runs import Run
from evaltui.core.report.cost import cost_dict
from evaltui.core.stats.binary import BinaryComparison
from evaltui.core.stats.clusters import ClusteredComparison
from evaltui.core.stats.epochs import EpochSummary
from evaltui.core.stats.graded import GradedComparison
from evaltui.core.stats.mean_check import MeanCheck
from evaltui.core.textsafe import inert_json

REPORT_SCHEMA = "evaltui.report/2"


def _pair(values: tuple[float, float] | list[float]) -> list[float | None]:
    return [_num(values[0]), _num(values[1])]


def input_dict(run: Run, arm: ArmReport) -> dict[str, Any]:
    return {
        "path": run.source.path,
        "sha256": run.source.sha256,
        "size": run.source.size,
        "format": run.source.format,
        "items": arm.items,
        "records": arm.records,
        "metadata": dict(run.metadata),
        "described": describe(run).to_dict(),
    }


def pairing_dict(analysis: Analysis) -> dict[str, Any]:
    report = analysis.paired.report
    return {
        "paired": report.paired,
        "missing_in_baseline": list(report.missing_in_baseline),
        "missing_in_candidate": list(report.missing_in_candidate),
        "allow_missing": report.allow_missing,
        "on_error": report.on_error,
        "excluded_errors": {
            "baseline": report.baseline.excluded_records,
            "candidate": report.candidate.excluded_records,
        },
        "excluded_items": list(report.excluded_items),
        "errors_counted_as_failures": _errored(report, analysis.metric, "failures"),
        "errors_compared_as_recorded": _errored(report, analysis.metric, "recorded"),
        "epochs": {
            "baseline": [report.baseline.epochs_min, report.baseline.epochs_max],
            "candidate": [report.candidate.epochs_min, report.candidate.epochs_max],
        },
        "problems": report.problems_for(analysis.metric),
    }


def _errored(report: PairingReport, metric: str, treatment: ErroredAs) -> dict[str, int]:
    """The errored records kept (`--on-error fail`) that `metric` treats as `treatment`:
    failures for a verdict or score, what they recorded for a per-sample cost (`errored`)."""
    kept = report.on_error == "fail" and errored_counted_as(metric) == treatment
    return {
        "baseline": report.baseline.errored_records if kept else 0,
        "candidate": report.candidate.errored_records if kept else 0,
    }


def options_dict(analysis: Analysis) -> dict[str, Any]:
    o = analysis.options
    return {
        "metric": analysis.metric,
        "ci_method": o.ci_method,
        "confidence": o.confidence,
        "alpha": o.alpha,
        "pass_threshold": o.pass_threshold,
        "threshold_metric": o.threshold_metric,
        "tolerance": o.tolerance,
        "resamples": o.resamples,
        "seed": o.seed,
        "bootstrap": o.bootstrap,
    }


def _binary_results(c: BinaryComparison) -> dict[str, Any]:
    t, m = c.table, c.mcnemar
    return {
        "table": {
            "both_pass": t.both_pass,
            "regressions": t.regressions,
            "improvements": t.improvements,
            "both_fail": t.both_fail,
        },
        "baseline": {
            "passes": t.baseline_passes,
            "rate": c.baseline_rate,
            "ci": [c.baseline_ci.lower, c.baseline_ci.upper],
            "ci_method": "wilson",
        },
        "candidate": {
            "passes": t.candidate_passes,
            "rate": c.candidate_rate,
            "ci": [c.candidate_ci.lower, c.candidate_ci.upper],
            "ci_method": "wilson",
        },
        "delta": {
            "estimate": c.delta,
            "ci": [c.delta_ci.lower, c.delta_ci.upper],
            "method": c.ci_method,
            "confidence": c.confidence,
        },
        "mcnemar": {
            "discordant": t.discordant,
            "exact_p": m.exact_p,
            "mid_p": m.mid_p,
            "chi2": m.chi2,
            "chi2_p": m.chi2_p,
            "chi2_cc": m.chi2_cc,
            "chi2_cc_p": m.chi2_cc_p,
        },
        "unpaired": {
            "label": "independent two-proportion Wald: the wrong test for paired runs, "
            "shown only as a contrast",
            "se": c.unpaired.se,
            "ci": [c.unpaired.ci.lower, c.unpaired.ci.upper],
        },
    }


def graded_dict(g: GradedComparison, check: MeanCheck | None = None) -> dict[str, Any]:
    """The graded block: the bootstrap (for reference), the paired t (the verdict's interval
    and test) and, with `check`, whether a test of the mean holds (Cochran's rule) and the
    sign test offered as the answer to a different question."""
    return {
        "n": g.n,
        "mean_delta": _num(g.mean_delta),
        "ci": _pair(g.ci),
        "method": g.method,
        "confidence": g.confidence,
        "resamples": g.resamples,
        "seed": g.seed,
        "percentile_ci": _pair(g.percentile_ci),
        "bca_ci": _pair(g.bca_ci),
        "t_ci": _pair(g.t_ci),
        "t_p": _num(g.t_p),
        "wilcoxon_p": _num(g.wilcoxon_p),
        "n_distinct": g.n_distinct,
        "flags": list(g.flags),
        "mean_check": None if check is None else mean_check_dict(check),
    }


def mean_check_dict(check: MeanCheck) -> dict[str, Any]:
    s = check.sign
    return {
        "skewness": _num(check.skewness),
        "items_needed": check.items_needed,
        "holds": check.holds,
        "sign_test": {"up": s.up, "down": s.down, "zero": s.zero, "p": _num(s.p)},
    }


def epochs_dict(epochs: dict[str, EpochSummary] | None) -> dict[str, Any] | None:
    if epochs is None:
        return None
    return {
        arm: {
            "min": e.epochs_min,
            "max": e.epochs_max,
            "mean": e.epochs_mean,
            "unequal": e.unequal,
            "items": e.n_items,
            "within_item_variance": _num(e.within_item_variance),
            "between_item_variance": _num(e.between_item_variance),
            "within_share": _num(e.within_share),
            "flags": list(e.flags),
        }
        for arm, e in epochs.items()
    }


def clusters_dict(c: ClusteredComparison | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "n_clusters": c.n_clusters,
        "n_items": c.n_items,
        "mean_delta": _num(c.mean_delta),
        "clustered_se": _num(c.clustered_se),
        "naive_se": _num(c.naive_se),
        "design_effect": _num(c.design_effect),
        "se_ratio": _num(c.se_ratio),
        "ci": _pair(c.ci),
        "ci_method": "cluster bootstrap percentile",
        "naive_ci": _pair(c.naive_ci),
        "naive_label": "item-level normal interval that ignores clusters: the contrast",
        "confidence": c.confidence,
        "resamples": c.resamples,
        "seed": c.seed,
        "flags": list(c.flags),
        "labelled_clusters": c.labelled_clusters,
        "unlabelled_items": c.unlabelled_items,
        "verdict_ci": _pair(c.verdict_ci),
        "verdict_method": c.verdict_method,
        "verdict_p": _num(c.verdict_p),
    }


def metrics_list(analysis: Analysis) -> list[dict[str, Any]]:
    return [
        {
            "metric": r.metric,
            "label": r.name,
            "role": r.role,
            "in_points": r.in_points,
            "kind": r.kind,
            "n": r.n,
            "delta": _num(r.delta),
            "ci": _pair(r.ci),
            "ci_method": r.ci_method,
            "p_raw": _num(r.p_raw),
            "p_test": r.p_test,
            "p_adjusted": _num(r.p_adjusted),
            "p_reference": _num(r.p_reference),
            "p_reference_test": r.p_reference_test,
            "in_family": r.in_family,
            "verdict": r.verdict,
            "unadjusted_verdict": r.unadjusted_verdict,
        }
        for r in analysis.metrics
    ]


def slices_list(analysis: Analysis) -> list[dict[str, Any]]:
    out = []
    for s in analysis.slices:
        t, c = s.table, s.comparison
        out.append(
            {
                "name": s.name,
                "overall": s.is_overall,
                "n": s.n,
                "table": {
                    "both_pass": t.both_pass,
                    "regressions": t.regressions,
                    "improvements": t.improvements,
                    "both_fail": t.both_fail,
                },
                "baseline_rate": c.baseline_rate,
                "candidate_rate": c.candidate_rate,
                "delta": c.delta,
                "ci": [c.delta_ci.lower, c.delta_ci.upper],
                "p_raw": _num(s.p_raw),
                "p_adjusted": _num(s.p_adjusted),
                "adjust": s.adjust,
                "verdict": s.verdict,
                "flags": list(c.flags),
            }
        )
    return out


def categories_dict(analysis: Analysis) -> dict[str, Any] | None:
    """The outcome categories' comparison (`categories.outcome_comparison`), or None."""
    c = getattr(analysis, "categorical", None)
    if c is None:
        return None
    t = c.test
    return {
        "levels": list(c.table.levels),
        "table": [list(row) for row in c.table.counts],
        "n": c.table.n,
        "moved": c.table.moved,
        "stuart_maxwell": {
            "statistic": _num(t.statistic),
            "df": t.df,
            "p": _num(t.p_value),
            "tested_levels": list(t.tested_levels),
            "dropped_levels": list(t.dropped_levels),
            "groups": t.groups,
            "note": t.note,
        },
        "alpha": c.alpha,
        "rejects": c.rejects,
        "ci_method": c.ci_method,
        "confidence": c.confidence,
        "adjust": c.adjust,
        "changes": [
            {
                "level": m.level,
                "baseline_count": m.baseline_count,
                "candidate_count": m.candidate_count,
                "baseline_share": m.baseline_share,
                "candidate_share": m.candidate_share,
                "delta": m.delta,
                "ci": [m.ci.lower, m.ci.upper],
                "exact_p": _num(m.exact_p),
                "p_adjusted": _num(m.p_adjusted),
            }
            for m in c.changes
        ],
        "flags": list(c.flags),
    }


def gates_list(gates: Sequence[Any] | None) -> list[dict[str, Any]] | None:
    """Evaluated gates (decide's GateResults) as plain data; already-plain gates, the dicts a
    record holds, pass through."""
    if gates is None:
        return None
    if all(isinstance(g, dict) for g in gates):
        return [dict(g) for g in gates]
    out = []
    for g in gates:
        entry = {
            "name": g.name,
            "kind": g.kind,
            "slice": g.slice,
            "status": g.status,
            "detail": g.detail,
            "item_ids": list(g.item_ids),
        }
        if getattr(g, "summary", None) is not None:  # a margin's result (policy.margin)
            entry["summary"] = g.summary
            entry["margin"] = margin_dict(g.margin)
        out.append(entry)
    return out


def margin_dict(m: Any) -> dict[str, Any] | None:
    """A margin's numbers (stats.margins.MarginTest) as plain data; None while pending."""
    if m is None:
        return None
    return {
        "kind": m.kind,
        "margin": m.margin,
        "alpha": m.alpha,
        "level": m.level,
        "estimate": _num(m.estimate),
        "interval": _pair(m.interval),
        "interval_method": m.interval_method,
        "lower_is_better": m.lower_is_better,
        "test": m.test,
        "p_below": _num(m.p_below),
        "p_above": _num(m.p_above),
        "p": _num(m.p),
        "shown": m.shown,
        "undecided": m.undecided,
        "flags": list(m.flags),
    }


def policy_dict(analysis: Analysis) -> dict[str, Any] | None:
    p = analysis.policy
    if p is None:
        return None
    return {"path": p.source_path, "sha256": p.sha256, "hash": p.hash, "rules": p.canonical()}


def report_dict(
    analysis: Analysis,
    gates: tuple[Any, ...] | None = None,
    decision: Any = None,
    review: dict[str, Any] | None = None,
    agreement: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The report as plain data; the keys are documented in docs/report.md.

    `decision` is the pair's decision (`record.session.decide_review`, which knows the
    reviewer's tags); without one it is decided from the analysis and the gates alone.
    `review`: a team's review (`record.team_view.team_review`), the `review` block;
    `agreement`: the reviewers' agreement (`report.agreement.agreement_dict`), its block."""
    paired = analysis.paired
    if decision is None:
        plain = tuple(g for g in gates or () if not isinstance(g, dict))
        decision = decide_unreviewed(analysis, plain)
    out: dict[str, Any] = {
        "schema": REPORT_SCHEMA,
        "tool": {"name": "evaltui", "version": __version__},
        "design": "paired",
        "decision": decision if isinstance(decision, dict) else decision.to_dict(),
        "inputs": {
            "baseline": input_dict(paired.baseline, paired.report.baseline),
            "candidate": input_dict(paired.candidate, paired.report.candidate),
        },
        "comparability": assess(paired.baseline, paired.candidate).to_dict(),
        "direction": analysis.direction.to_dict(),
        "pairing": pairing_dict(analysis),
        "options": options_dict(analysis),
        "spec": analysis.spec.to_dict() if analysis.spec is not None else None,
        "analysis": analysis.kind,
        "metric": analysis.metric,
        "n_paired": paired.n,
    }
    if analysis.binary is not None:
        out.update(_binary_results(analysis.binary))
        out["graded"] = None
    else:
        g = analysis.graded_comparison
        base_mean, cand_mean = arm_means(analysis)
        out.update(
            {
                "table": None,
                "baseline": {"mean": base_mean},
                "candidate": {"mean": cand_mean},
                "delta": {
                    "estimate": _num(g.mean_delta),
                    "ci": _pair(g.t_ci),
                    "method": "paired-t",
                    "confidence": g.confidence,
                },
                "mcnemar": None,
                "unpaired": None,
                "graded": graded_dict(g, analysis.mean_check),
            }
        )
    out.update(
        {
            "epochs": epochs_dict(analysis.epochs),
            "clusters": clusters_dict(analysis.clusters),
            "metrics": metrics_list(analysis),
            "slices": slices_list(analysis),
            "categories": categories_dict(analysis),
            "policy": policy_dict(analysis),
            "gates": gates_list(gates),
            "flags": list(analysis.flags),
            "warnings": list(analysis.warnings),
            "verdict": analysis.verdict,
            "headline": analysis.headline,
            "regressions": list(analysis.regressions),
            "improvements": list(analysis.improvements),
        }
    )
    cost = cost_comparison(analysis.paired)
    if cost is not None:  # agent runs whose logs record what each sample cost
        out["cost"] = cost_dict(cost)
    if review is not None:  # several reviewers, or a team stated
        out["review"] = review
    if agreement is not None:
        out["agreement"] = agreement
    return out


def arm_means(analysis: Analysis) -> tuple[float | None, float | None]:
    items = analysis.paired.items
    cols = arm_columns(analysis.metric)
    # polars types any Series' mean as any Python value; a numeric column's is a float or None.
    base, cand = (cast("float | None", items[col].mean()) for col in cols)
    return _num(base), _num(cand)


def report_json(analysis: Analysis) -> str:
    return inert_json(report_dict(analysis)) + "\n"
