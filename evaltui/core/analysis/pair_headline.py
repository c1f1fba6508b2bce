"""A pair's analysis in words: the headline sentence, the warnings, the names of its intervals.

The headline says the effect, its interval and the test as the reading list writes them; with
clusters it rests on the cluster-aware interval and names the item-level one as what it is, a
reading that ignores the clusters. `analyze` (pair.py) writes both into the `Analysis`, so every
surface shows the same words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evaltui.core.analysis.pair_result import CI_METHOD_LABELS
from evaltui.core.stats.binary import FLAG_TEXT, BinaryComparison
from evaltui.core.stats.clusters import FEW_CLUSTERS, MIN_CLUSTERS, ClusteredComparison
from evaltui.core.stats.epochs import EpochSummary
from evaltui.core.words import format_p, interval_digits, p_is, plural, points, signed

if TYPE_CHECKING:  # the Analysis is built in pair.py, which writes its headline with these
    from evaltui.core.analysis.pair_result import Analysis


GRADED_FLAG_TEXT = {
    "small_n": "fewer than 30 paired items: counts only, no verdict",
    "zero_variance": "every item moved by the same amount: the interval is a single point",
    "all_zero": "no item changed score: nothing to weigh",
    "bca_fallback": "BCa undefined for these data: the percentile interval is shown",
    "bca_extreme": "BCa reaches past the outermost resample: read the interval with care",
    "bca_small_skewed": (
        "few items with skewed deltas: the BCa interval (shown for reference) can cover less "
        "than its level (83-92% for 95% at 30 items in simulation)"
    ),
}


def warnings_of(a: Analysis) -> tuple[str, ...]:
    out: list[str] = []
    if a.binary is not None:
        out += [FLAG_TEXT[f] for f in a.binary.flags]
    else:
        out += [GRADED_FLAG_TEXT[f] for f in a.graded_comparison.flags if f in GRADED_FLAG_TEXT]
        if a.too_skewed and a.mean_check is not None:
            out.append(f"{a.mean_check.reason}: no verdict")
    c = a.clusters
    if c is not None and "too_few_clusters" in c.flags:
        out.append(
            f"only {c.labelled_clusters} clusters (fewer than {MIN_CLUSTERS}): no cluster "
            "interval can be trusted, so there is no verdict"
        )
    elif c is not None and c.labelled_clusters < FEW_CLUSTERS:
        out.append(
            f"only {c.labelled_clusters} clusters (fewer than {FEW_CLUSTERS}): the clustered "
            "intervals are themselves unreliable"
        )
    if c is not None and c.unlabelled_items:
        out.append(
            f"{c.unlabelled_items:,} item(s) carry no cluster label: each counts as a cluster "
            f"of its own, beside the {c.labelled_clusters:,} labelled clusters"
        )
    row = a.family_row
    if row is not None and a.own_verdict != a.verdict:
        family = row.family_label or f"{sum(1 for r in a.metrics if r.in_family)} metrics"
        out.append(
            f"{a.own_verdict} on its own, but its p adjusted over the {family} "
            f"({format_p(row.p_adjusted)}) is not below alpha {a.options.alpha:g}: no verdict "
            "of a difference"
        )
    own = a.item_level_verdict
    if c is not None and own != "insufficient_data" and own != a.own_verdict:
        out.append(
            f"the item-level interval says {own.replace('_', ' ')}, but the items are "
            "clustered: the verdict follows the cluster-aware interval"
        )
    note = underpowered_note(a)
    if note:
        out.append(note)
    if a.options.pass_threshold is not None:
        out.append(
            f"verdicts from {a.options.threshold_metric}: pass when >= {a.options.pass_threshold:g}"
        )
    if a.epochs and a.epochs_differ:
        base, cand = a.epochs["baseline"], a.epochs["candidate"]
        out.append(
            f"the arms ran different numbers of epochs (baseline {_epoch_range(base)}, candidate "
            f"{_epoch_range(cand)}): their per-item means carry different epoch noise"
        )
    out.extend(a.paired.report.problems_for(a.metric))
    return tuple(out)


def _epoch_range(e: EpochSummary) -> str:
    return str(e.epochs_min) if e.epochs_min == e.epochs_max else f"{e.epochs_min}-{e.epochs_max}"


def underpowered_note(a: Analysis, power: float = 0.80) -> str | None:
    """For a non-significant binary result: the smallest effect this run could have detected,
    from its observed discordance (reading list 002/004), so "no difference" is not misread."""
    if a.binary is None or a.verdict != "no_significant_difference":
        return None
    from evaltui.core.stats.power import detectable_delta

    t = a.binary.table
    found = detectable_delta(t.n, t.discordant / t.n, alpha=a.options.alpha, power=power)
    if found.delta is None:
        return (
            f"underpowered: with {t.discordant} disagreements in {t.n} items this run could not "
            f"detect any effect at {power:.0%} power"
        )
    return (
        f"underpowered: this run could only detect ±{found.delta * 100:.1f} pts at "
        f"{power:.0%} power (observed discordance {t.discordant / t.n:.0%})"
    )


def headline(a: Analysis) -> str:
    """One sentence with the effect, its interval and the test, as the reading list writes it.

    With clusters the interval is the cluster-aware one; the item-level interval and test are
    named as what they are, a reading that ignores the clusters."""
    if a.clusters is not None and a.item_level_verdict != "insufficient_data":  # clustered
        return clustered_headline(a, a.clusters)
    if a.binary is not None:
        return binary_headline(a.binary)
    g = a.graded_comparison
    unit = " pts" if a.in_points else ""
    what = "pass rate per item" if a.in_points else a.metric
    counts = f"{len(a.regressions):,} regressed, {len(a.improvements):,} improved"
    if not a.direction.known:  # no item is called either until the user says which way
        counts = f"{int((abs(a.deltas) > a.options.tolerance).sum()):,} changed, direction unknown"
    if "all_zero" in g.flags:
        return f"No item changed {what} across {g.n:,} items: nothing to weigh."
    if "small_n" in g.flags:
        return f"Only {g.n} paired items ({counts}): counts only, no verdict."
    level = f"{g.confidence * 100:g}%"
    boot = f"{'BCa' if g.method == 'bca' else g.method} bootstrap"
    reference = (
        f"{boot} [{signed(g.ci[0], a.in_points)}, {signed(g.ci[1], a.in_points)}] "
        f"({g.resamples:,} resamples) for reference"
    )
    check = a.mean_check
    if a.too_skewed and check is not None:
        return (
            f"Candidate mean Δ {signed(g.mean_delta, a.in_points)}{unit} in {what} over {g.n:,} "
            f"items ({counts}): the changes are too skewed (skewness {check.skewness:+.2f}) for "
            f"any test of the mean at this size, no verdict. {sign_test_text(a)}."
        )
    return (
        f"Candidate mean Δ {signed(g.mean_delta, a.in_points)}{unit} "
        f"[{signed(g.t_ci[0], a.in_points)}, {signed(g.t_ci[1], a.in_points)}] "
        f"(paired t {level}, p {p_is(g.t_p)}) in {what} over {g.n:,} items ({counts}); "
        f"{reference}."
    )


def sign_test_text(a: Analysis) -> str:
    """The sign test offered when no test of the mean holds, labelled as the other question
    it answers (did more items go up than down), never as the verdict on the mean."""
    if a.mean_check is None:
        return ""
    s = a.mean_check.sign
    return (
        f"A different question, whether more items went up than down: sign test {s.up:,} up, "
        f"{s.down:,} down ({s.zero:,} unchanged), p {p_is(s.p)}"
    )


def clustered_headline(a: Analysis, c: ClusteredComparison) -> str:
    """`headline` for an analysis with clusters (`c`, its `clusters`)."""
    unit = " pts" if a.in_points else ""
    estimate = a.binary.delta if a.binary is not None else a.graded_comparison.mean_delta
    what = "Candidate" if a.binary is not None else "Candidate mean Δ"
    if "too_few_clusters" in c.flags:
        effect = (
            f"{what} {signed(estimate, a.in_points)}{unit} over {c.labelled_clusters} "
            f"clusters: too few for a cluster-aware interval, no verdict"
        )
    else:
        lo, hi = c.verdict_ci
        k = interval_digits(lo, hi, a.in_points)
        effect = (
            f"{what} {signed(estimate, a.in_points, k)}{unit} "
            f"[{signed(lo, a.in_points, k)}, {signed(hi, a.in_points, k)}] ({a.decision_ci_label})"
        )
    if a.binary is not None:
        b = a.binary
        t = b.table
        own = (
            f"{CI_METHOD_LABELS[b.ci_method]} [{points(b.delta_ci.lower)}, "
            f"{points(b.delta_ci.upper)}] and exact McNemar p {p_is(b.mcnemar.exact_p)}"
        )
        counts = f"{plural(t.discordant, 'discordant item')} ({plural(t.regressions, 'regression')}"
        counts += f", {plural(t.improvements, 'improvement')})"
    else:
        g = a.graded_comparison
        own = f"item-level paired t [{signed(g.t_ci[0], False)}, {signed(g.t_ci[1], False)}]"
        counts = f"{plural(g.n, 'item')} ({len(a.regressions):,} regressed, "
        counts += f"{len(a.improvements):,} improved)"
    return f"{effect} on {counts}; item-level {own} ignore the clusters."


def binary_headline(c: BinaryComparison) -> str:
    t = c.table
    if "no_discordant" in c.flags:
        return (
            f"No disagreements: both runs gave the same verdict on all {t.n:,} items, "
            "nothing to weigh."
        )
    counts = f"{plural(t.regressions, 'regression')}, {plural(t.improvements, 'improvement')}"
    if "small_n" in c.flags:
        return f"Only {plural(t.n, 'paired item')} ({counts}): counts only, no verdict."
    label = CI_METHOD_LABELS[c.ci_method]
    level = f"{c.confidence * 100:g}%"
    k = interval_digits(c.delta_ci.lower, c.delta_ci.upper, True)
    ci = f"[{points(c.delta_ci.lower, k)}, {points(c.delta_ci.upper, k)}]"
    return (
        f"Candidate {points(c.delta, k)} pts {ci} ({label} {level}), exact McNemar "
        f"p {p_is(c.mcnemar.exact_p)} on {plural(t.discordant, 'discordant item')} "
        f"({counts})."
    )
