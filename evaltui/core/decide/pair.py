"""The decision: everything the tool knows about a pair, folded into one status and one line.

The numbers are one input among several. A reviewer reads the first line and decides in five
seconds, so that line must already say what blocks the release (failed gates, confirmed
regressions, a regression the interval shows), what is still open (untriaged regressions,
pending gates, inputs that changed) and what makes a verdict impossible (too few items or
clusters, two runs that measure different things). Computed once here and shown word for word
by the app's header, the text and Markdown reports, the sign-off Markdown and both JSON forms.

Statuses, in the order they win:

- ``not_comparable``: the runs' metadata say different tasks, datasets or scorers, and the
  user did not say the comparison is intended (`--accept-mismatch`);
- ``blocked``: a release gate failed, the policy's non-inferiority or equivalence margin was
  not shown, a regression is tagged as confirmed, or the verdict is "regressed" (unless the
  margin was shown: then the candidate is worse by less than the policy allows);
- ``not_enough_data``: no verdict is possible (small n, no disagreements, too few clusters),
  or the margin cannot be answered (small n, too few clusters); with a margin that is answered,
  "no disagreements" is no obstacle: the margin decides;
- ``needs_review``: regressions untriaged (or tagged as still open), gates pending, inputs or
  the policy changed since the tags were made;
- ``ready``: nothing of the above: the reviewer may approve.

While the analysis that decides is still running (the app's first screen: no cluster interval
or metric family yet) there is no status: the line is ``DECIDING…`` (`decide.deciding`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import polars as pl

from evaltui.core.analysis.pair import analyze
from evaltui.core.analysis.pair_headline import sign_test_text
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.compare.run_metadata import FINISHED_STATUSES
from evaltui.core.decide.comparable import (
    comparability_reasons,
    direction_reason,
    direction_unknown,
)
from evaltui.core.decide.deciding import deciding_line, waiting_for
from evaltui.core.decide.disputes import disputed_items, disputed_reason
from evaltui.core.decide.effect import pair_effect
from evaltui.core.decide.notices import INPUTS_CHANGED, POLICY_CHANGED, STALE_TAGS, Notice
from evaltui.core.decide.other_metrics import other_metrics_regressed
from evaltui.core.decide.tag_lists import RegressionTags, count_by_slice
from evaltui.core.decide.vocabulary import DECIDING, ComposedLine, FirstLine, Reason, shown_reasons
from evaltui.core.policy.tags import CONFIRMED, DEFAULT_MEANINGS, GRADER_ERROR, OPEN, TagMeanings
from evaltui.core.read.runs import ITEM_ID
from evaltui.core.stats.margins import MARGIN_KINDS
from evaltui.core.textsafe import one_line
from evaltui.core.words import format_p, p_is, percent, plural, points

SHOWN_SLICES = 2
SHOWN_GATES = 2  # failed gates named on the first line
# Reasons that say what the decision rests on without asking anything of the reviewer: they
# never make a pair "needs review" on their own.
MARGIN_INFO = ("margin_shown", "regressed_within_margin", "nothing_to_weigh")
# "prompts_differ": said on the first line (what was measured includes the prompt change),
# asks nothing of the reviewer.
INFORMATIONAL = ("grader_errors", "prompts_differ", *MARGIN_INFO)
NO_VERDICT = ("no_verdict", "margin_no_verdict", "direction_unknown")


class Tagged(Protocol):
    """An item's review as the decision reads it: its tag (None: untagged)."""

    @property
    def tag(self) -> str | None: ...


class Review(Protocol):
    """What the decision reads of a review (the journal's `ReviewSession` is one): each
    reviewed item's tag and the notices raised on opening it. Defined here so the decision
    never imports the journal: the review workflow (`record.session`) passes its session."""

    @property
    def items(self) -> Mapping[str, Tagged]: ...

    @property
    def notices(self) -> Sequence[Notice]: ...


