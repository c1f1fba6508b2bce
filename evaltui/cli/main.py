"""Command line: `evaltui [BASE CAND]` opens the review app; subcommands work headless.

Heavy modules (polars, scipy, textual) are imported only by the command that needs them: plan,
verify and prefer parse (and print their --help) without importing the input formats, and a
headless report never pays for the UI. (The commands that read runs import the formats to build
their format flags: see `format_flags.py`.) Every error a user can cause ends as one line on
stderr and exit code 2, never a traceback (`errors.py`); the arguments are `parser.py`'s.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from evaltui.cli.errors import (
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_REGRESSED,
    EXIT_USAGE,
    fail,
    is_panic,
    message_line,
    panicked,
    reader_went_away,
)
from evaltui.cli.parser import app_parser, build_parser, spec_from_args
from evaltui.cli.plan import run_plan
from evaltui.core.textsafe import inert_json

__all__ = [
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_REGRESSED",
    "EXIT_USAGE",
    "build_parser",
    "main",
    "spec_from_args",
]
_app_parser = app_parser  # (the name tests and callers before the split import)
COMMANDS = ("report", "signoff", "plan", "verify", "prefer")
DEMO_DIR = "sample_runs"
DEMO_FILES = ("baseline.jsonl", "candidate.jsonl")


def _run_prefer(args: argparse.Namespace) -> int:
    from evaltui.cli.prefer import run

    return run(args)


def _log_directory(args: argparse.Namespace, *, pick_now: bool) -> Path | None:
    """`evaltui [report] DIR`: a log directory in place of the two runs. With both selectors
    (or `pick_now`, the headless commands: the default pair for what is not named) the pair
    is chosen here and becomes BASE and CAND; otherwise the app's picker chooses, and the
    directory is returned for it."""
    from evaltui.core.errors import UsageError
    from evaltui.core.read.logdir import choose_pair, is_log_directory, list_runs

    selectors = (args.baseline_run, args.candidate_run)
    if args.candidate is not None or args.baseline is None or not is_log_directory(args.baseline):
        if any(s is not None for s in selectors):
            raise UsageError(
                "--baseline and --candidate pick runs from a log directory: evaltui DIR"
            )
        if args.baseline is not None and args.candidate is None:
            raise UsageError("give two runs (BASE CAND), or a log directory")
        return None
    directory = args.baseline
    if pick_now or all(s is not None for s in selectors):
        base, cand = choose_pair(list_runs(directory), *selectors)
        args.baseline, args.candidate = base.path, cand.path
        return None
    args.candidate = directory  # a placeholder until the picker names the pair
    return directory


def _run_verify(args: argparse.Namespace) -> int:
    from evaltui.core.errors import UsageError
    from evaltui.core.verify.pair import read_record, verify_record

    if (args.baseline is None) != (args.candidate is None):
        raise UsageError("give both input files (BASE CAND), or neither")
    signing = (args.signature, args.allowed_signers, args.identity)
    if any(v is not None for v in signing) and not all(v is not None for v in signing):
        raise UsageError("checking a signature needs --signature, --allowed-signers and --identity")
    record = read_record(args.record)
    from evaltui.core.record.run_set_signoff import RUN_SET_SIGNOFF_SCHEMA, verify_run_set_record

    if record.get("schema") == RUN_SET_SIGNOFF_SCHEMA:
        given = [args.baseline, args.candidate, *args.more] if args.baseline else None
        result = verify_run_set_record(record, given)
    elif args.more:
        raise UsageError(f"{args.record} is a two-run record: give its BASE and CAND only")
    else:
        result = verify_record(record, args.baseline, args.candidate)
    if result.ok and args.signature is not None:
        from evaltui.core.verify.pair import verify_signature

        signed = verify_signature(args.record, args.signature, args.allowed_signers, args.identity)
        if not signed.ok:
            result = signed
        else:
            sys.stdout.write(f"evaltui: {signed.reason}\n")
    (sys.stdout if result.ok else sys.stderr).write(
        f"evaltui: {'verified' if result.ok else 'NOT verified'}: {result.reason}\n"
    )
    if result.ok:
        sys.stdout.write(f"evaltui: {_who_decided(record)}\n")
    return EXIT_OK if result.ok else EXIT_REGRESSED


def _who_decided(record: dict) -> str:
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


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in COMMANDS:
            args = build_parser(args_list[0]).parse_args(args_list)
            runner = {
                "report": _run_report,
                "signoff": _run_signoff,
                "plan": run_plan,
                "verify": _run_verify,
                "prefer": _run_prefer,
            }
            return runner[args.command](args)
        _refuse_a_mistyped_command(args_list)
        if args_list and args_list[0] in ("-h", "--help") and len(args_list) == 1:
            app_parser().print_help()
            print(
                "\nheadless commands:\n"
                "  evaltui report BASE CAND [options]    (see evaltui report -h)\n"
                "  evaltui signoff BASE CAND [options]   (see evaltui signoff -h)\n"
                "  evaltui verify RECORD [BASE CAND]     (see evaltui verify -h)\n"
                "  evaltui prefer FILE [options]         (see evaltui prefer -h)\n"
                "  evaltui plan --delta D [--design ...]  (see evaltui plan -h)"
            )
            return EXIT_OK
        return _run_app(app_parser().parse_args(args_list))
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return reader_went_away()
    except Exception as exc:  # noqa: BLE001 - the one place errors become exit codes
        return fail(exc)
    except BaseException as exc:  # a polars (Rust) panic is not an Exception: name it too
        if is_panic(exc):
            return panicked(exc)
        raise


def _refuse_a_mistyped_command(args_list: list[str]) -> None:
    """`evaltui reprot A B` would otherwise try to open a run called "reprot"."""
    import difflib

    from evaltui.core.errors import UsageError

    if not args_list or args_list[0].startswith("-") or Path(args_list[0]).exists():
        return
    close = difflib.get_close_matches(args_list[0], COMMANDS, n=1, cutoff=0.6)
    if close:
        raise UsageError(
            f"unknown command {args_list[0]!r}; did you mean {close[0]!r}? "
            f"(commands: {', '.join(COMMANDS)})"
        )


def load_analysis(args: argparse.Namespace, *, any_design: bool = False):
    """Load, pair and analyse the two runs the arguments name. `any_design` (the report) may
    return the independent comparison of two runs of different items instead."""
    from evaltui.cli.progress_line import terminal_progress
    from evaltui.core.analysis.pipeline import compare, compare_design

    _log_directory(args, pick_now=True)
    spec = spec_from_args(args)
    with terminal_progress() as progress:
        if any_design and spec.design != "paired":  # the paired path stays the one it was
            return compare_design(spec, progress=progress)
        return compare(spec, progress=progress)


NO_PAIRS = (
    "{what} reviews item pairs, and an independent (unpaired) comparison has none to triage: "
    "use evaltui report BASE CAND --design independent (its decision is at best needs review)"
)


def _refuse_independent(args: argparse.Namespace, what: str) -> None:
    """Sign-off and the app review item pairs: `--design independent` is the report's."""
    if getattr(args, "design", "paired") == "independent":
        from evaltui.core.errors import UsageError

        raise UsageError(NO_PAIRS.format(what=what))


