"""The headless commands `report`, `signoff`, `verify` and `prefer`, dispatched on the design.

Each command picks its design from the arguments (`core.designs`: two runs are a pair or, by
`--design` and what the runs hold, an independent comparison; three or more a run set; `prefer
FILE` a judge's preferences) and calls the design's methods; nothing here branches on the design.
What a command prints first is the design's decision line, and its exit code is the decision's
(0 ready or needs review, 1 blocked, 4 no verdict); a record's verification exits 0 or 1.
Whatever they print that quotes the runs goes through `run_text.print_run_text` (inert to a
GitHub Actions runner).

The argument parser and the translation of arguments to a comparison spec live in the parser
module; `cli.main` hands them in (`SpecOf`), so this module never imports it back.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaltui.cli.run_text import print_run_text
from evaltui.core.report.id_cap import DEFAULT_IDS, cap_id_lists
from evaltui.core.textsafe import inert_json

EXIT_OK = 0
EXIT_NOT_VERIFIED = 1
SpecOf = Callable[[argparse.Namespace], Any]  # the arguments -> their CompareSpec


def _warn(text: str) -> None:
    from evaltui.cli.errors import message_line  # (one inert line; defused in Actions)

    sys.stderr.write(f"evaltui: warning: {message_line(text)}\n")


def load_analysis(
    args: argparse.Namespace, spec_of: SpecOf, *, any_design: bool = False, costs: bool = False
) -> tuple[Any, Any]:
    """Load, pair and analyse the two runs the arguments name: the design and its analysis.
    `any_design` (the report) lets `--design independent|auto` compare two runs of different
    items; the sign-off always pairs them."""
    from evaltui.cli.progress_line import terminal_progress
    from evaltui.core.designs import PAIR, design_of

    spec = spec_of(args)
    with terminal_progress() as progress:
        if any_design and spec.design != "paired":  # the paired path stays the one it was
            from evaltui.core.analysis.pipeline import compare_design

            analysis = compare_design(spec, progress=progress)
            return design_of(analysis), analysis
        analysis = PAIR.analyse(spec, progress)
        if costs:  # (the report and the record print them: computed while the line says so)
            from evaltui.core.analysis.cost import compare_costs_said

            compare_costs_said(analysis.paired, progress)
        return PAIR, analysis


def load_run_set(args: argparse.Namespace, spec_of: SpecOf) -> tuple[Any, Any]:
    """Load the three or more runs the arguments name and compare every pair."""
    from evaltui.cli.progress_line import terminal_progress
    from evaltui.core.analysis.run_set import RunSetSpec, refuse_lookalike_run_names
    from evaltui.core.designs import RUN_SET
    from evaltui.core.errors import UsageError

    if Path(args.baseline).is_dir():
        raise UsageError(
            f"{args.baseline} is a folder: with three or more runs give each run's file"
        )
    spec = RunSetSpec.of(spec_of(args), args.more)
    refuse_lookalike_run_names(spec.runs, getattr(args, "allow_lookalike_names", False))
    with terminal_progress() as progress:
        return RUN_SET, RUN_SET.analyse(spec, progress)


def _load(args: argparse.Namespace, spec_of: SpecOf, pair_spec_of: SpecOf, **kw: Any) -> Any:
    if getattr(args, "more", None):
        return load_run_set(args, spec_of)
    return load_analysis(args, pair_spec_of, **kw)


def print_report(design: Any, decided: Any, form: str, ids: int | None = None) -> int:
    """The report in `form` (text, markdown, json), led by the decision; its exit code. `ids`:
    the most ids a JSON list of items holds (`--ids`; None: all of them)."""
    if form == "json":
        sys.stdout.write(inert_json(cap_id_lists(design.report_dict(decided), ids)) + "\n")
    elif form == "markdown":
        sys.stdout.write(design.report_markdown(decided))
    else:
        lines = design.report_text_lines(decided)
        if lines is None:  # the design's tables are drawn with Rich
            from evaltui.cli.render import print_report as render

            render(
                decided.analysis,
                gates=decided.gates,
                decision=decided.decision,
                review=decided.review,
            )
            from evaltui.core.report.agreement import agreement_text_lines, has_reviews

            if decided.agreement is not None and has_reviews(decided.agreement):
                sys.stdout.write("\n".join(agreement_text_lines(decided.agreement)) + "\n")
        else:
            sys.stdout.write("\n".join(lines))
    return decided.decision.exit_code


def run_report(args: argparse.Namespace, spec_of: SpecOf, pair_spec_of: SpecOf) -> int:
    """`report`: the exit code is the decision's (0 ready or needs review, 1 blocked,
    4 no verdict: not enough data or not comparable). `pair_spec_of` also picks a log
    directory's default pair. The CI outputs (`--github`, `--junit`, `--summary`) are
    `ci_outputs`'s."""
    from evaltui.cli.ci_outputs import report_with_ci

    design, analysis = _load(args, spec_of, pair_spec_of, any_design=True, costs=True)
    team = (getattr(args, "reviewers", None), getattr(args, "reviews_per_item", None))
    ids = getattr(args, "ids", DEFAULT_IDS)

    def printed(design: Any, decided: Any, form: str) -> int:
        return print_report(design, decided, form, ids)

    return report_with_ci(design, design.decide(analysis, team=team), args, printed)


