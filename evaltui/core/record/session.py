"""The review workflow the CLI and the app share: open a review, decide if an approval overrides.

Opening a review is more than loading two files: the pair's journal is resumed (and locked),
the policy in force is journalled (a changed policy is a notice), and tags whose items changed
outcome since they were made are named. The override rule says what an approval would be
approved over (untriaged regressions, failed gates) and refuses it without a reason. Both live
here once, so the headless commands and the app cannot drift apart.
"""

from __future__ import annotations

import getpass
import os
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaltui.core.analysis.pair import item_values
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.decide.disputes import approval_refusal, disputed_items
from evaltui.core.decide.notices import STALE_TAGS, Notice
from evaltui.core.decide.pair import Decision, decide, tag_meanings
from evaltui.core.errors import UsageError
from evaltui.core.policy.tags import CONFIRMED
from evaltui.core.read.runs import RunSource
from evaltui.core.record.adjudication import (
    ADJUDICATOR_RULE,
    adjudicators_from_env,
    check_adjudicator,
)
from evaltui.core.record.journal import ReviewSession
from evaltui.core.record.lock_holder import Holder
from evaltui.core.record.shared import review_dir_from_env

if TYPE_CHECKING:  # (three or more runs: imported when their matrix is judged)
    from evaltui.core.analysis.run_set import RunSetAnalysis
    from evaltui.core.decide.run_set import RunSetDecision


def start_review(
    analysis: Analysis,
    *,
    tags: tuple[str, ...] | None = None,
    fresh: bool = False,
    read_only: bool = False,
    state_root: Path | None = None,
    reviewer: str | None = None,
    end_holder: Holder | None = None,
    review_dir: Path | None = None,
) -> ReviewSession:
    """The pair's review session, resumed or started, with its notices filled in.

    `read_only` (headless reports) reads the journal if there is one and never writes or locks.
    Tags and notes made in it are journalled as `reviewer_identity(reviewer)`'s. `end_holder`:
    the live evaltui holding the pair, which the user chose to end and take over from.
    `review_dir` (else $EVALTUI_REVIEW_DIR, else none): a shared review folder, where this
    reviewer writes their own journal and every reviewer's is read, merged (`shared.py`).
    """
    paired = analysis.paired
    who = reviewer_identity(reviewer)
    shared = review_dir if review_dir is not None else review_dir_from_env()
    sources = (paired.baseline.source, paired.candidate.source)
    if shared is not None:  # a team's folder is named by the sha256: never by a deferred one
        sources = tuple(_hashed(source) for source in sources)  # type: ignore[assignment]
    session = ReviewSession.open(
        Path(paired.baseline.source.path),
        Path(paired.candidate.source.path),
        sources[0].sha256,
        sources[1].sha256,
        tags=tags,
        root=state_root,
        fresh=fresh,
        read_only=read_only,
        end_holder=end_holder,
        review_dir=shared,
        reviewer=who,
    )
    recorded = (session.info.baseline_sha256, session.info.candidate_sha256)
    if any(then and not source.sha256 for then, source in zip(recorded, sources, strict=True)):
        # Tags made on known bytes, inputs whose hash the app deferred: hashed now, so the
        # first decision shown already says whether a file changed since the tags
        # (a first open, or a journal without hashes, does not wait).
        try:
            now = tuple(_hashed(source).sha256 for source in sources)
        except BaseException:
            session.close()
            raise
        session.record_inputs(*now)
    session.reviewer = who
    settle_by_policy(analysis, session)
    add_review_notices(analysis, session)
    return session


def _hashed(source: RunSource) -> RunSource:
    """`source` with its sha256, computed now if it was deferred (refused, naming the file, if
    the file changed since it was read)."""
    if source.sha256:
        return source
    from evaltui.core.read.formats.scan_cache import confirm

    return confirm(source)


def settle_by_policy(analysis: Analysis, session: ReviewSession) -> None:
    """The policy's dispute rule (`[review] dispute_rule`) and confirmed tags applied to the
    session's merged review (`adjudication.py`); verify applies them the same way."""
    policy = analysis.policy
    rule = policy.dispute_rule if policy is not None else ADJUDICATOR_RULE
    session.settle_disputes_by(rule, tag_meanings(analysis).confirmed)


def adjudicators_of(analysis: Analysis) -> tuple[str, ...]:
    """Who may settle a dispute: the command line's `--adjudicator` names, then the policy's
    `[review] adjudicators`."""
    policy = analysis.policy
    named = (*adjudicators_from_env(), *(policy.adjudicators if policy is not None else ()))
    return tuple(dict.fromkeys(named))


def adjudicate(
    analysis: Analysis, session: ReviewSession, item_id: str, tag: str, reason: str
) -> Any:
    """An adjudicator settles a disputed regression (the app's key and `evaltui adjudicate`
    both come here): refused, in one line, for someone who is not an adjudicator, an item that
    is not a regression, or one that is not disputed (nor settled before)."""
    check_settleable(analysis, session, item_id)
    return session.adjudicate(item_id, tag, reason)


