"""The command line's arguments: the headless commands' parser, the review app's, and the
comparison spec they describe (`spec_from_args`, the CLI's one place for its options).

The format flags are not written here: `format_flags.py` generates them from the formats.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evaltui import __version__
from evaltui.cli.ci_outputs import add_ci_args
from evaltui.cli.errors import EXIT_USAGE
from evaltui.cli.format_flags import FormatChoices, add_format_flags, format_choices
from evaltui.cli.plan import add_plan_parser
from evaltui.core.report.id_cap import DEFAULT_IDS

if TYPE_CHECKING:
    from evaltui.core.compare.spec import CompareSpec


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line with our exit code."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"evaltui: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def _id_limit(text: str) -> int | None:
    """`--ids`: a count of ids, or `all` (None: no limit)."""
    if text == "all":
        return None
    try:
        limit = int(text)
    except ValueError:
        message = f"expected a whole number or 'all', got {text!r}"
        raise argparse.ArgumentTypeError(message) from None
    if limit < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more ids, got {limit}")
    return limit


def add_pairing_args(parser: argparse.ArgumentParser, *, with_formats: bool = True) -> None:
    """The arguments of every command that compares runs (report, signoff, the app); the
    "input formats" group comes from the formats (`format_flags`), and `with_formats=False`
    leaves it out of a parser that will not be used (it imports every format, and polars)."""
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
        help="which scorer/metric to compare when a log has several (Inspect, lm-eval, HELM, "
        "OpenAI evals), or which of a run's score columns; a name the run lacks is refused",
    )
    if with_formats:
        add_format_flags(parser)
    add_no_cache(parser)
    parser.add_argument(
        "--allow-lookalike-names",
        action="store_true",
        help="three or more runs whose names differ only by look-alike characters, case or "
        "invisible characters are different runs (refused without this)",
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
        choices=("tango", "newcombe", "wald", "wald-cc", "agresti-min", "bonett-price"),
        help="interval for the paired delta (default: tango, or the policy's)",
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
        "--direction",
        choices=("higher", "lower"),
        default=None,
        help="graded: which way is better for the compared metric (default: what the log "
        "declares, else the metric's name: loss, mae, wer, latency... are lower-is-better; "
        "a metric whose direction is unknown gets no directional verdict)",
    )
    graded.add_argument(
        "--bootstrap",
        choices=("bca", "percentile"),
        default="bca",
        help="bootstrap interval shown as the headline (default bca; both are reported)",
    )


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The headless commands' parser; given the `command` about to be parsed, only the
    commands that read runs get the format flags (plan, verify and prefer never import the
    formats to parse their own arguments)."""
    with_formats = command in (None, "report", "signoff", "show", "adjudicate")
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
    add_pairing_args(report, with_formats=with_formats)
    add_review_dir(report)
    add_team_args(report)
    report.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    report.add_argument(
        "--ids",
        type=_id_limit,
        default=DEFAULT_IDS,
        metavar="N|all",
        help=f"JSON: list at most N ids per list of items (default {DEFAULT_IDS:,}; the report's "
        "ids_cut says which lists were cut and how long they were); all: every id",
    )
    add_ci_args(report)

    signoff = sub.add_parser(
        "signoff",
        help="write the sign-off record (JSON + Markdown) from the tags in the session journal",
        description="Write PREFIX.json (the record), PREFIX.md (for a PR) and PREFIX.csv (the "
        "discordant items with tags and notes) from the pair's review session. Approving over "
        "failed gates, confirmed or untriaged regressions needs --override-reason.",
    )
    add_pairing_args(signoff, with_formats=with_formats)
    add_review_dir(signoff)
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
        default=None,
        metavar="PREFIX",
        help="writes PREFIX.json, PREFIX.md and PREFIX.csv (default: in the review's folder "
        "beside its journal, named by the runs and the time; the paths are printed)",
    )
    signoff.add_argument(
        "--override-reason", default=None, help="required to approve with untriaged regressions"
    )
    add_plan_parser(sub)

    verify = sub.add_parser(
        "verify",
        help="check a sign-off record: its own hash, and given the files (or read again from "
        "the URLs the record names), that they are the ones reviewed and that the statistics "
        "recompute",
        description="Exit 0: verified; 1: not (one line says why); 2: unreadable record or files. "
        "Without BASE CAND, a record whose runs are all URLs (s3://, https://...) is checked "
        "against them, read again from there; any other record alone.",
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
    verify.add_argument(
        "--record-only",
        action="store_true",
        help="check the record alone, even when the runs it names are URLs it could read again",
    )
    add_no_cache(verify)
    from evaltui.cli.prefer import add_parser as add_prefer_parser
    from evaltui.cli.show import add_parser as add_show_parser

    add_prefer_parser(sub)
    add_show_parser(sub, add_pairing_args, with_formats=with_formats)
    from evaltui.cli.adjudicate import add_parser as add_adjudicate_parser

    add_adjudicate_parser(sub, add_pairing_args, add_review_dir, with_formats=with_formats)
    return parser


def add_no_cache(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="read remote runs (s3://, gs://, az://, hf://, https://) without the on-disk "
        "cache under ~/.cache/evaltui/remote (see docs/remote.md)",
    )


def add_review_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--review-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="a shared review folder (default: $EVALTUI_REVIEW_DIR, else your own state "
        "folder): each reviewer writes their own journal there, every reviewer's is read; "
        "an item counts as triaged only when its reviewers' tags agree",
    )
    parser.add_argument(
        "--adjudicator",
        action="append",
        default=None,
        metavar="NAME",
        help="who may settle a disputed item (repeatable, or a comma list; with the policy's "
        "[review] adjudicators)",
    )