def run_signoff(args: argparse.Namespace, spec_of: SpecOf, pair_spec_of: SpecOf) -> int:
    """`signoff`: the record from the tags in each pair's session journal (one record for a
    run set, naming every baseline pair). A design without item pairs refuses, in its words."""
    from evaltui.core.designs import INDEPENDENT, design_for_runs
    from evaltui.core.errors import UsageError
    from evaltui.core.record.signoff import ReviewerDecision, default_reviewer

    runs = 2 + len(getattr(args, "more", None) or ())
    chosen = design_for_runs(runs)
    if getattr(args, "design", "paired") == "independent":  # whatever the number of runs
        chosen = INDEPENDENT
    if not chosen.signs_off:
        raise UsageError(chosen.refusal("evaltui signoff"))
    # the costs (seconds on a large pair) once the approval is allowed, in the record (below)
    design, analysis = _load(args, spec_of, pair_spec_of)
    decision = ReviewerDecision(
        reviewer=args.reviewer or default_reviewer(),
        decision=args.decision,
        rationale=args.rationale,
        override_reason=args.override_reason,
    )
    prefix = args.output
    if prefix is None:  # the review's folder, not the current directory (a git checkout)
        from evaltui.core.record.signoff_place import default_prefix, make_review_folder

        if hasattr(analysis, "paired"):  # a pair (also when chosen from a log directory)
            paired = analysis.paired
            inputs = [paired.baseline.source.path, paired.candidate.source.path]
        else:  # a run set
            inputs = [run.source.path for run in analysis.runs]
        prefix = default_prefix(inputs)
        make_review_folder(prefix, inputs)
    from evaltui.cli.progress_line import terminal_progress
    from evaltui.core.analysis.cost import costs_said_to

    with terminal_progress() as progress, costs_said_to(progress):
        written = design.sign_off(analysis, decision, prefix, _warn)
    paths = ", ".join(str(Path(p).resolve()) for p in written)  # (named after the runs)
    return print_run_text("text", lambda: _write(f"wrote {paths}\n", EXIT_OK))