def _print_independent(analysis, form: str) -> int:
    """`report` on two runs of different items: the same three forms, led by the decision."""
    from evaltui.core.decide.pair import decide_independent

    spec = analysis.spec
    decision = decide_independent(analysis, accept_mismatch=bool(spec and spec.accept_mismatch))
    if form == "json":
        from evaltui.core.report.independent import independent_report_dict

        report = independent_report_dict(analysis, decision)
        sys.stdout.write(inert_json(report) + "\n")
    elif form == "markdown":
        from evaltui.core.report.independent import independent_report_markdown

        sys.stdout.write(independent_report_markdown(analysis, decision))
    else:
        from evaltui.cli.render import print_report

        print_report(analysis, decision=decision)
    return decision.exit_code


def _run_report(args: argparse.Namespace) -> int:
    """Print the report; the exit code is the decision's (0 ready or needs review, 1 blocked,
    4 no verdict: not enough data or not comparable)."""
    from evaltui.core.analysis.independent import IndependentAnalysis
    from evaltui.core.record.session import decide_review, evaluate_policy_gates, start_review

    if getattr(args, "more", None):
        return _run_set_report(args)
    analysis = load_analysis(args, any_design=True)
    if isinstance(analysis, IndependentAnalysis):
        return _print_independent(analysis, args.format)
    session = start_review(analysis, read_only=True)
    gates = evaluate_policy_gates(analysis, session) if analysis.policy is not None else None
    decision = decide_review(analysis, gates or (), session)
    if args.format == "json":
        from evaltui.core.report.pair import report_dict

        report = report_dict(analysis, gates, decision)
        sys.stdout.write(inert_json(report))
        sys.stdout.write("\n")
    elif args.format == "markdown":
        from evaltui.core.report.pair import report_markdown

        sys.stdout.write(report_markdown(analysis, gates=gates, decision=decision))
    else:
        from evaltui.cli.render import print_report

        print_report(analysis, gates=gates, decision=decision)
    return decision.exit_code