@dataclass(frozen=True, eq=False)
class Sensitivity:
    """The same analysis with the items tagged as grader errors removed from both arms."""

    removed: tuple[str, ...]
    analysis: Analysis | None  # None when too few items remain to analyse

    @property
    def line(self) -> str:
        n = len(self.removed)
        what = f"without the {n} grader-error item{'s' if n != 1 else ''}"
        if self.analysis is None:
            return f"{what}: too few items remain to compare"
        return f"{what}: {effect_text(self.analysis)}"


@dataclass(frozen=True, eq=False)
class Decision(ComposedLine):
    """See the module docstring. `line` is the first line on every surface."""

    status: str
    first_line: FirstLine  # the first line in parts: what a surface styles
    reasons: tuple[Reason, ...]
    verdict: str
    by_tag: dict[str, int]  # regressions per tag
    confirmed_by_slice: dict[str, int]
    untriaged: int
    sensitivity: Sensitivity | None

    @property
    def effect(self) -> str:
        """The overall effect as the first line says it."""
        effect = self.first_line.effect
        return effect.text if effect is not None else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "line": self.line,
            "exit_code": self.exit_code,
            "verdict": self.verdict,
            "effect": self.effect,
            "reasons": [
                {
                    "kind": r.kind,
                    "text": r.text,
                    "blocking": r.blocking,
                    "item_ids": list(r.item_ids),
                }
                for r in self.reasons
            ],
            "by_tag": dict(self.by_tag),
            "confirmed_by_slice": dict(self.confirmed_by_slice),
            "untriaged_regressions": self.untriaged,
            "sensitivity": (
                None
                if self.sensitivity is None
                else {
                    "removed": list(self.sensitivity.removed),
                    "line": self.sensitivity.line,
                    "verdict": (
                        self.sensitivity.analysis.verdict
                        if self.sensitivity.analysis is not None
                        else None
                    ),
                }
            ),
        }


def effect_text(analysis: Analysis) -> str:
    """The overall effect with the interval the verdict rests on, and the verdict in words."""
    return pair_effect(analysis).text


def tag_meanings(analysis: Analysis) -> TagMeanings:
    """What the tags mean for this pair: its policy's `[tags]`, else the defaults."""
    return analysis.policy.tag_meanings if analysis.policy is not None else DEFAULT_MEANINGS


def decide_unreviewed(analysis: Analysis, gates: tuple[Any, ...] = ()) -> Decision:
    """The decision from the analysis and the gates alone: no tags, no notices."""
    spec = analysis.spec
    return decide(
        analysis,
        gates,
        None,
        tag_meanings(analysis),
        accept_mismatch=bool(spec is not None and spec.accept_mismatch),
    )