def check_settleable(analysis: Analysis, session: ReviewSession, item_id: str) -> None:
    """Raise a one-line UsageError unless the session's reviewer is an adjudicator and
    `item_id` a disputed regression (or one settled before, which a new adjudication
    replaces)."""
    check_adjudicator(session.reviewer, adjudicators_of(analysis))
    if item_id not in set(analysis.regressions):
        raise UsageError(f"{item_id!r} is not a regression of this pair: nothing to settle")
    review = session.review(item_id)
    if not review.disputed and review.adjudication is None:
        raise UsageError(
            f"{item_id!r} is not disputed (its reviewers' tags agree, or it has one review): "
            "nothing to settle"
        )


def add_review_notices(analysis: Analysis, session: ReviewSession) -> None:
    """The notices a review raises on opening: a changed policy (journalled unless read-only)
    and tagged items whose outcome moved. `verify` raises them the same way for a record."""
    if analysis.policy is not None:
        changed = session.use_policy(analysis.policy.hash, analysis.policy.source_path)
        if changed is not None:
            session.notices.append(changed)
    stale = stale_notice(analysis, session)
    if stale is not None:
        session.notices.append(stale)


REVIEWER_VARIABLE = "EVALTUI_REVIEWER"


def reviewer_identity(explicit: str | None = None) -> str:
    """Who is reviewing: `--reviewer`, else $EVALTUI_REVIEWER, else `git config user.name`,
    else the login name; "" when none of them says (a container with no user)."""
    for candidate in (explicit, os.environ.get(REVIEWER_VARIABLE)):
        if candidate and candidate.strip():
            return candidate.strip()
    try:
        done = subprocess.run(
            ["git", "config", "user.name"],
            capture_output=True,
            text=True,
            timeout=2,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass  # no git here: the login name follows
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return ""


def evaluate_policy_gates(analysis: Analysis, session: ReviewSession | None) -> tuple:
    """The policy's gates on this pair and these tags (empty without a policy)."""
    if analysis.policy is None:
        return ()
    from evaltui.core.decide.gates import evaluate_gates

    return evaluate_gates(analysis.policy, analysis.paired, analysis, session)


def decide_review(
    analysis: Analysis, gates: tuple[Any, ...], session: ReviewSession | None
) -> Decision:
    """The decision for this pair now: its analysis, gates, tags and notices (see decision.py)."""
    spec = analysis.spec
    return decide(
        analysis,
        gates,
        session,
        tag_meanings(analysis),
        accept_mismatch=bool(spec is not None and spec.accept_mismatch),
    )


def judge_review(analysis: Analysis, session: ReviewSession) -> tuple[tuple[Any, ...], Decision]:
    """The gates and the decision for this analysis and these tags (seconds at a million
    items: the app calls it in a worker)."""
    gates = evaluate_policy_gates(analysis, session)
    return gates, decide_review(analysis, gates, session)


def judge_run_set(
    run_set: RunSetAnalysis,
    sessions: dict[tuple[int, int], ReviewSession] | None = None,
    state_root: Path | None = None,
) -> RunSetDecision:
    """The run set's decision now: each baseline pair judged with its gates and tags
    (`sessions` maps a pair to its review session; a missing one is opened read-only, from
    `state_root` when given, else from the default state folder), then folded into one."""
    decided = []
    for pair in run_set.baseline_pairs:
        session = (sessions or {}).get((pair.baseline, pair.candidate))
        opened = session is None
        if session is None:
            session = start_review(pair.analysis, read_only=True, state_root=state_root)
        try:
            _gates, decision = judge_review(pair.analysis, session)
        finally:
            if opened:
                session.close()
        decided.append((pair, decision))
    from evaltui.core.decide.run_set import decide_run_set

    return decide_run_set(run_set, decided)


def untriaged_regressions(analysis: Analysis, session: ReviewSession) -> list[str]:
    """Regressions with no tag, or with a tag that leaves them open ("needs investigation")."""
    meanings = tag_meanings(analysis)
    items = session.items  # (an untagged item has no entry: `review` would build one per id)
    if not items:
        return list(analysis.regressions)
    triaged = meanings.triaged
    return [i for i in analysis.regressions if (r := items.get(i)) is None or not triaged(r.tag)]


@dataclass(frozen=True)
class Override:
    """What approving this pair now would approve over; nothing, when `needed` is False."""

    regressions: int  # all regressions of the pair
    untriaged: tuple[str, ...]  # their ids
    failed_gates: tuple[str, ...]  # gate names
    confirmed: tuple[str, ...] = ()  # regressions tagged as confirmed
    regressed: bool = False  # the verdict itself says the candidate regressed
    regressed_metrics: tuple[str, ...] = ()  # other metrics (scorers) that regressed and block
    # The compared scorer's name when it regressed and the pair has several ("" otherwise, and
    # in records written before it was said): the words name the scorer overridden.
    regressed_scorer: str = ""
    disputed: tuple[str, ...] = ()  # regressions whose reviewers disagree (never overridden)

    @property
    def needed(self) -> bool:
        return bool(
            self.untriaged
            or self.failed_gates
            or self.confirmed
            or self.regressed
            or self.regressed_metrics
        )

    def problems(self) -> list[str]:
        """Each thing being overridden, in plain words with its count."""
        out = []
        if self.failed_gates:
            out.append(
                f"{len(self.failed_gates)} release gate(s) failed ({', '.join(self.failed_gates)})"
            )
        if self.confirmed:
            out.append(f"{len(self.confirmed)} regression(s) are tagged as confirmed")
        if self.regressed and self.regressed_scorer:
            out.append(
                f"the candidate regressed on {self.regressed_scorer} (the interval lies below zero)"
            )
        elif self.regressed:
            out.append("the candidate regressed (the interval lies below zero)")
        if self.regressed_metrics:
            out.append(
                "the candidate regressed on "
                + ", ".join(self.regressed_metrics)
                + " (another metric of the pair; its interval lies below zero)"
            )
        if self.untriaged:
            out.append(f"{len(self.untriaged)} of {self.regressions} regressions are untriaged")
        return out

    def refusal(self, how: str) -> str:
        """Why an approval without a reason is refused; `how` says where to give the reason."""
        return "; ".join(self.problems()) + f"; approving anyway needs an override reason ({how})"


class OverrideRequired(UsageError):
    """An approval over untriaged regressions or failed gates was given no reason."""

    def __init__(self, override: Override) -> None:
        super().__init__(override.refusal("--override-reason TEXT"))
        self.override = override


def override_for(analysis: Analysis, session: ReviewSession, gates: tuple[Any, ...]) -> Override:
    from evaltui.core.decide.gates import margin_accepts_regression

    meanings = tag_meanings(analysis)
    confirmed = tuple(
        i for i in analysis.regressions if meanings.meaning(session.review(i).tag) == CONFIRMED
    )
    regressed = analysis.verdict == "regressed" and not margin_accepts_regression(gates)
    compared = next((r.name for r in analysis.metrics if r.metric == analysis.metric), "")
    several = len(analysis.metrics) > 1
    return Override(
        regressions=len(analysis.regressions),
        untriaged=tuple(untriaged_regressions(analysis, session)),
        failed_gates=tuple(g.name for g in gates if g.status == "failed"),
        confirmed=confirmed,
        # A margin the policy states and the data show: worse, by less than it allows.
        regressed=regressed,
        regressed_scorer=compared if regressed and several else "",
        regressed_metrics=blocking_regressions(
            (r.metric, r.name, r.role, r.verdict)
            for r in analysis.metrics
            if r.metric != analysis.metric and r.in_family
        ),
        disputed=disputed_items(analysis.regressions, session.items),
    )


def blocking_regressions(rows: Iterable[tuple[str, str, str, str]]) -> tuple[str, ...]:
    """The names of the metrics, of (metric, name, role, verdict) rows other than the compared
    one, whose regression blocks: what an approval must override, naming each."""
    return tuple(
        name for _, name, role, verdict in rows if role == "decides" and verdict == "regressed"
    )


def check_override(decision: str, override_reason: str | None, override: Override) -> bool:
    """True when this decision overrides something (and has the reason it needs); raises
    `OverrideRequired` when an approval overrides without one, and refuses an approval while
    a regression is disputed whatever the reason (a dispute is settled, never overridden)."""
    if decision == "approve" and override.disputed:
        raise UsageError(approval_refusal(len(override.disputed)))
    overriding = decision == "approve" and override.needed
    if overriding and not (override_reason or "").strip():
        raise OverrideRequired(override)
    return overriding


def stale_notice(analysis: Analysis, session: Any) -> Notice | None:
    """After an input file changed: which tagged items now show a different outcome."""
    if not session.inputs_changed:
        return None
    tagged = [i for i, r in session.items.items() if r.tag is not None]
    stale = session.stale_items(item_values(analysis, tagged))
    if not stale:
        return None
    shown = ", ".join(
        f"{i} ({_pair_text(then)} -> {_pair_text(now)})" for i, then, now in stale[:5]
    )
    more = f" and {len(stale) - 5} more" if len(stale) > 5 else ""
    return Notice(
        STALE_TAGS, f"{len(stale)} tagged item(s) changed outcome since tagging: {shown}{more}"
    )


def _pair_text(values: Any) -> str:
    if values is None:
        return "gone"
    return "/".join(
        ("pass" if v >= 1.0 else "fail") if isinstance(v, float) and v in (0.0, 1.0) else f"{v:g}"
        for v in values
    )