def add_team_args(parser: argparse.ArgumentParser) -> None:
    """The review team (`core/record/assignment.py`): these win over the policy's [review]."""
    parser.add_argument(
        "--reviewers",
        default=None,
        metavar="A,B,C",
        help="split the regressions among these reviewers (comma-separated, distinct; "
        "default: the policy's [review] reviewers): the app lists yours first, the report "
        "each reviewer's assigned, tagged and open",
    )
    parser.add_argument(
        "--reviews-per-item",
        type=int,
        default=None,
        metavar="K",
        help="how many different reviewers review each regression (default: the policy's "
        "reviews_per_item, else 1)",
    )


def add_session_args(parser: argparse.ArgumentParser) -> None:
    add_review_dir(parser)
    add_team_args(parser)
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


def app_parser() -> argparse.ArgumentParser:
    """`evaltui [BASE CAND]`: the review app's arguments (BASE and CAND may be left out)."""
    parser = _Parser(
        prog="evaltui",
        description="Open the review app on two runs (no arguments: the demo in ./sample_runs). "
        "Headless commands: report, signoff, verify, plan, prefer (evaltui COMMAND -h).",
    )
    parser.add_argument("--version", action="version", version=f"evaltui {__version__}")
    add_pairing_args(parser)
    for action in parser._actions:
        if action.dest in ("baseline", "candidate"):
            action.nargs = "?"
    add_session_args(parser)
    return parser


def spec_from_args(args: argparse.Namespace) -> CompareSpec:
    """The comparison spec the command line describes (the CLI's one place for its options)."""
    from evaltui.core.compare.spec import CompareSpec

    choices = format_choices(args)
    _refuse_one_file_twice(args, choices)
    return CompareSpec.create(
        args.baseline,
        args.candidate,
        input_format=args.input_format,
        format_options=choices.format_options,
        baseline_options=choices.baseline_options,
        candidate_options=choices.candidate_options,
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
        direction=args.direction,
    )


def _refuse_one_file_twice(args: argparse.Namespace, choices: FormatChoices) -> None:
    """The same file as baseline and candidate compares nothing, unless two of its arms are
    chosen (promptfoo's --baseline-arm/--candidate-arm)."""
    from evaltui.core.errors import UsageError
    from evaltui.core.read.remote.urls import as_typed, url_of

    same = Path(args.baseline).resolve() == Path(args.candidate).resolve()
    if same and (Path(args.baseline).is_dir() or url_of(args.baseline) is not None):
        from evaltui.core.read.logdir import is_log_directory

        if is_log_directory(Path(args.baseline)):  # (a folder in a store too: `evaltui s3://b/`)
            return  # the log-directory picker's stand-in until the reviewer picks a pair
    if same and not choices.arms_differ():
        raise UsageError(
            f"{as_typed(args.baseline)} is given as both the baseline and the candidate: nothing "
            "to compare (two arms of one promptfoo file: --baseline-arm and --candidate-arm)"
        )