def decide(
    analysis: Analysis,
    gates: tuple[Any, ...],
    session: Review | None,
    meanings: TagMeanings,
    *,
    accept_mismatch: bool = False,
) -> Decision:
    """Fold the analysis, the gates, the reviewer's tags and the notices (`session`: the
    review, None for none) into one decision."""
    reasons: list[Reason] = []
    subject = effect_subject(analysis)
    reasons += comparability_reasons(analysis, accept_mismatch)
    margins = [g for g in gates if g.kind in MARGIN_KINDS]
    failed = [g for g in gates if g.status == "failed" and g.kind not in MARGIN_KINDS]
    if failed:
        names = "; ".join(g.name for g in failed)
        shown = "; ".join(g.name for g in failed[:SHOWN_GATES])
        shown += "; …" if len(failed) > SHOWN_GATES else ""
        reasons.append(
            Reason(
                "gates_failed",
                f"{plural(len(failed), 'release gate')} failed: {names}",
                f"{plural(len(failed), 'gate')} failed ({shown})",
                blocking=True,
                item_ids=tuple(i for g in failed for i in g.item_ids),
            )
        )
    tags = RegressionTags(analysis.regressions, session.items if session is not None else {})
    confirmed = tags.ids(lambda tag: meanings.meaning(tag) == CONFIRMED)
    by_slice = count_by_slice(analysis.paired.items, confirmed)
    if confirmed:
        where = ", ".join(f"{name} {count}" for name, count in list(by_slice.items()))
        shown = ", ".join(list(by_slice)[:SHOWN_SLICES])
        more = "…" if len(by_slice) > SHOWN_SLICES else ""
        reasons.append(
            Reason(
                "confirmed_regressions",
                f"{plural(len(confirmed), 'regression')} tagged as confirmed"
                + (f" (by slice: {where})" if by_slice else ""),
                f"{plural(len(confirmed), 'confirmed regression')}"
                + (f" ({shown}{more})" if by_slice else ""),
                blocking=True,
                item_ids=confirmed,
            )
        )
    reasons += _margin_reasons(margins)
    within = any(g.status == "passed" for g in margins)
    if analysis.verdict == "regressed" and within:
        reasons.append(
            Reason(
                "regressed_within_margin",
                f"the candidate is worse ({effect_text(analysis)}), but by less than the "
                "policy's margin allows",
                "worse, within the margin",
            )
        )
    elif analysis.verdict == "regressed":
        named = f"{subject} " if subject != "overall" else ""
        reasons.append(
            Reason(
                "regressed",
                f"the candidate regressed{' on ' + subject if named else ''}: "
                f"{effect_text(analysis)}",
                f"{named}regressed",
                blocking=True,
            )
        )
    reasons += other_metrics_regressed(analysis)
    decided = any(g.status in ("passed", "failed") for g in margins)
    if analysis.verdict == "insufficient_data" and decided:
        # Only "no item changed" leaves a margin decidable (too few items or clusters leave
        # it undecided too): nothing to weigh for a difference, and the margin decides.
        reasons.append(
            Reason(
                "nothing_to_weigh",
                f"{_no_verdict_text(analysis, subject)}; the margin decides",
                "no item changed",
            )
        )
    elif analysis.verdict == "insufficient_data":
        unknown = direction_unknown(analysis)
        if unknown:  # said whatever else stands in the way: no item is called a regression
            reasons.append(direction_reason(analysis))
        if not unknown or _too_little(analysis):
            # Named metrics: the effect part says "<metric> +0.0 pts, no verdict" already.
            if analysis.too_skewed:
                short = "too skewed for a verdict"
            else:
                short = "no verdict" if subject == "overall" else ""
            reasons.append(Reason("no_verdict", _no_verdict_text(analysis, subject), short))
    reasons += _outcome_mix(analysis)
    untriaged = tags.ids(lambda tag: not meanings.triaged(tag))
    still_open = tags.ids_among(untriaged, lambda tag: meanings.meaning(tag) == OPEN)
    disputed = disputed_reason(disputed_items(untriaged, session.items if session else {}))
    reasons += [disputed] if disputed is not None else []
    if untriaged:
        text = f"{len(untriaged):,} of {plural(len(analysis.regressions), 'regression')} untriaged"
        if still_open:
            text += f" ({len(still_open):,} tagged as still open)"
        reasons.append(
            Reason(
                "untriaged",
                text,
                f"{len(untriaged):,} of {len(analysis.regressions):,} untriaged",
                item_ids=untriaged,
            )
        )
    pending = [g for g in gates if g.status == "pending"]
    if pending:
        reasons.append(
            Reason(
                "gates_pending",
                f"{plural(len(pending), 'gate')} pending: " + "; ".join(g.name for g in pending),
                f"{plural(len(pending), 'gate')} pending",
            )
        )
    reasons += _notices(session)
    reasons += _incomplete_runs(analysis)
    sensitivity = _sensitivity(analysis, session, meanings)
    if sensitivity is not None:
        reasons.append(
            Reason(
                "grader_errors",
                f"{plural(len(sensitivity.removed), 'item')} tagged as grader errors; "
                f"sensitivity analysis {sensitivity.line}",
                f"{plural(len(sensitivity.removed), 'grader error')}",
                item_ids=sensitivity.removed,
            )
        )
    status = status_of(reasons)
    # Blocking reasons first, then the margin's answer (the first line must say it), then
    # the rest.
    ordered = sorted(reasons, key=lambda r: (not r.blocking, not r.kind.startswith("margin_")))
    shorts = list(shown_reasons([r.short for r in ordered if r.short]))
    if analysis.regressions and all(r.kind in MARGIN_INFO for r in reasons):
        shorts.append(f"all {plural(len(analysis.regressions), 'regression')} triaged")
    first_line = FirstLine(status, tuple(shorts), pair_effect(analysis), subject=subject)
    if waiting_for(analysis):  # the interval or the family may still change the verdict
        status, first_line = DECIDING, deciding_line(analysis, reasons)
    by_tag = tags.counts()
    return Decision(
        status=status,
        first_line=first_line,
        reasons=tuple(reasons),
        verdict=analysis.verdict,
        by_tag=by_tag,
        confirmed_by_slice=by_slice,
        untriaged=len(untriaged),
        sensitivity=sensitivity,
    )


