"""The release policy: the decision rule written down before anyone sees the results.

A policy file (TOML) fixes the primary metric, the significance level, the interval method, the
multiplicity correction across slices, the smallest effect worth shipping, and the gates. Gates
are rules, not significance tests: a safety slice of 30 items rarely reaches p < 0.05 even when
six of its answers broke, so a gate fires on counts ("no regressions in drug_interactions"), on
a pass rate, on the reviewer's tags, or on the delta interval against the minimum effect.

Example (see sample_runs/policy.toml for a commented one)::

    primary_metric = "passed"
    alpha = 0.05
    ci_method = "tango"
    multiplicity = "holm"
    min_effect = 0.02

    [[gates]]
    kind = "no_regressions"
    slice = "drug_interactions"

Top-level keys (all optional): ``primary_metric`` ("passed"), ``alpha`` (0.05), ``ci_method``
(one of paired_delta.CI_METHODS, "tango"), ``confidence`` (1 - alpha), ``multiplicity`` ("holm",
"bh" or "bonferroni"; "holm"), ``min_effect`` (in rate units: 0.02 = 2 points; the superiority
bar of the min_effect gate; a negative value, the older form of a non-inferiority margin, is
refused beside a margin), ``non_inferiority_margin`` or ``equivalence_margin`` (one of them, in
the metric's units: the interval at 1 - 2 alpha against -m, or inside +-m; answered by
``decide.margin`` as a gate-like result after the gates), ``monitor``, ``gates``, ``tags``. Gate
kinds and their keys (``name`` optional on all):

- ``no_regressions`` [slice]: fails when any item regressed (baseline passed, candidate failed);
- ``min_pass_rate`` rate [slice, arm = "candidate" | "baseline"]: that arm's pass rate >= rate;
- ``no_tag`` tag [slice]: fails when a regression carries the tag; pending without a session;
- ``all_triaged`` [slice]: pending while any regression is untagged, passed once all are;
- ``min_effect`` [slice]: the delta interval's lower bound >= min_effect, else failed.

This package is the policy file: :mod:`.declaration` declares those keys once (msgspec Structs)
and checks a table against them, :mod:`.schema` reads a file, places each error at its line
(:mod:`.layout`) and fingerprints the rules (``Policy.hash``). Evaluating it is the
decide stage's: ``decide.gates`` evaluates the gates on a pair and a review session;
``decide.margin`` answers the margin on the primary metric's analysis. Graded pairs (scores,
or verdicts over epochs) count the analysis's own regressions; a gate that needs what they
lack is refused, naming it. This
module only re-exports, so ``from evaltui.core.policy import X`` works for every name the
modules offer.
"""

from __future__ import annotations

from evaltui.core.policy.schema import (
    ARMS,
    GATE_KINDS,
    MULTIPLICITY_METHODS,
    POLICY_SCHEMA,
    Gate,
    Policy,
    load_policy,
    loads_policy,
)

__all__ = [
    "ARMS",
    "GATE_KINDS",
    "MULTIPLICITY_METHODS",
    "POLICY_SCHEMA",
    "Gate",
    "Policy",
    "load_policy",
    "loads_policy",
]
