"""The Design contract: what every way of comparing runs does, and the registry of the four.

A design is a way of comparing: the two runs of a pair (`pair`), three or more runs of the same
items (`run_set`), two runs of different items (`independent`) and a judge's preferences
(`preference`). Each one analyses its inputs, decides (in the words of `decide.vocabulary`),
and reports as data, Markdown and text, and as CI findings (the JUnit file, the Actions
annotations and job summary: `report.findings`); the pair and the run set also sign off and
verify a record. The CLI's `report`, `signoff` and `verify` look a design up here and call it
instead of branching on the design, so a new design is one class here and its stage modules.

The methods import their stage modules when called: `evaltui --help` stays instant, and the
test suite's schema checks (tests/conftest.py wraps the report and record builders) see every
report a design makes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from evaltui.core.analysis.step_progress import Progress
from evaltui.core.errors import UsageError

Warn = Callable[[str], None]  # where a design says what the reviewer must read (notices)
TeamOptions = tuple[str | None, int | None]  # --reviewers TEXT, --reviews-per-item K (or None)
NO_TEAM: TeamOptions = (None, None)

NO_PAIRS = (
    "{what} reviews item pairs, and an independent (unpaired) comparison has none to triage: "
    "use evaltui report BASE CAND --design independent (its decision is at best needs review)"
)


@dataclass(frozen=True, eq=False)
class Decided:
    """A design's analysis and its decision (the pair's also keeps the gates it evaluated):
    what every report form of that design renders."""

    analysis: Any
    decision: Any  # has status, first_line, line, exit_code and reasons
    gates: tuple[Any, ...] | None = None
    # The pair's reviewers' agreement block (`report.agreement.agreement_dict`), for its reports.
    agreement: dict[str, Any] | None = None
    review: dict[str, Any] | None = None  # a team's review (`record.team_view.team_review`)


class Design(Protocol):
    """What the CLI and the app may ask of any design."""

    name: str  # "pair", "run_set", "independent", "preference": one name everywhere
    signs_off: bool  # whether a reviewer signs off on it (a record, then `verify`)

    def refusal(self, what: str) -> str:
        """Why `what` (a sign-off, the review app) does not apply ("" when it does)."""
        ...

    def analyse(self, spec: Any, progress: Progress | None = None) -> Any: ...

    def decide(
        self, analysis: Any, state_root: Path | None = None, team: TeamOptions = NO_TEAM
    ) -> Decided:
        """The decision now, with the tags in the design's review journals (read only).
        `team`: the command line's `--reviewers` and `--reviews-per-item` (a pair's report
        lists each reviewer's share; they win over the policy's `[review]` table)."""
        ...

    def report_dict(self, decided: Decided) -> dict[str, Any]: ...

    def report_markdown(self, decided: Decided) -> str: ...

    def report_text_lines(self, decided: Decided) -> list[str] | None:
        """The plain-text report; None when the terminal renders it itself (with Rich)."""
        ...

    def findings(self, decided: Decided) -> Any:
        """The decision and its items as CI findings (`report.findings.Findings`): what the
        JUnit file, the Actions annotations and the job summary's regressions are written from."""
        ...

    def sign_off(
        self, analysis: Any, reviewer_decision: Any, prefix: str | Path, warn: Warn
    ) -> tuple[Path, ...]:
        """Write the record (JSON, Markdown, CSV) from the review journals; the paths."""
        ...

    def verify(
        self, record: dict[str, Any], paths: Sequence[Path] | None, progress: Progress | None = None
    ) -> Any:
        """Check a record of this design (with the files: that they replay to it), saying how
        far it is to `progress` (the inputs' hashes, the rebuild's read, its cost comparison)."""
        ...


class _NoSignOff:
    """The refusal of a design that has no item pairs to triage: no record, nothing to
    verify. The words are the ones `evaltui signoff --design independent` has always said."""

    signs_off = False

    def refusal(self, what: str) -> str:
        return NO_PAIRS.format(what=what)

    def sign_off(
        self, analysis: Any, reviewer_decision: Any, prefix: str | Path, warn: Warn
    ) -> tuple[Path, ...]:
        raise UsageError(self.refusal("evaltui signoff"))

    def verify(
        self, record: dict[str, Any], paths: Sequence[Path] | None, progress: Progress | None = None
    ) -> Any:
        raise UsageError(self.refusal("evaltui verify"))