def effect_subject(analysis: Analysis) -> str:
    """What the first line's effect is of: "overall" for a pair with one metric, else the
    compared metric's name (its scorer), so no number on the line is read as another's."""
    row = next((r for r in analysis.metrics if r.metric == analysis.metric), None)
    if row is None or len(analysis.metrics) < 2:
        return "overall"
    return row.name


def status_of(reasons: list[Reason]) -> str:
    """The status the reasons make, the first of `vocabulary.STATUSES` that applies."""
    kinds = {r.kind for r in reasons}
    if "not_comparable" in kinds:
        return "not_comparable"
    if any(r.blocking for r in reasons):
        return "blocked"
    if kinds & set(NO_VERDICT):
        return "not_enough_data"
    if not kinds <= set(INFORMATIONAL):
        return "needs_review"
    return "ready"


def _margin_reasons(margins: list[Any]) -> list[Reason]:
    """The policy's margin, answered: shown (said, blocks nothing), not shown (blocks), or no
    answer for want of data (no verdict). A pending one waits with the pending gates."""
    out = []
    for g in margins:
        text = f"{g.name}: {g.detail}"
        short = g.summary or g.name
        if g.status == "failed":
            out.append(Reason("margin_not_shown", text, short, blocking=True))
        elif g.status == "undecided":
            out.append(Reason("margin_no_verdict", text, short))
        elif g.status == "passed":
            out.append(Reason("margin_shown", text, short))
    return out


def _incomplete_runs(analysis: Analysis) -> list[Reason]:
    out = []
    for arm, run in (
        ("baseline", analysis.paired.baseline),
        ("candidate", analysis.paired.candidate),
    ):
        status = run.metadata.get("run_status")
        if status is not None and status not in FINISHED_STATUSES:
            out.append(
                Reason(
                    "run_incomplete",
                    f"the {arm} log's run status is {status!r}: it may be incomplete",
                    f"{arm} run {status}",
                )
            )
    return out


def _notices(session: Review | None) -> list[Reason]:
    if session is None:
        return []
    words = {
        INPUTS_CHANGED: "input changed",
        STALE_TAGS: "tags stale",
        POLICY_CHANGED: "policy changed",
    }
    return [
        Reason(notice.kind, notice.text, words[notice.kind])
        for notice in session.notices
        if notice.kind in words
    ]


SHOWN_CATEGORIES = 2  # categories named on the first line when the outcome mix moved


