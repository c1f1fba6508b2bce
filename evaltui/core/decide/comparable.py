"""Whether the pair can have a verdict at all: the runs measure the same thing, and which way
is better is known. The first of the decision's questions (`decide.pair`), apart so that
the decision's module stays one job long.

- Metadata that name different tasks, datasets, scorers, metrics, filters or harnesses
  (`compare.run_metadata.SAME_EXPERIMENT_KEYS`): not comparable, unless `--accept-mismatch`.
- Logs that cannot show the runs are one task (no task name, no doc hashes) while the items'
  documents differ (`compare.comparability`): not comparable, unless `--accept-mismatch`.
- Prompts that differ on some items: said on the first line, blocks nothing.
- A graded metric whose direction is unknown (`compare.direction`): no directional verdict.
"""

from __future__ import annotations

from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.compare.comparability import assess
from evaltui.core.compare.run_metadata import SAME_EXPERIMENT_KEYS
from evaltui.core.decide.vocabulary import Reason

INCONSISTENT = "inconsistent_scores"  # a loader's word for a log whose parts disagree


def direction_reason(analysis: Analysis) -> Reason:
    """No directional verdict, and how to give one."""
    return Reason(
        "direction_unknown",
        f"no directional verdict: {analysis.direction.source}",
        "direction unknown (--direction)",
    )


def direction_unknown(analysis: Analysis) -> bool:
    """A graded metric whose direction is not known: no item is a regression or an
    improvement, and there is no directional verdict, until the user says."""
    return analysis.graded is not None and not analysis.direction.known


def comparability_reasons(analysis: Analysis, accept_mismatch: bool) -> list[Reason]:
    """Metadata that say the runs measure different things; logs that cannot show the same
    task while the items' documents differ (`compare.comparability`); and, said but not
    blocking, the items whose prompts changed."""
    found = assess(analysis.paired.baseline, analysis.paired.candidate)
    out = _named_mismatch(analysis, accept_mismatch)
    if found.refused and accept_mismatch:
        out.append(
            Reason(
                "mismatch_accepted",
                found.refusal.split("; if this comparison")[0] + " (accepted as intended)",
                "mismatch accepted",
            )
        )
    elif found.refused and not out:
        assert found.inputs is not None
        out.append(
            Reason(
                "not_comparable",
                found.refusal,
                f"not shown to be one task: documents differ on {found.inputs.text}",
            )
        )
    out += _inconsistent_logs(analysis)
    if found.prompts_text and not found.refused:  # different documents: prompts differ too
        assert found.prompts is not None
        out.append(
            Reason(
                "prompts_differ",
                f"{found.prompts_text} ({found.prompts.column}): the difference measured "
                "includes the change of prompt (template, instructions or few-shot examples)",
                found.prompts_text,
            )
        )
    return out


def _named_mismatch(analysis: Analysis, accept_mismatch: bool) -> list[Reason]:
    base, cand = analysis.paired.baseline.metadata, analysis.paired.candidate.metadata
    differ = [
        f"{key} ({base[key]!r} vs {cand[key]!r})"
        for key in SAME_EXPERIMENT_KEYS
        if base.get(key) is not None and cand.get(key) is not None and base[key] != cand[key]
    ]
    if not differ:
        return []
    text = "the runs measure different things: they differ in " + ", ".join(differ)
    if accept_mismatch:
        return [Reason("mismatch_accepted", text + " (accepted as intended)", "mismatch accepted")]
    keys = ", ".join(d.split(" ", 1)[0] for d in differ)
    return [
        Reason(
            "not_comparable",
            text + "; if this comparison is intended, say so with --accept-mismatch",
            f"runs differ in {keys}",
        )
    ]


def _inconsistent_logs(analysis: Analysis) -> list[Reason]:
    """A log whose parts disagree about its scores (an Inspect log's summaries against its
    results): the loader used the samples and said why; the reviewer must see it first."""
    out = []
    for arm, run in (
        ("baseline", analysis.paired.baseline),
        ("candidate", analysis.paired.candidate),
    ):
        text = run.metadata.get(INCONSISTENT)
        if text:
            out.append(
                Reason(
                    "log_inconsistent",
                    f"the {arm} log: {text}",
                    f"{arm} log: summaries disagree, samples used",
                )
            )
    return out
