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

EXIT_OK = 0
EXIT_REGRESSED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
COMMANDS = ("report", "signoff")
DEMO_DIR = "sample_runs"
DEMO_FILES = ("baseline.jsonl", "candidate.jsonl")


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line with our exit code."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"evaltui: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def _add_pairing_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("baseline", type=Path, help="the baseline run (what ships today)")
    parser.add_argument("candidate", type=Path, help="the candidate run")
    parser.add_argument(
        "--input-format",
        default=None,
        metavar="NAME",
        help="force the input format instead of detecting it (jsonl, csv, parquet, ...)",
    )
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="pair on the items both runs have and report the attrition per arm",
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
        default="newcombe",
        choices=("newcombe", "tango", "wald", "wald-cc", "agresti-min", "bonett-price"),
        help="interval for the paired delta (default: newcombe)",
    )
    parser.add_argument("--confidence", type=float, default=0.95, help="default 0.95")
    parser.add_argument("--alpha", type=float, default=0.05, help="default 0.05")


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
        description="Print the paired comparison. Exit 0: not regressed; 1: regressed; "
        "2: bad input or usage.",
    )
    _add_pairing_args(report)
    report.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    return parser


def _app_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evaltui",
        description="Open the review app on two runs (no arguments: the demo in ./sample_runs). "
        "Headless commands: evaltui report BASE CAND, evaltui signoff BASE CAND.",
    )
    parser.add_argument("--version", action="version", version=f"evaltui {__version__}")
    parser.add_argument("baseline", type=Path, nargs="?", help="the baseline run")
    parser.add_argument("candidate", type=Path, nargs="?", help="the candidate run")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in COMMANDS:
            args = build_parser().parse_args(args_list)
            return _run_report(args)
        if args_list and args_list[0] in ("-h", "--help") and len(args_list) == 1:
            _app_parser().print_help()
            print("\nheadless commands:\n  evaltui report BASE CAND [options]   (see evaltui report -h)")
            return EXIT_OK
        return _run_app(_app_parser().parse_args(args_list))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the one place errors become exit codes
        return _fail(exc)


def _fail(exc: Exception) -> int:
    from evaltui.core.errors import EvalTuiError

    if isinstance(exc, EvalTuiError):
        sys.stderr.write(f"evaltui: error: {exc}\n")
        return EXIT_USAGE
    if os.environ.get("EVALTUI_DEBUG"):
        raise exc
    sys.stderr.write(
        f"evaltui: internal error: {type(exc).__name__}: {' '.join(str(exc).split())} "
        "(set EVALTUI_DEBUG=1 for the traceback, and please report it)\n"
    )
    return EXIT_INTERNAL


def load_analysis(args: argparse.Namespace):
    """Load, pair and analyse the two runs the arguments name."""
    from evaltui.core.analysis import AnalysisOptions, analyze
    from evaltui.core.formats import load_run
    from evaltui.core.pairing import PairingOptions, pair_runs

    options = AnalysisOptions(
        ci_method=args.ci_method, confidence=args.confidence, alpha=args.alpha
    )
    pairing = PairingOptions(allow_missing=args.allow_missing, on_error=args.on_error)
    baseline = load_run(args.baseline, args.input_format)
    candidate = load_run(args.candidate, args.input_format)
    return analyze(pair_runs(baseline, candidate, pairing), options)


def _run_report(args: argparse.Namespace) -> int:
    analysis = load_analysis(args)
    if args.format == "json":
        from evaltui.core.report import report_json

        sys.stdout.write(report_json(analysis))
    elif args.format == "markdown":
        from evaltui.core.report import report_markdown

        sys.stdout.write(report_markdown(analysis))
    else:
        from evaltui.render import print_report

        print_report(analysis)
    return EXIT_REGRESSED if analysis.verdict == "regressed" else EXIT_OK


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
    if (args.baseline is None) != (args.candidate is None):
        from evaltui.core.errors import UsageError

        raise UsageError("give two runs (BASE CAND), or none for the demo")
    baseline, candidate = (
        (args.baseline, args.candidate) if args.baseline is not None else demo_paths()
    )
    report_args = build_parser().parse_args(["report", str(baseline), str(candidate)])
    return _run_report(report_args)