def run_verify(args: argparse.Namespace) -> int:
    """`verify RECORD [BASE CAND ...]`: 0 verified, 1 not (one line says why)."""
    from dataclasses import replace

    from evaltui.core.designs import RUN_SET, design_of_record
    from evaltui.core.errors import UsageError
    from evaltui.core.verify.record_file import read_record
    from evaltui.core.verify.recorded_urls import recorded_urls

    if (args.baseline is None) != (args.candidate is None):
        raise UsageError("give both input files (BASE CAND), or neither")
    if args.record_only and args.baseline is not None:
        raise UsageError("--record-only checks the record alone: give no input files with it")
    signing = (args.signature, args.allowed_signers, args.identity)
    if any(v is not None for v in signing) and not all(v is not None for v in signing):
        raise UsageError("checking a signature needs --signature, --allowed-signers and --identity")
    record = read_record(args.record)
    design = design_of_record(record)
    if design is not RUN_SET and args.more:
        raise UsageError(f"{args.record} is a two-run record: give its BASE and CAND only")
    given = [args.baseline, args.candidate, *args.more] if args.baseline else None
    from_urls = None if given is not None or args.record_only else recorded_urls(record)
    if from_urls is not None and not design.verify(record, None).ok:
        from_urls = None  # the record refused on its own (form, hash, claims): no request
    if from_urls is not None:  # the runs read again where the record says they live
        from evaltui.core.textsafe import one_line

        named = ", ".join(one_line(url, 200) for url in from_urls)  # (the record's text: inert)
        sys.stderr.write(
            f"evaltui: verify: reading the runs from the URLs the record names: {named}\n"
        )
        given = [Path(url) for url in from_urls]  # (as argparse gives a typed URL)
    from evaltui.cli.progress_line import terminal_progress

    with terminal_progress() as progress:  # (the hashes, the rebuild's read, its costs)
        result = design.verify(record, given, progress)
    if from_urls is not None:
        result = replace(result, reason=f"{result.reason} ({FROM_URLS})")
    lines = []  # (they quote the record and the runs: ids, names, the decision's line)
    if result.ok and args.signature is not None:
        from evaltui.core.verify.signature import verify_signature

        signed = verify_signature(args.record, args.signature, args.allowed_signers, args.identity)
        if not signed.ok:
            result = signed
        else:
            lines.append(f"evaltui: {signed.reason}\n")
    if not result.ok:
        from evaltui.cli.errors import message_line  # (one inert line; defused in Actions)

        sys.stderr.write(f"evaltui: NOT verified: {message_line(result.reason)}\n")
        return EXIT_NOT_VERIFIED
    lines += [f"evaltui: verified: {result.reason}\n", f"evaltui: {who_decided(record)}\n"]
    return print_run_text("text", lambda: _write("".join(lines), EXIT_OK))


FROM_URLS = "the runs read again from the URLs the record names; --record-only: the record alone"


def _write(text: str, code: int) -> int:
    sys.stdout.write(text)
    return code


def who_decided(record: dict) -> str:
    """One line: who decided what, when, and what the tool's decision was then."""
    from evaltui.core.textsafe import one_line

    chosen = record.get("reviewer_decision", record.get("decision"))
    decided = record.get("decision")
    line = decided.get("line") if isinstance(decided, dict) else None
    said = f"{one_line(str(record.get('reviewer', '?')), 80)} decided {one_line(str(chosen), 40)}"
    said += f" on {one_line(str(record.get('created', '?')), 40)}"
    if record.get("override"):
        said += " (with an override)"
    return said + (f"; the tool said: {one_line(line, 300)}" if line else "")


def run_prefer(args: argparse.Namespace) -> int:
    """`prefer FILE`: the preference design's report; the exit code is the decision's."""
    from evaltui.core.analysis.preference import PreferenceOptions
    from evaltui.core.designs import PREFERENCE

    options = PreferenceOptions(
        ties=args.ties,
        confidence=args.confidence,
        alpha=args.alpha,
        multiplicity=args.multiplicity,
        baseline=args.baseline,
        candidate=args.candidate,
        allow_lookalike_names=args.allow_lookalike_names,
    )
    analysis = PREFERENCE.analyse((args.file, options))
    decided = PREFERENCE.decide(analysis)
    return print_run_text(args.format, lambda: print_report(PREFERENCE, decided, args.format))