def _outcome_mix(analysis: Analysis) -> list[Reason]:
    """The outcome categories moved (Stuart-Maxwell rejects at the analysis alpha): the
    verdict is the metric's, but a pass rate that held while refusals replaced wrong answers
    is a different model, so the first line names the categories that moved most."""
    c = getattr(analysis, "categorical", None)
    if c is None or not c.rejects:
        return []
    t = c.test
    p = format_p(t.p_value)
    moved = c.moved_most()
    short = ", ".join(
        f"{one_line(m.level, 24)} {points(m.delta)} pts" for m in moved[:SHOWN_CATEGORIES]
    )
    details = "; ".join(
        f"{one_line(m.level, 60)} {percent(m.baseline_share)} → {percent(m.candidate_share)} "
        f"({points(m.delta)} pts [{points(m.ci.lower)}, {points(m.ci.upper)}], "
        f"adjusted p {p_is(m.p_adjusted)})"
        for m in moved
    )
    if c.family_label:  # one pair of several runs: the p that decided is the adjusted one
        p = f"{p}, adjusted over the {c.family_label} {format_p(c.p_family)}"
    text = (
        f"the mix of outcomes changed (Stuart-Maxwell chi² = {t.statistic:.2f} on {t.df} df, "
        f"p = {p}, below alpha {c.alpha:g}): {details}"
    )
    if t.note:
        text += f"; {t.note}"
    return [Reason("outcome_mix", text, f"outcome mix changed (Stuart-Maxwell p = {p}): {short}")]


def _too_little(analysis: Analysis) -> bool:
    """Too few items or clusters, or no change: no verdict whatever the direction."""
    return bool({"small_n", "all_zero", "no_discordant", "too_few_clusters"} & set(analysis.flags))


def _no_verdict_text(analysis: Analysis, subject: str) -> str:
    """Why there is no verdict on the compared metric (`subject`, "overall" for a pair with
    one metric)."""
    flags = set(analysis.flags)
    c = analysis.clusters
    if "too_few_clusters" in flags and c is not None:  # only the clusters raise this flag
        return (
            f"only {c.labelled_clusters} clusters: too few for any cluster-aware interval "
            "to be trusted, so there is no verdict"
        )
    if "no_discordant" in flags or "all_zero" in flags:
        return nothing_changed_words(subject)
    if analysis.too_skewed and analysis.mean_check is not None:
        return f"{analysis.mean_check.reason}. {sign_test_text(analysis)}"
    return f"only {analysis.paired.n} paired items: counts only, no verdict"


NOTHING_CHANGED = "no item changed: nothing to weigh, so there is no verdict"


def nothing_changed_words(subject: str) -> str:
    """The no-verdict reason of a compared metric on which no item changed: on a pair of
    several metrics the metric is named. Unnamed, it stood under another metric's regression
    ("the candidate regressed on safe_advice: ...", then "no item changed: nothing to weigh")
    and read as if no item of the pair had changed. A record written before keeps its words
    (`verify/rebuild.py`)."""
    if subject == "overall":
        return NOTHING_CHANGED
    return f"no item changed on {subject}: nothing to weigh, so there is no verdict on it"


def _sensitivity(
    analysis: Analysis, session: Review | None, meanings: TagMeanings
) -> Sensitivity | None:
    """The analysis without the discordant items tagged as grader errors (both arms)."""
    if session is None:
        return None
    items = session.items
    errors = {i for i, review in items.items() if meanings.meaning(review.tag) == GRADER_ERROR}
    if not errors:  # (most reviews: no walk over the 226,354 discordant ids of a 1M pair)
        return None
    removed = tuple(i for i in (*analysis.regressions, *analysis.improvements) if i in errors)
    if not removed:
        return None
    paired = analysis.paired
    keep = paired.items.filter(
        ~pl.col(ITEM_ID).is_in(pl.Series(list(removed), dtype=pl.String).implode())
    )
    if keep.height < 2:
        return Sensitivity(removed, None)
    again = analyze(replace(paired, items=keep), analysis.options, clusters=analysis.clusters_done)
    return Sensitivity(removed, again)
