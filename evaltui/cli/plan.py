"""`evaltui plan`: how many items (and epochs, clusters, model runs) a comparison needs.

The sub-parser and its runner, apart from cli.py because the designs grew their own options.
Every design's statistics live in core (stats/power.py, stats/power_designs.py); this module
only checks that the options make one design, calls core and prints. An option the chosen
design does not use is refused rather than ignored, so a plan never silently answers a
different question than the one typed. Core is imported lazily: `evaltui --help` stays instant.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

DESIGNS: tuple[str, ...] = ("pass-fail", "graded", "epochs", "clustered")

# Which design uses which option (dest names); every design uses delta, alpha, power, format,
# systems and pairs. "clustered" sizes a pass/fail or a graded base (its --discordance or --sd).
_USES: dict[str, frozenset[str]] = {
    "pass-fail": frozenset({"baseline_rate", "discordance", "formula"}),
    "graded": frozenset({"sd"}),
    "epochs": frozenset({"sd_between", "sd_within", "epochs", "items"}),
    "clustered": frozenset(
        {"baseline_rate", "discordance", "formula", "sd", "cluster_size", "icc", "design_effect"}
    ),
}
_FLAGS: dict[str, str] = {
    "baseline_rate": "--baseline-rate",
    "discordance": "--discordance",
    "formula": "--formula",
    "sd": "--sd",
    "sd_between": "--sd-between",
    "sd_within": "--sd-within",
    "epochs": "--epochs",
    "items": "--items",
    "cluster_size": "--cluster-size",
    "icc": "--icc",
    "design_effect": "--design-effect",
}
_FLAGS_DEST = {flag: dest for dest, flag in _FLAGS.items()}

_DESCRIPTION = """\
Sample size before anything runs. --delta is candidate minus baseline, as everywhere; alpha is
two-sided; every count is rounded up. Designs:

  pass-fail (default)  paired pass/fail items: n = (z_a sqrt(psi) + z_b sqrt(psi - d^2))^2 / d^2
                       for a discordance psi; with --baseline-rate, the independent two-arm
                       design beside it.
      evaltui plan --baseline-rate 0.9 --delta 0.05 --discordance 0.15
  graded               a mean per-item delta D with SD S of the per-item deltas: the paired
                       t test's count (R's power.t.test) and the normal ((z_a + z_b) S / D)^2.
      evaltui plan --design graded --delta 0.05 --sd 0.2
  epochs               items run K times per arm: per-item delta variance sd_between^2 +
                       2 sd_within^2 / K (sd_within per arm: the square root of the report's
                       within_item_variance); --epochs K gives the items, --items N the epochs.
      evaltui plan --design epochs --delta 0.1 --sd-between 0.2 --sd-within 0.3 --epochs 3
  clustered            the pass/fail (--discordance) or graded (--sd) count times the design
                       effect 1 + (m - 1) ICC (Kish), or --design-effect as the report prints
                       it; the clusters that makes, warned below 10 (no verdict).
      evaltui plan --design clustered --delta 0.06 --discordance 0.15 --cluster-size 6 --icc 0.1

  --systems K (any design) plans each of the K(K-1)/2 pairs (--pairs baseline: the K-1
  against the baseline) at alpha / m, m the pairs of the family the analysis adjusts it over
  (K-1 baseline pairs; (K-1)(K-2)/2 candidate pairs) (Bonferroni, Holm's first step), and
  prices K systems running the same items.
      evaltui plan --design graded --delta 0.05 --sd 0.2 --systems 4
"""


def add_plan_parser(sub: Any) -> argparse.ArgumentParser:
    """The `plan` sub-parser on cli.py's subparsers (its parser class gives one-line errors)."""
    plan = sub.add_parser(
        "plan",
        help="how many items a comparison needs: pass/fail, graded, epochs, clustered, k systems",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    plan.add_argument(
        "--design", choices=DESIGNS, default="pass-fail", help="default pass-fail (see above)"
    )
    plan.add_argument(
        "--delta",
        type=float,
        required=True,
        metavar="D",
        help="smallest effect worth detecting, candidate minus baseline (pass-fail: a rate "
        "difference, 0.05 = 5 pts; otherwise in the score's units)",
    )
    plan.add_argument("--alpha", type=float, default=0.05, help="two-sided (default 0.05)")
    plan.add_argument("--power", type=float, default=0.80, help="default 0.80")
    plan.add_argument("--format", choices=("text", "json"), default="text")

    pf = plan.add_argument_group("pass-fail (and clustered over pass-fail)")
    pf.add_argument(
        "--baseline-rate",
        type=float,
        default=None,
        metavar="P",
        help="the baseline's pass rate: prices the independent design and checks that the "
        "disagreements fit it",
    )
    pf.add_argument(
        "--discordance",
        type=float,
        default=None,
        metavar="PSI",
        help="expected share of items where the two versions disagree",
    )
    pf.add_argument(
        "--formula",
        choices=("exact-psi", "simple"),
        default=None,
        help="exact-psi (default) or the rough (z_a + z_b)^2 psi / d^2",
    )

    gr = plan.add_argument_group("graded (and clustered over graded)")
    gr.add_argument("--sd", type=float, default=None, metavar="S", help="SD of the per-item deltas")

    ep = plan.add_argument_group("epochs")
    ep.add_argument(
        "--sd-between",
        type=float,
        default=None,
        metavar="SB",
        help="SD of the items' true deltas (a pilot's: the delta SD less the epoch noise)",
    )
    ep.add_argument(
        "--sd-within",
        type=float,
        default=None,
        metavar="SW",
        help="SD of one record around its item's mean, per arm: sqrt(within_item_variance)",
    )
    ep.add_argument("--epochs", type=int, default=None, metavar="K", help="plan the items")
    ep.add_argument("--items", type=int, default=None, metavar="N", help="plan the epochs")

    cl = plan.add_argument_group("clustered")
    cl.add_argument("--cluster-size", type=int, default=None, metavar="M", help="items a cluster")
    cl.add_argument(
        "--icc", type=float, default=None, metavar="R", help="intra-cluster correlation of deltas"
    )
    cl.add_argument(
        "--design-effect",
        type=float,
        default=None,
        metavar="DEFF",
        help="Kish's design effect, as a pilot's report prints it (instead of --icc)",
    )

    ks = plan.add_argument_group("k systems")
    ks.add_argument(
        "--systems", type=int, default=None, metavar="K", help="systems compared (at least 2)"
    )
    ks.add_argument(
        "--pairs",
        choices=("all", "baseline"),
        default=None,
        help="all K(K-1)/2 pairs (default) or the K-1 candidates against the baseline",
    )
    return plan


# --------------------------------------------------------------------------------------------
# Checking the options
# --------------------------------------------------------------------------------------------


def _need(args: argparse.Namespace, *dests: str) -> None:
    from evaltui.core.errors import UsageError

    missing = [_FLAGS[d] for d in dests if getattr(args, d) is None]
    if missing:
        raise UsageError(f"--design {args.design} needs {' and '.join(missing)}")


def _check_options(args: argparse.Namespace) -> None:
    from evaltui.core.errors import UsageError

    stray = [
        flag
        for dest, flag in _FLAGS.items()
        if getattr(args, dest) is not None and dest not in _USES[args.design]
    ]
    if stray:
        users = sorted(d for d in DESIGNS if _FLAGS_DEST[stray[0]] in _USES[d])
        raise UsageError(
            f"{', '.join(stray)} {'is' if len(stray) == 1 else 'are'} not used by --design "
            f"{args.design} ({stray[0]} is for --design {' or '.join(users)})"
        )
    if args.pairs is not None and args.systems is None:
        raise UsageError("--pairs needs --systems K (the number of systems compared)")
    if args.design == "pass-fail":
        _need(args, "discordance")
    elif args.design == "graded":
        _need(args, "sd")
    elif args.design == "epochs":
        _need(args, "sd_between", "sd_within")
        if (args.epochs is None) == (args.items is None):
            raise UsageError(
                "--design epochs needs --epochs K (to plan the items) or --items N (to plan "
                "the epochs), one of them"
            )
    else:
        if (args.discordance is None) == (args.sd is None):
            raise UsageError(
                "--design clustered sizes a pass/fail base (--discordance) or a graded one "
                "(--sd): give one of them"
            )
        if args.sd is not None and (args.baseline_rate is not None or args.formula is not None):
            raise UsageError(
                "--baseline-rate and --formula are for a pass/fail base (--discordance), "
                "not a graded one (--sd)"
            )
        if args.cluster_size is None and args.design_effect is None:
            raise UsageError(
                "--design clustered needs --cluster-size M with --icc R, or --design-effect"
            )
        if (args.icc is None) == (args.design_effect is None):
            raise UsageError("--design clustered takes --icc or --design-effect, one of them")
        if args.icc is not None and args.cluster_size is None:
            raise UsageError("--icc needs --cluster-size M: the design effect is 1 + (M - 1) ICC")


# --------------------------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------------------------


def _planner(args: argparse.Namespace):  # -> Callable[[float], Plan]
    """One pair's plan as a function of its significance level (k systems plan at alpha/m)."""
    from evaltui.core.stats.power import paired_sample_size
    from evaltui.core.stats.power_designs import clustered_plan
    from evaltui.core.stats.power_graded import epochs_plan, graded_sample_size

    def pass_fail(level: float):
        return paired_sample_size(
            args.delta,
            args.discordance,
            alpha=level,
            power=args.power,
            formula=args.formula or "exact-psi",
            baseline_rate=args.baseline_rate,
        )

    def graded(level: float):
        return graded_sample_size(args.delta, args.sd, alpha=level, power=args.power)

    def epochs(level: float):
        return epochs_plan(
            args.delta,
            args.sd_between,
            args.sd_within,
            epochs=args.epochs,
            items=args.items,
            alpha=level,
            power=args.power,
        )

    def clustered(level: float):
        base = pass_fail(level) if args.discordance is not None else graded(level)
        return clustered_plan(
            base,
            cluster_size=args.cluster_size,
            icc=args.icc,
            design_effect=args.design_effect,
        )

    return {"pass-fail": pass_fail, "graded": graded, "epochs": epochs, "clustered": clustered}[
        args.design
    ]


def run_plan(args: argparse.Namespace) -> int:
    """Check the options, plan, print (text or JSON). Bad or impossible inputs: a one-line
    UsageError (exit 2 in cli.main)."""
    from dataclasses import asdict

    from evaltui.core.errors import UsageError
    from evaltui.core.stats.power_designs import systems_plan

    _check_options(args)
    plan_at = _planner(args)
    try:
        if args.systems is not None:
            result = systems_plan(
                args.systems, plan_at, pairs=args.pairs or "all", alpha=args.alpha
            )
        else:
            result = plan_at(args.alpha)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        body = {"design": args.design, **asdict(result)}
        sys.stdout.write(json.dumps(body, indent=2) + "\n")
        return 0
    sys.stdout.write("\n".join(_text(args, result)) + "\n")
    return 0


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------


def _text(args: argparse.Namespace, result: Any) -> list[str]:
    from evaltui.core.stats.power_designs import SystemsPlan

    if not isinstance(result, SystemsPlan):
        return [*_plan_lines(args, result, args.alpha), *_warning_lines(result)]
    s = result
    family = "pairs" if s.pairs == "all" else "candidates against the baseline"
    lines = [
        f"{s.systems} systems, {s.comparisons} {family}: each pair planned at alpha "
        f"{s.alpha:g}/{s.family} = {s.pair_alpha:.4g}",
        f"  (the largest family a pair is adjusted over: {s.family} pairs; the baseline pairs are",
        "  one family, the candidate pairs another; Bonferroni, the first step of Holm's",
        "  correction: conservative; the omnibus test is not sized)",
        *("  " + line for line in _plan_lines(args, s.pair, s.pair_alpha)),
    ]
    epochs = f" x {s.epochs} epochs" if s.epochs > 1 else ""
    lines.append(
        f"  all {s.systems} systems run the same {s.items:,} items{epochs}: "
        f"{s.model_runs:,} model runs ({s.uncorrected_model_runs:,} without the correction)"
    )
    if s.independent_model_runs is not None:
        lines.append(
            f"  {s.systems} independent arms instead: {s.independent_model_runs:,} model runs"
        )
    return [*lines, *_warning_lines(s)]


def _warning_lines(result: Any) -> list[str]:
    from evaltui.core.stats.power_designs import warnings_of

    return [f"  warning: {w}" for w in warnings_of(result)]


def _plan_lines(args: argparse.Namespace, plan: Any, level: float) -> list[str]:
    from evaltui.core.stats.power import PlanResult
    from evaltui.core.stats.power_designs import ClusteredPlan
    from evaltui.core.stats.power_graded import EpochPlan, GradedPlan

    at = f"at alpha {level:.4g} with {args.power:.0%} power"
    if isinstance(plan, PlanResult):
        return _pass_fail_lines(args, plan, at)
    if isinstance(plan, GradedPlan):
        return _graded_lines(plan, at)
    if isinstance(plan, EpochPlan):
        return _epoch_lines(plan, at)
    assert isinstance(plan, ClusteredPlan)
    return _clustered_lines(args, plan, at)


def _pass_fail_lines(args: argparse.Namespace, plan: Any, at: str) -> list[str]:
    lines = [
        f"To detect {plan.delta * 100:+.1f} pts {at}, expecting {plan.discordance:.0%} "
        "disagreement:",
        f"  paired design:      {plan.paired_n:,} items "
        f"({plan.paired_model_runs:,} model runs; raw {plan.paired_n_raw:.1f}, {plan.formula})",
    ]
    if plan.independent_n_per_arm is not None:
        lines.append(
            f"  independent design: {plan.independent_n_per_arm:,} items per arm, "
            f"{plan.independent_total:,} in all ({plan.independent_model_runs:,} model runs) "
            f"at a {plan.baseline_rate:.0%} baseline"
        )
    return lines


def _graded_lines(plan: Any, at: str) -> list[str]:
    return [
        f"To detect a mean delta of {plan.delta:+g} {at}, per-item deltas with SD {plan.sd:g}:",
        f"  paired t test:        {plan.items:,} items ({plan.model_runs:,} model runs; raw "
        f"{plan.items_raw:.2f}, as R's power.t.test)",
        f"  normal approximation: {plan.normal_items:,} items (raw {plan.normal_items_raw:.2f})",
    ]


def _epoch_lines(plan: Any, at: str) -> list[str]:
    epochs = f"{plan.epochs:,} epoch{'' if plan.epochs == 1 else 's'} per item"
    if plan.solved == "items":
        answer = f"  with {epochs}: {plan.items:,} items"
    else:
        answer = f"  with {plan.items:,} items: {epochs}"
    return [
        f"To detect a mean delta of {plan.delta:+g} {at}",
        f"(true per-item deltas with SD {plan.sd_between:g}; records with SD {plan.sd_within:g} "
        "within an item, per arm):",
        answer + f" ({plan.model_runs:,} model runs; raw {plan.items_raw:.2f} items, normal "
        f"{plan.normal_items:,}; per-item delta SD {plan.sd_delta:.4g})",
        f"  epoch noise is {plan.epoch_share:.0%} of the per-item delta variance, all that more "
        "epochs can remove:",
        f"  no number of epochs needs fewer than {plan.items_floor:,} items (the between-item "
        "SD alone)",
        f"  beyond {plan.epochs_saturation:,} epoch{'' if plan.epochs_saturation == 1 else 's'} "
        "per item, one more saves less than one item "
        "(per model run,",
        "  another epoch never beats a new item: epochs pay when the items are what is scarce)",
    ]


def _clustered_lines(args: argparse.Namespace, plan: Any, at: str) -> list[str]:
    base = plan.base
    lines = _plan_lines(args, base, base.alpha)
    lines[0] = lines[0].replace("To detect", "Independent items, to detect", 1)
    if plan.icc is not None and plan.cluster_size is not None and args.icc is not None:
        how = f"1 + ({plan.cluster_size} - 1) x ICC {plan.icc:g} (Kish)"
    elif plan.icc is not None:
        how = f"given; with clusters of {plan.cluster_size}, an ICC of {plan.icc:.3g}"
    else:
        how = "given"
    lines.append(f"  design effect {plan.design_effect:.4g}: {how}")
    where = (
        f" in {plan.clusters:,} clusters of {plan.cluster_size:,}"
        if plan.clusters is not None
        else ""
    )
    lines.append(
        f"  clustered items:    {plan.items:,} items{where} ({plan.model_runs:,} model runs; "
        f"raw {plan.items_raw:.1f} = {plan.independent_items_raw:.1f} x {plan.design_effect:.4g})"
    )
    return lines
