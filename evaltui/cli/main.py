"""Command line: `evaltui [BASE CAND]` opens the review app; subcommands work headless.

Heavy modules (polars, scipy, textual) are imported only by the command that needs them, so
`--help` is instant: plan, verify and prefer parse without importing the input formats, the
commands that read runs build their format flags from each format's light options module (see
`format_flags.py`), and a headless report never pays for the UI. Every error a user can cause
ends as one line on stderr and exit code 2, never a traceback (`errors.py`); the arguments are
`parser.py`'s.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

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
from evaltui.core.record.adjudication import ADJUDICATORS_VARIABLE
from evaltui.core.record.shared import REVIEW_DIR_VARIABLE

if TYPE_CHECKING:
    from evaltui.core.compare.spec import CompareSpec

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
COMMANDS = ("report", "signoff", "plan", "verify", "prefer", "show", "adjudicate")
DEMO_DIR = "sample_runs"
DEMO_FILES = ("baseline.jsonl", "candidate.jsonl")


def _log_directory(args: argparse.Namespace, *, pick_now: bool) -> Path | None:
    """`evaltui [report] DIR`: a log directory in place of the two runs. With both selectors
    (or `pick_now`, the headless commands: the default pair for what is not named) the pair
    is chosen here and becomes BASE and CAND; otherwise the app's picker chooses, and the
    directory is returned for it."""
    from evaltui.core.errors import UsageError
    from evaltui.core.read.logdir import choose_pair, is_log_directory

    selectors = (args.baseline_run, args.candidate_run)
    if args.candidate is not None or args.baseline is None or not is_log_directory(args.baseline):
        if any(s is not None for s in selectors):
            raise UsageError(
                "--baseline and --candidate pick runs from a log directory: evaltui DIR"
            )
        if args.baseline is not None and args.candidate is None:
            _refuse_a_path_naming_nothing(args.baseline)
            raise UsageError("give two runs (BASE CAND), or a log directory")
        return None
    directory = args.baseline
    if pick_now or all(s is not None for s in selectors):
        base, cand = choose_pair(_listed(directory), *selectors)
        args.baseline, args.candidate = base.path, cand.path
        return None
    args.candidate = directory  # a placeholder until the picker names the pair
    return directory


def _refuse_a_path_naming_nothing(path: Path) -> None:
    """A lone path (`evaltui report DIR`) that names nothing gets its own one line: a
    mistyped folder was told to "give two runs, or a log directory", as if it were one run.
    A URL is looked at once more (the listing found no folder there): a missing object,
    bucket or container, a denied request each say so in their words."""
    from evaltui.core.errors import InputError
    from evaltui.core.read.remote.urls import url_of

    url = url_of(path)
    if url is None:
        if not os.path.lexists(path):
            raise InputError(path, "no such file or folder")
        return
    from evaltui.core.read.remote.registry import blob_for

    blob_for(url).stat()


def _listed(directory: Path):
    """The directory's listing; a remote one's progress (logs and bytes) on stderr at a
    terminal, as a long read's is."""
    from evaltui.cli.progress_line import terminal_progress
    from evaltui.core.read.logdir import list_runs
    from evaltui.core.read.remote.urls import url_of

    url = url_of(directory)
    if url is None:
        return list_runs(directory)
    from evaltui.core.read.remote.blob import TRAFFIC

    with terminal_progress() as line:
        start = TRAFFIC.snapshot()[1]

        def progress(done: int, total: int) -> None:
            if line is not None:
                read = (TRAFFIC.snapshot()[1] - start) / 1e6
                line(f"listing {url}: {done} of {total} logs, {read:.1f} MB read", done, total)

        return list_runs(directory, progress=progress)


# OpenBLAS (numpy's and scipy's each) starts a worker thread per core when it is loaded, and
# the workers spin before they sleep: ~0.12 s of CPU per process on this 2-core machine
# (`python -c "import numpy, scipy.stats, polars"`: 0.90 -> 0.76 s user + sys), paid by every
# command, for matrix products evaltui does not make (its dot products are of a few thousand
# distinct values; a 1M report, issue 28, spent 3.6% of its CPU in `blas_thread_server`). One
# thread, unless the user chose otherwise; read by OpenBLAS when numpy is first imported.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")


