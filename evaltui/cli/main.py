"""Command line: `evaltui [BASE CAND]` opens the review app; subcommands work headless.

Heavy modules (polars, scipy, textual) are imported only by the command that needs them, so
`--help` is instant and a headless report never pays for the UI. Every error a user can cause
ends as one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from evaltui import __version__
from evaltui.cli.plan import add_plan_parser, run_plan

EXIT_OK = 0
EXIT_REGRESSED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
COMMANDS = ("report", "signoff", "plan", "verify", "prefer")
DEMO_DIR = "sample_runs"
DEMO_FILES = ("baseline.jsonl", "candidate.jsonl")


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line with our exit code."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"evaltui: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def _add_pairing_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("baseline", type=Path, help="the baseline run (what ships today)")
    parser.add_argument(
        "candidate",
        type=Path,
        nargs="?",
        help="the candidate run (none when BASE is a log directory: see --baseline/--candidate)",
    )
    parser.add_argument(
        "more",
        type=Path,
        nargs="*",
        metavar="CAND",
        help="more candidates: three or more runs of the same items are compared together "
        "(an omnibus test, then every pair with the p-values adjusted over the pairs)",
    )
    parser.add_argument(
        "--baseline",
        dest="baseline_run",
        default=None,
        metavar="RUN",
        help="with a log directory: the baseline run, by its number in the listing, its path "
        "or a unique part of it (default: of the two latest runs of one task, the older)",
    )
    parser.add_argument(
        "--candidate",
        dest="candidate_run",
        default=None,
        metavar="RUN",
        help="with a log directory: the candidate run (default: the latest)",
    )
    parser.add_argument(
        "--input-format",
        default=None,
        metavar="NAME",
        help="force the input format instead of detecting it (jsonl, csv, parquet, ...)",
    )
    parser.add_argument(
        "--metric",
        default=None,
        help="which scorer/metric to compare when a log has several (Inspect, lm-eval)",
    )
    parser.add_argument(
        "--filter",
        default=None,
        help="lm-eval: which filter's lines to use when a task has several (default: the first)",
    )
    fmt = parser.add_argument_group("input formats")
    fmt.add_argument(
        "--higher-is-better",
        choices=("true", "false"),
        default=None,
        help="lm-eval: whether more of the metric is better, when the results file beside the "
        "samples does not say (false: a rise is a regression)",
    )
    fmt.add_argument(
        "--exclude-nonfinite",
        action="store_true",
        default=None,
        help="lm-eval: a record whose metric is NaN or infinite becomes an errored item "
        "(counted; --on-error decides) instead of refusing the file",
    )
    fmt.add_argument("--arm", default=None, help="promptfoo: the provider/prompt of both runs")
    fmt.add_argument("--baseline-arm", default=None, help="promptfoo: the baseline's arm")
    fmt.add_argument("--candidate-arm", default=None, help="promptfoo: the candidate's arm")
    for name, what in (
        ("id", "item id"),
        ("pass", "pass/fail verdict"),
        ("score", "graded score"),
        ("slice", "slice"),
        ("cluster", "cluster"),
    ):
        fmt.add_argument(
            f"--{name}-col", default=None, metavar="COL", help=f"the column holding the {what}"
        )
    fmt.add_argument(
        "--text-cols",
        default=None,
        metavar="A,B,C,D",
        help="columns for input, output, target, explanation (or name=field pairs)",
    )
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="pair on the items both runs have and report the attrition per arm",
    )
    parser.add_argument(
        "--accept-mismatch",
        action="store_true",
        help="the runs' metadata differ (task, dataset, scorer...) and the comparison is "
        "intended: report the mismatch instead of refusing a verdict",
    )
    parser.add_argument(
        "--design",
        choices=("paired", "independent", "auto"),
        default="paired",
        help="paired (default): item by item; independent: two runs of different items, "
        "compared as independent samples (report only); auto: independent when the runs "
        "share no item ids or name different datasets, else paired",
    )
    parser.add_argument(
        "--on-error",
        choices=("fail", "exclude"),
        default="fail",
        help="errored/timed-out items count as failures (fail, default) or are removed "
        "from both arms and counted (exclude)",
    )
    parser.add_argument(
        "--ci-method",
        default=None,
        choices=("newcombe", "tango", "wald", "wald-cc", "agresti-min", "bonett-price"),
        help="interval for the paired delta (default: newcombe, or the policy's)",
    )
    parser.add_argument(
        "--confidence", type=float, default=None, help="default 0.95, or the policy's"
    )
    parser.add_argument("--alpha", type=float, default=None, help="default 0.05, or the policy's")
    parser.add_argument(
        "--policy",
        type=Path,
        default=None,
        metavar="FILE",
        help="release policy (TOML): alpha, CI method, multiplicity, gates; report exits 1 "
        "when a gate fails",
    )
    graded = parser.add_argument_group("graded scores")
    graded.add_argument(
        "--pass-threshold",
        type=float,
        default=None,
        metavar="T",
        help="turn a graded metric into pass/fail (score >= T passes), so the binary "
        "analysis applies",
    )
    graded.add_argument(
        "--tolerance",
        type=float,
        default=0.0,
        help="graded: an item regresses when its delta is below -TOLERANCE (default 0: any drop)",
    )
    graded.add_argument(
        "--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)"
    )
    graded.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    graded.add_argument(
        "--bootstrap",
        choices=("bca", "percentile"),
        default="bca",
        help="bootstrap interval shown as the headline (default bca; both are reported)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evaltui",
        description="Paired review of two eval runs: is the difference real, what broke, "
        "can we sign off. With no arguments, opens the demo in ./sample_runs.",
    )
    parser.add_argument("--version", action="version", version=f"evaltui {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    report = sub.add_parser(
        "report",
        help="print the paired comparison (text, markdown or json)",
        description="Print the paired comparison, led by the decision line. Exit 0: ready to "
        "approve or needs review; 1: blocked (a gate failed, a confirmed regression, or the "
        "candidate regressed); 2: bad input or usage; 4: no verdict (not enough data, or the "
        "runs are not comparable).",
    )
    _add_pairing_args(report)
    report.add_argument("--format", choices=("text", "markdown", "json"), default="text")

    signoff = sub.add_parser(
        "signoff",
        help="write the sign-off record (JSON + Markdown) from the tags in the session journal",
        description="Write PREFIX.json (the record), PREFIX.md (for a PR) and PREFIX.csv (the "
        "discordant items with tags and notes) from the pair's review session. Approving over "
        "failed gates, confirmed or untriaged regressions needs --override-reason.",
    )
    _add_pairing_args(signoff)
    signoff.add_argument(
        "--decision", required=True, choices=("approve", "block", "needs-more-data")
    )
    signoff.add_argument(
        "--reviewer",
        default=None,
        help="default: $EVALTUI_REVIEWER, else git config user.name, else your login name",
    )
    signoff.add_argument("--rationale", required=True, help="why, in a sentence")
    signoff.add_argument(
        "--output",
        required=True,
        metavar="PREFIX",
        help="writes PREFIX.json, PREFIX.md and PREFIX.csv",
    )
    signoff.add_argument(
        "--override-reason", default=None, help="required to approve with untriaged regressions"
    )
    add_plan_parser(sub)

    verify = sub.add_parser(
        "verify",
        help="check a sign-off record: its own hash, and given the files, that they are the ones "
        "reviewed and that the statistics recompute",
        description="Exit 0: verified; 1: not (one line says why); 2: unreadable record or files.",
    )
    verify.add_argument("record", type=Path, help="the sign-off record (PREFIX.json)")
    verify.add_argument("baseline", type=Path, nargs="?")
    verify.add_argument("candidate", type=Path, nargs="?")
    verify.add_argument(
        "more", type=Path, nargs="*", metavar="CAND", help="a run-set record's further runs"
    )
    verify.add_argument(
        "--signature",
        type=Path,
        default=None,
        metavar="SIG",
        help="also check who signed the record: its ssh-keygen -Y signature (RECORD.sig), "
        "with --allowed-signers and --identity",
    )
    verify.add_argument("--allowed-signers", type=Path, default=None, metavar="FILE")
    verify.add_argument("--identity", default=None, metavar="NAME", help="who must have signed")
    from evaltui.cli.prefer import add_parser as add_prefer_parser

    add_prefer_parser(sub)
    return parser


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


def _add_session_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tags",
        default=None,
        help="comma-separated tag set for this review (default: confirmed regression, "
        "acceptable, grader error, flaky, needs investigation)",
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="start a new review session for this pair (the old journal is kept beside it)",
    )
    parser.add_argument(
        "--reviewer",
        default=None,
        help="who is reviewing, recorded with every tag and note (default: $EVALTUI_REVIEWER, "
        "else git config user.name, else your login name)",
    )


def _app_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evaltui",
        description="Open the review app on two runs (no arguments: the demo in ./sample_runs). "
        "Headless commands: report, signoff, verify, plan, prefer (evaltui COMMAND -h).",
    )
    parser.add_argument("--version", action="version", version=f"evaltui {__version__}")
    _add_pairing_args(parser)
    for action in parser._actions:
        if action.dest in ("baseline", "candidate"):
            action.nargs = "?"
    _add_session_args(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in COMMANDS:
            args = build_parser().parse_args(args_list)
            return _run_command(args)
        _refuse_a_mistyped_command(args_list)
        if args_list and args_list[0] in ("-h", "--help") and len(args_list) == 1:
            _app_parser().print_help()
            print(
                "\nheadless commands:\n"
                "  evaltui report BASE CAND [options]    (see evaltui report -h)\n"
                "  evaltui signoff BASE CAND [options]   (see evaltui signoff -h)\n"
                "  evaltui verify RECORD [BASE CAND]     (see evaltui verify -h)\n"
                "  evaltui prefer FILE [options]         (see evaltui prefer -h)\n"
                "  evaltui plan --delta D [--design ...]  (see evaltui plan -h)"
            )
            return EXIT_OK
        return _run_app(_app_parser().parse_args(args_list))
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_went_away()
    except Exception as exc:  # noqa: BLE001 - the one place errors become exit codes
        return _fail(exc)
    except BaseException as exc:  # a polars (Rust) panic is not an Exception: name it too
        if _is_panic(exc):
            return _panicked(exc)
        raise


def _run_command(args: argparse.Namespace) -> int:
    """A headless command: `plan` is the CLI's own; the others dispatch on the design
    (`cli.commands`), given how the arguments make a comparison spec."""
    from evaltui.cli import commands

    if args.command == "plan":
        return run_plan(args)
    if args.command == "verify":
        return commands.run_verify(args)
    if args.command == "prefer":
        return commands.run_prefer(args)
    runner = {"report": commands.run_report, "signoff": commands.run_signoff}[args.command]
    return runner(args, spec_from_args, _pair_spec)


def _pair_spec(args: argparse.Namespace):
    """The spec of the two runs the arguments name; a log directory's pair is picked now."""
    _log_directory(args, pick_now=True)
    return spec_from_args(args)