class PairDesign:
    """Two runs of the same items, compared item by item."""

    name = "pair"
    signs_off = True

    def refusal(self, what: str) -> str:
        return ""

    def analyse(self, spec: Any, progress: Progress | None = None) -> Any:
        from evaltui.core.analysis.pipeline import compare

        return compare(spec, progress=progress)

    def decide(
        self, analysis: Any, state_root: Path | None = None, team: TeamOptions = NO_TEAM
    ) -> Decided:
        from evaltui.core.record.assignment import team_of
        from evaltui.core.record.session import (
            decide_review,
            evaluate_policy_gates,
            start_review,
        )
        from evaltui.core.record.team_review import discordant_ids, review_agreement
        from evaltui.core.record.team_view import team_review
        from evaltui.core.report.agreement import agreement_dict

        stated = team_of(*team, analysis.policy)  # (a bad list: refused before any reading)
        session = start_review(analysis, read_only=True, state_root=state_root)
        try:
            gates = evaluate_policy_gates(analysis, session) if analysis.policy else None
            decision = decide_review(analysis, gates or (), session)
            agreement = agreement_dict(review_agreement(session, discordant_ids(analysis)))
            review = team_review(analysis.regressions, session, stated)
        finally:
            session.close()
        return Decided(analysis, decision, gates, agreement, review)

    def report_dict(self, decided: Decided) -> dict[str, Any]:
        from evaltui.core.report.pair import report_dict

        return report_dict(
            decided.analysis, decided.gates, decided.decision, decided.review, decided.agreement
        )

    def report_markdown(self, decided: Decided) -> str:
        from evaltui.core.report.pair_markdown import report_markdown

        return report_markdown(
            decided.analysis,
            gates=decided.gates,
            decision=decided.decision,
            review=decided.review,
            agreement=decided.agreement,
        )

    def report_text_lines(self, decided: Decided) -> list[str] | None:
        return None  # cli/render.py draws the pair's tables with Rich

    def findings(self, decided: Decided) -> Any:
        from evaltui.core.report.findings import findings_of, pair_suites

        return findings_of(decided.decision, pair_suites(decided.analysis))

    def sign_off(
        self, analysis: Any, reviewer_decision: Any, prefix: str | Path, warn: Warn
    ) -> tuple[Path, ...]:
        from evaltui.core.record import signoff
        from evaltui.core.record.session import start_review

        session = start_review(analysis, reviewer=reviewer_decision.reviewer or None)
        try:
            if session.took_over:  # its holder's process or terminal was gone
                warn(session.took_over)
            for notice in session.notices:
                warn(notice.text)
            record = signoff.build_record(analysis, session, reviewer_decision)
            json_path, md_path = signoff.write_record(record, analysis, prefix)
        finally:
            session.close()
        return json_path, md_path, json_path.with_suffix(".csv")

    def verify(
        self, record: dict[str, Any], paths: Sequence[Path] | None, progress: Progress | None = None
    ) -> Any:
        from evaltui.core.verify.pair import verify_record

        base, cand = (paths[0], paths[1]) if paths else (None, None)
        return verify_record(record, base, cand, progress)


class IndependentDesign(_NoSignOff):
    """Two runs of different items, compared as independent samples."""

    name = "independent"

    def analyse(self, spec: Any, progress: Progress | None = None) -> Any:
        from evaltui.core.analysis.pipeline import compare_design

        return compare_design(spec, progress=progress)

    def decide(
        self, analysis: Any, state_root: Path | None = None, team: TeamOptions = NO_TEAM
    ) -> Decided:
        from evaltui.core.decide.independent import decide_independent

        spec = analysis.spec
        accept = bool(spec is not None and spec.accept_mismatch)
        return Decided(analysis, decide_independent(analysis, accept_mismatch=accept))

    def report_dict(self, decided: Decided) -> dict[str, Any]:
        from evaltui.core.report.independent import independent_report_dict

        return independent_report_dict(decided.analysis, decided.decision)

    def report_markdown(self, decided: Decided) -> str:
        from evaltui.core.report.independent import independent_report_markdown

        return independent_report_markdown(decided.analysis, decided.decision)

    def report_text_lines(self, decided: Decided) -> list[str] | None:
        return None  # cli/render.py draws the arms' table with Rich

    def findings(self, decided: Decided) -> Any:
        """The decision only: independent samples have no item pairs to list."""
        from evaltui.core.report.findings import findings_of

        return findings_of(decided.decision)