def main(argv: Sequence[str] | None = None) -> int:
    names = ("EVALTUI_NO_CACHE", REVIEW_DIR_VARIABLE, ADJUDICATORS_VARIABLE, BLAS_THREADS[0])
    before = {name: os.environ.get(name) for name in names}
    os.environ.setdefault(*BLAS_THREADS)
    try:
        return _main(argv)
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in COMMANDS:
            args = build_parser(args_list[0]).parse_args(args_list)
            _no_cache(args)
            return _run_command(args)
        _refuse_a_mistyped_command(args_list)
        if args_list and args_list[0] in ("-h", "--help") and len(args_list) == 1:
            app_parser().print_help()
            print(
                "\nheadless commands:\n"
                "  evaltui report BASE CAND [options]    (see evaltui report -h)\n"
                "  evaltui signoff BASE CAND [options]   (see evaltui signoff -h)\n"
                "  evaltui verify RECORD [BASE CAND]     (see evaltui verify -h)\n"
                "  evaltui prefer FILE [options]         (see evaltui prefer -h)\n"
                "  evaltui show BASE CAND ITEM_ID        (see evaltui show -h)\n"
                "  evaltui plan --delta D [--design ...]  (see evaltui plan -h)"
            )
            return EXIT_OK
        app_args = app_parser().parse_args(args_list)
        _refuse_a_command_after_options(app_args, args_list)
        _no_cache(app_args)
        return _run_app(app_args)
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


def _no_cache(args: argparse.Namespace) -> None:
    """`--no-cache`: remote runs are read without the on-disk cache (remote/cache.py), for
    this command only (`main` restores the environment it was called with). `--review-dir`
    the same way: every review this command opens (the app's, a report's, a sign-off's, each
    pair of a run set) is then the shared folder's (`core/record/shared.py`)."""
    if getattr(args, "no_cache", False):
        os.environ["EVALTUI_NO_CACHE"] = "1"
    if getattr(args, "review_dir", None):
        os.environ[REVIEW_DIR_VARIABLE] = str(args.review_dir)
    if os.environ.get(REVIEW_DIR_VARIABLE):
        from evaltui.core.record.shared import review_dir_from_env

        review_dir_from_env()  # (refused now, not once the runs are read: a URL, say)
    if getattr(args, "adjudicator", None):  # --adjudicator, for every review opened
        from evaltui.core.record.adjudication import parse_adjudicators

        os.environ[ADJUDICATORS_VARIABLE] = ",".join(parse_adjudicators(args.adjudicator))


def _run_command(args: argparse.Namespace) -> int:
    """A headless command: `plan` is the CLI's own; the others dispatch on the design
    (`cli.commands`), given how the arguments make a comparison spec."""
    from evaltui.cli import commands

    _refuse_url_outputs(args)

    if args.command == "plan":
        return run_plan(args)
    if args.command == "verify":
        return commands.run_verify(args)
    if args.command == "prefer":
        return commands.run_prefer(args)
    if args.command == "adjudicate":
        from evaltui.cli.adjudicate import run_adjudicate

        return run_adjudicate(args, _pair_spec)
    if args.command == "show":
        from evaltui.cli.show import run_show

        return run_show(args, _pair_spec)
    runner = {"report": commands.run_report, "signoff": commands.run_signoff}[args.command]
    return runner(args, spec_from_args, _pair_spec)


OUTPUT_FLAGS = ("output", "junit", "summary")  # the files a command writes
SIGNING_FLAGS = ("signature", "allowed_signers")  # the files `ssh-keygen -Y verify` reads


def _refuse_url_outputs(args: argparse.Namespace) -> None:
    """A file a command writes is local: `--junit s3://b/x.xml` said, once the runs were read
    and compared, "s3:/b/x.xml: No such file or directory". So are the signature files
    `ssh-keygen` reads ("s3:/b/so.sig: no such file"). Refused before any reading."""
    from evaltui.core.errors import UsageError
    from evaltui.core.read.remote.urls import url_of

    for flag in (*OUTPUT_FLAGS, *SIGNING_FLAGS):
        url = url_of(getattr(args, flag, None))
        if url is not None:
            said = (
                "evaltui writes its files to a local path (give one, then copy the file up)"
                if flag in OUTPUT_FLAGS
                else "ssh-keygen reads a local file (copy it down, then give its path)"
            )
            raise UsageError(f"--{flag.replace('_', '-')} {url}: {said}")


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