def _refuse_independent(args: argparse.Namespace, what: str) -> None:
    """The app of three or more runs reviews item pairs: `--design independent` is refused
    in the independent design's words."""
    if getattr(args, "design", "paired") == "independent":
        from evaltui.core.designs import INDEPENDENT
        from evaltui.core.errors import UsageError

        raise UsageError(INDEPENDENT.refusal(what))


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


EXIT_SIGPIPE = 141  # what a shell reports for a writer whose reader closed the pipe


def _reader_went_away() -> int:
    """`evaltui report A B | head`: the reader stopped reading. Nothing to say; stdout is
    pointed at /dev/null so the interpreter's final flush does not complain either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    return EXIT_SIGPIPE


def _fail(exc: Exception) -> int:
    from evaltui.core.errors import EvalTuiError

    if isinstance(exc, EvalTuiError):
        sys.stderr.write(f"evaltui: error: {_one_line(exc)}\n")
        return EXIT_USAGE
    if isinstance(exc, OSError) and exc.filename is not None:
        # The environment, not a bug: a file that cannot be read or written (permissions, a
        # full or read-only disk) that no more specific check caught. One line, the path.
        from evaltui.core.record.journal import os_error_text

        sys.stderr.write(f"evaltui: error: {_one_line(f'{exc.filename}: {os_error_text(exc)}')}\n")
        return EXIT_USAGE
    if isinstance(exc, OSError):  # the environment too (a full disk, no permission), unnamed
        sys.stderr.write(f"evaltui: error: {_one_line(exc.strerror or exc)}\n")
        return EXIT_USAGE
    if os.environ.get("EVALTUI_DEBUG"):
        raise exc
    sys.stderr.write(
        f"evaltui: internal error: {type(exc).__name__}: {_one_line(exc)} "
        "(set EVALTUI_DEBUG=1 for the traceback, and please report it)\n"
    )
    return EXIT_INTERNAL


def _one_line(message: object) -> str:
    """An error message as one inert line for stderr: it may quote an id, a path or a key
    from an input, and a terminal would obey the escapes in it (set the title, the clipboard,
    clear the screen), so control and bidi characters are shown as visible stand-ins."""
    from evaltui.core.textsafe import one_line

    return one_line(str(message))


def _is_panic(exc: BaseException) -> bool:
    """A Rust panic inside polars (pyo3's PanicException, a BaseException)."""
    return type(exc).__name__ == "PanicException"


def _panicked(exc: BaseException) -> int:
    """A polars panic no loader turned into an input error: named, exit 3 (internal), never a
    traceback and exit 1, which `report` means as "blocked". (A panic while reading an input
    is the formats' InputError, exit 2.)"""
    if os.environ.get("EVALTUI_DEBUG"):
        raise exc
    sys.stderr.write(
        f"evaltui: internal error: polars panicked: {_one_line(exc)} "
        "(set EVALTUI_DEBUG=1 for the traceback, and please report it)\n"
    )
    return EXIT_INTERNAL


def spec_from_args(args: argparse.Namespace):
    """The comparison spec the command line describes (the CLI's one place for its options)."""
    from evaltui.core.compare.spec import CompareSpec

    text_cols = tuple(args.text_cols.split(",")) if args.text_cols else None
    _refuse_one_file_twice(args)
    return CompareSpec.create(
        args.baseline,
        args.candidate,
        input_format=args.input_format,
        format_options={
            "filter": args.filter,
            "exclude_nonfinite": args.exclude_nonfinite,
            "higher_is_better": {"true": True, "false": False}.get(args.higher_is_better or ""),
            "arm": args.arm,
            "id_col": args.id_col,
            "pass_col": args.pass_col,
            "score_col": args.score_col,
            "slice_col": args.slice_col,
            "cluster_col": args.cluster_col,
            "text_cols": text_cols,
        },
        baseline_options={"arm": args.baseline_arm},
        candidate_options={"arm": args.candidate_arm},
        allow_missing=args.allow_missing,
        on_error=args.on_error,
        policy=args.policy,
        accept_mismatch=args.accept_mismatch,
        design=args.design,
        ci_method=args.ci_method,
        confidence=args.confidence,
        alpha=args.alpha,
        metric=args.metric,
        pass_threshold=args.pass_threshold,
        tolerance=args.tolerance,
        resamples=args.resamples,
        seed=args.seed,
        bootstrap=args.bootstrap,
    )


def _refuse_one_file_twice(args: argparse.Namespace) -> None:
    """The same file as baseline and candidate compares nothing, unless two of its arms are
    chosen (promptfoo's --baseline-arm/--candidate-arm)."""
    from evaltui.core.errors import UsageError

    same = Path(args.baseline).resolve() == Path(args.candidate).resolve()
    if same and Path(args.baseline).is_dir():
        from evaltui.core.read.logdir import is_log_directory

        if is_log_directory(Path(args.baseline)):
            return  # the log-directory picker's stand-in until the reviewer picks a pair
    if same and (args.baseline_arm or None) == (args.candidate_arm or None):
        raise UsageError(
            f"{args.baseline} is given as both the baseline and the candidate: nothing to compare "
            "(two arms of one promptfoo file: --baseline-arm and --candidate-arm)"
        )


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
        sys.stderr.write(f"evaltui: error: {_one_line(app.load_error)}\n")
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