class RunSetDesign:
    """Three or more runs of the same items: every pair, adjusted over the family."""

    name = "run_set"
    signs_off = True

    def refusal(self, what: str) -> str:
        return ""

    def analyse(self, spec: Any, progress: Progress | None = None) -> Any:
        from evaltui.core.analysis.run_set import compare_runs

        return compare_runs(spec, progress=progress)

    def decide(
        self, analysis: Any, state_root: Path | None = None, team: TeamOptions = NO_TEAM
    ) -> Decided:
        from evaltui.core.record.session import judge_run_set

        return Decided(analysis, judge_run_set(analysis, state_root=state_root))

    def report_dict(self, decided: Decided) -> dict[str, Any]:
        from evaltui.core.report.run_set import run_set_report_dict

        return run_set_report_dict(decided.analysis, decided.decision)

    def report_markdown(self, decided: Decided) -> str:
        from evaltui.core.report.run_set import run_set_lines

        return "\n".join(run_set_lines(decided.analysis, decided.decision, md=True))

    def report_text_lines(self, decided: Decided) -> list[str] | None:
        from evaltui.core.report.run_set import run_set_lines

        return run_set_lines(decided.analysis, decided.decision, md=False)

    def findings(self, decided: Decided) -> Any:
        """The decision, then each baseline pair's suites named after its candidate."""
        from evaltui.core.report.findings import findings_of, run_set_suites

        suites = run_set_suites(decided.decision, decided.analysis.names)
        return findings_of(decided.decision, suites)

    def sign_off(
        self, analysis: Any, reviewer_decision: Any, prefix: str | Path, warn: Warn
    ) -> tuple[Path, ...]:
        from evaltui.core.record.run_set_signoff import build_run_set_record, write_run_set_record
        from evaltui.core.record.session import start_review

        sessions = {}
        try:
            for pair in analysis.baseline_pairs:
                session = start_review(pair.analysis, reviewer=reviewer_decision.reviewer or None)
                sessions[(pair.baseline, pair.candidate)] = session
                for notice in session.notices:
                    warn(f"{analysis.names[pair.candidate]}: {notice.text}")
            record = build_run_set_record(analysis, sessions, reviewer_decision)
            return tuple(write_run_set_record(record, analysis, prefix))
        finally:
            for session in sessions.values():
                session.close()

    def verify(
        self, record: dict[str, Any], paths: Sequence[Path] | None, progress: Progress | None = None
    ) -> Any:
        from evaltui.core.verify.run_set import verify_run_set_record

        return verify_run_set_record(record, list(paths) if paths else None, progress)


class PreferenceDesign(_NoSignOff):
    """A judge's per-item preferences between systems: win rates and Bradley-Terry."""

    name = "preference"

    def refusal(self, what: str) -> str:
        return f"{what} reviews runs; a preference file has no items to triage"

    def analyse(self, spec: Any, progress: Progress | None = None) -> Any:
        """`spec` is (the preference file's path, `PreferenceOptions`)."""
        from evaltui.core.analysis.preference import analyze_preferences
        from evaltui.core.read.formats.preference import read_preferences

        path, options = spec
        return analyze_preferences(read_preferences(path), options)

    def decide(
        self, analysis: Any, state_root: Path | None = None, team: TeamOptions = NO_TEAM
    ) -> Decided:
        from evaltui.core.decide.preference import decide_preferences

        return Decided(analysis, decide_preferences(analysis))

    def report_dict(self, decided: Decided) -> dict[str, Any]:
        from evaltui.core.report.preference import preference_report_dict

        return preference_report_dict(decided.analysis, decided.decision)

    def report_markdown(self, decided: Decided) -> str:
        from evaltui.core.report.preference import preference_report_markdown

        return preference_report_markdown(decided.analysis, decided.decision)

    def report_text_lines(self, decided: Decided) -> list[str] | None:
        from evaltui.core.report.preference import preference_report_text

        return preference_report_text(decided.analysis, decided.decision).split("\n")

    def findings(self, decided: Decided) -> Any:
        """The decision only: a judge's preferences name no regressed items."""
        from evaltui.core.report.findings import findings_of

        return findings_of(decided.decision)


PAIR = PairDesign()
INDEPENDENT = IndependentDesign()
RUN_SET = RunSetDesign()
PREFERENCE = PreferenceDesign()
DESIGNS: dict[str, Design] = {d.name: d for d in (PAIR, RUN_SET, INDEPENDENT, PREFERENCE)}


def design_named(name: str) -> Design:
    """The design called `name` (UsageError naming the designs otherwise)."""
    try:
        return DESIGNS[name]
    except KeyError:
        raise UsageError(f"no design {name!r}; designs: {', '.join(DESIGNS)}") from None


def design_for_runs(runs: int, design_option: str = "paired") -> Design:
    """The design the command line names: three or more runs are a run set; two runs are a
    pair unless `--design independent` (with `--design auto` the analysis chooses:
    `design_of`)."""
    if runs >= 3:
        return RUN_SET
    return INDEPENDENT if design_option == "independent" else PAIR


def design_of(analysis: Any) -> Design:
    """The design an analysis belongs to (`--design auto` learns it from `compare_design`)."""
    from evaltui.core.analysis.independent import IndependentAnalysis
    from evaltui.core.analysis.preference import PreferenceAnalysis
    from evaltui.core.analysis.run_set import RunSetAnalysis

    if isinstance(analysis, IndependentAnalysis):
        return INDEPENDENT
    if isinstance(analysis, RunSetAnalysis):
        return RUN_SET
    if isinstance(analysis, PreferenceAnalysis):
        return PREFERENCE
    return PAIR


def design_of_record(record: dict[str, Any]) -> Design:
    """The design whose sign-off wrote `record` (by its schema)."""
    from evaltui.core.record.run_set_signoff import RUN_SET_SIGNOFF_SCHEMA

    return RUN_SET if record.get("schema") == RUN_SET_SIGNOFF_SCHEMA else PAIR