def _refuse_a_command_after_options(args: argparse.Namespace, args_list: list[str]) -> None:
    """`evaltui --no-cache report A B` parses as the app on runs "report", A and B: the app
    then said "report: no such file" at a terminal, and in CI that it needs a terminal."""
    from evaltui.core.errors import UsageError

    first = str(args.baseline)  # (a Path, or None)
    if first in COMMANDS and first in args_list and not Path(first).exists():
        options = " ".join(args_list[: args_list.index(first)])
        raise UsageError(
            f"{first!r} is a command: put it first, then its options "
            f"(evaltui {first} {options} ...)"
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


def _size_from_the_terminal() -> None:
    """The app takes its size from the terminal, not from a COLUMNS or LINES left in the
    environment: Textual sizes itself with `shutil.get_terminal_size`, which reads those first,
    so an exported COLUMNS=80 (a tmux server started from a shell that had one, a script)
    drew the app 80 wide in a 100-column window and no resize ever reached it."""
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)


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
    team = (args.reviewers, args.reviews_per_item)
    _refuse_a_bad_team(args)
    if not (sys.stdin.isatty() and (sys.stdout.isatty() or sys.stderr.isatty())):
        from evaltui.core.errors import UsageError

        raise UsageError(
            "the review app needs a terminal (stdin is not one); for scripts and CI use "
            "`evaltui report BASE CAND` or `evaltui signoff ...`"
        )
    from evaltui.core.read.collector import collector_paused

    with collector_paused() as start_up:  # (the start-up's imports: see `_open_app`)
        spec = spec_from_args(args)
        from evaltui.core.held_warnings import hold

        warnings = hold()  # the caches' warnings, shown by the app (`core/held_warnings.py`)
        try:
            return _open_app(args, spec, directory, team, start_up)
        finally:
            warnings.stop_holding()


def _open_app(
    args: argparse.Namespace,
    spec: CompareSpec,
    directory: Path | None,
    team: tuple,
    start_up: Callable[[], None],
) -> int:
    """The app on the runs `_run_app` checked, with the caches' warnings held.

    Until the app runs, Python's cyclic collector is paused (`start_up` resumes it): the
    imports make ~125,000 long-lived objects (modules, classes, functions) and no garbage to
    speak of, and each collection they trigger walks every object made so far, about 10 % of
    the imports' CPU (40-50 ms of a reopen's; `adopt` then parks what they made, `gc.freeze`)."""
    from evaltui.core.record.journal import parse_tags

    reading = None
    if not args.more and directory is None:  # two runs named: read them while the UI imports
        from evaltui.core.analysis.early_read import start_reading  # (not the pipeline yet)

        reading = start_reading(spec)
    from evaltui.ui.app import AppConfig, create_app
    from evaltui.ui.terminal import TERMINATED_CODE

    run_set = None
    if args.more:  # three or more runs: the app opens on the matrix of every pair
        from evaltui.core.analysis.run_set import RunSetSpec, refuse_lookalike_run_names

        run_set = RunSetSpec.of(spec, args.more)
        refuse_lookalike_run_names(run_set.runs, args.allow_lookalike_names)
    app = create_app(
        AppConfig(
            spec=spec,
            tags=parse_tags(args.tags) if args.tags else None,
            log_directory=directory,
            fresh=args.fresh,
            reviewer=args.reviewer,
            run_set=run_set,
            team=team,
            reading=reading,
        )
    )
    app.quit_without_waiting = True
    _size_from_the_terminal()
    gc.freeze()  # (what start-up made lives as long as the process: never walked again)
    start_up()  # (the collector as it was: the app pauses it around its own loads)
    app.run()
    if app.hung_up:  # the terminal is gone (or SIGTERM): give the pair back and end
        if app.loaded is not None:
            app.loaded.session.close()
        if app.return_code == TERMINATED_CODE:  # told to end: the terminal may still be there
            with contextlib.suppress(OSError):  # (a stuck one: the backstop ends the process)
                sys.stderr.write(
                    "evaltui: told to end (SIGTERM), as another evaltui taking the review "
                    "over does; every tag and note was saved, a note being typed kept as a draft\n"
                )
                sys.stderr.flush()
        os._exit(app.return_code or 0)
    if app.load_error:
        sys.stderr.write(f"evaltui: error: {message_line(app.load_error)}\n")
    code = app.return_code or 0
    app.finish_keeping()  # (the analysis kept for the next open, if being written)
    _leave_without_waiting_for_workers(app, code)
    return code


def _refuse_a_bad_team(args: argparse.Namespace) -> None:
    """A bad --reviewers list or count (or one the policy's [review] makes bad) is refused
    before the screen opens, in one line."""
    if args.reviewers is None and args.reviews_per_item is None:
        return
    from evaltui.core.policy.schema import load_policy
    from evaltui.core.record.assignment import team_of

    policy = load_policy(args.policy) if args.policy is not None else None
    team_of(args.reviewers, args.reviews_per_item, policy)


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