def load_run_set(args: argparse.Namespace):
    """Load the three or more runs the arguments name, and compare every pair."""
    from evaltui.cli.progress_line import terminal_progress
    from evaltui.core.analysis.run_set import RunSetSpec, compare_runs
    from evaltui.core.errors import UsageError

    if Path(args.baseline).is_dir():
        raise UsageError(
            f"{args.baseline} is a folder: with three or more runs give each run's file"
        )
    spec = RunSetSpec.of(spec_from_args(args), args.more)
    with terminal_progress() as progress:
        return compare_runs(spec, progress=progress)


def _run_set_signoff(args: argparse.Namespace) -> int:
    """`signoff BASE CAND CAND2 ...`: one record covering the baseline against every candidate,
    each pair with its own tags (its own session journal) and the family-adjusted numbers."""
    from evaltui.core.record.run_set_signoff import build_run_set_record, write_run_set_record
    from evaltui.core.record.session import start_review
    from evaltui.core.record.signoff import ReviewerDecision, default_reviewer

    run_set = load_run_set(args)
    decision = ReviewerDecision(
        reviewer=args.reviewer or default_reviewer(),
        decision=args.decision,
        rationale=args.rationale,
        override_reason=args.override_reason,
    )
    sessions = {}
    try:
        for pair in run_set.baseline_pairs:
            session = start_review(pair.analysis, reviewer=args.reviewer)
            sessions[(pair.baseline, pair.candidate)] = session
            for notice in session.notices:
                name = run_set.names[pair.candidate]
                sys.stderr.write(f"evaltui: warning: {name}: {notice.text}\n")
        record = build_run_set_record(run_set, sessions, decision)
        written = write_run_set_record(record, run_set, args.output)
    finally:
        for session in sessions.values():
            session.close()
    print("wrote " + ", ".join(str(p.resolve()) for p in written))
    return EXIT_OK


def _run_set_report(args: argparse.Namespace) -> int:
    """`report BASE CAND CAND2 ...`: the run-set report; the exit code is the worst baseline
    pair's."""
    from evaltui.core.report.run_set import decide_run_set, run_set_lines, run_set_report_dict

    run_set = load_run_set(args)
    decision = decide_run_set(run_set)
    if args.format == "json":
        report = run_set_report_dict(run_set, decision)
        sys.stdout.write(inert_json(report) + "\n")
    else:
        sys.stdout.write("\n".join(run_set_lines(run_set, decision, md=args.format == "markdown")))
    return decision.exit_code


def demo_paths() -> tuple[Path, Path]:
    """The demo pair: ./sample_runs, or the one beside the package in a source checkout."""
    for root in (Path.cwd(), Path(__file__).resolve().parent.parent):
        paths = tuple(root / DEMO_DIR / name for name in DEMO_FILES)
        if all(p.is_file() for p in paths):
            return paths  # type: ignore[return-value]
    from evaltui.core.errors import UsageError

    raise UsageError(
        f"no demo runs found in ./{DEMO_DIR}; run evaltui from the project folder "
        "or give two runs: evaltui BASE CAND"
    )


def _run_signoff(args: argparse.Namespace) -> int:
    _refuse_independent(args, "evaltui signoff")
    if getattr(args, "more", None):
        return _run_set_signoff(args)
    from evaltui.core.record.session import start_review
    from evaltui.core.record.signoff import (
        ReviewerDecision,
        build_record,
        default_reviewer,
        write_record,
    )

    analysis = load_analysis(args)
    session = start_review(analysis, reviewer=args.reviewer)
    for notice in session.notices:
        sys.stderr.write(f"evaltui: warning: {notice.text}\n")
    decision = ReviewerDecision(
        reviewer=args.reviewer or default_reviewer(),
        decision=args.decision,
        rationale=args.rationale,
        override_reason=args.override_reason,
    )
    record = build_record(analysis, session, decision)
    json_path, md_path = write_record(record, analysis, args.output)
    written = (json_path, md_path, json_path.with_suffix(".csv"))
    print("wrote " + ", ".join(str(p.resolve()) for p in written))
    return EXIT_OK


def _run_app(args: argparse.Namespace) -> int:
    if getattr(args, "more", None):  # (two runs of different items: the app shows them)
        _refuse_independent(args, "the review app of three or more runs")
    if getattr(args, "more", None) and Path(args.baseline).is_dir():
        from evaltui.core.errors import UsageError

        raise UsageError(
            f"{args.baseline} is a folder: with three or more runs give each run's file"
        )
    directory = _log_directory(args, pick_now=False)
    if (args.baseline is None) != (args.candidate is None):
        from evaltui.core.errors import UsageError

        raise UsageError("give two runs (BASE CAND), or none for the demo")
    if args.baseline is None:
        args.baseline, args.candidate = demo_paths()
    from evaltui.core.record.journal import parse_tags

    if args.tags:
        parse_tags(args.tags)  # refuse a bad tag set before the screen opens
    if not (sys.stdin.isatty() and (sys.stdout.isatty() or sys.stderr.isatty())):
        from evaltui.core.errors import UsageError

        raise UsageError(
            "the review app needs a terminal (stdin is not one); for scripts and CI use "
            "`evaltui report BASE CAND` or `evaltui signoff ...`"
        )
    from evaltui.ui.app import AppConfig, create_app

    spec = spec_from_args(args)
    run_set = None
    if args.more:  # three or more runs: the app opens on the matrix of every pair
        from evaltui.core.analysis.run_set import RunSetSpec

        run_set = RunSetSpec.of(spec, args.more)
    app = create_app(
        AppConfig(
            spec=spec,
            tags=parse_tags(args.tags) if args.tags else None,
            log_directory=directory,
            fresh=args.fresh,
            reviewer=args.reviewer,
            run_set=run_set,
        )
    )
    app.quit_without_waiting = True
    app.run()
    if app.hung_up:  # the terminal is gone: nothing to print to; give the pair back and end
        if app.loaded is not None:
            app.loaded.session.close()
        os._exit(app.return_code or 0)
    if app.load_error:
        sys.stderr.write(f"evaltui: error: {message_line(app.load_error)}\n")
    code = app.return_code or 0
    _leave_without_waiting_for_workers(app, code)
    return code


def _leave_without_waiting_for_workers(app, code: int) -> None:
    """Exit now if background workers are still running.

    Re-hashing the inputs, reading previews and the cluster bootstrap run in threads the
    interpreter joins at exit: on a million-item pair, q right after the first screen left the
    shell waiting 4.7 s. Everything the reviewer did is already on disk (each tag and note is
    fsynced before the screen says "saved"; a sign-off is written before its dialog closes), so
    the process releases the pair's lock, flushes its output and ends without them.
    """
    import threading

    if not any(t.is_alive() and not t.daemon for t in threading.enumerate()[1:]):
        return  # nothing to wait for: leave the normal way
    if app.loaded is not None:
        app.loaded.session.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
