"""`evaltui show BASE CAND ITEM_ID`: one item's two transcripts, aligned, for a pipe.

Plain text side by side at the terminal's width (or `--width`), or stacked (`--stacked`), or
a collapsible Markdown block for a PR comment (`--format markdown`); the same turns, marks and
first-divergence mark as the app's item view (`core.report.item_show`). Exit 0, or 2 with one
line naming what was wrong (an unknown item id, an unreadable run). In GitHub Actions the
transcripts are printed through `run_text.print_run_text`, so no model output steers the runner.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable


def add_parser(
    sub: argparse._SubParsersAction,
    add_pairing_args: Callable[..., None],
    *,
    with_formats: bool,
) -> argparse.ArgumentParser:
    """Register `show` on the main parser's subcommands, with the pairing arguments of every
    command that reads two runs (`parser.add_pairing_args`, handed in: no import cycle)."""
    parser = sub.add_parser(
        "show",
        help="print one item's two transcripts, aligned (text or markdown)",
        usage="evaltui show BASE CAND ITEM_ID [options]",
        description="Print the baseline's and the candidate's transcripts of one item, turns "
        "aligned by content (tool calls, results, tool errors, folded reasoning), the first "
        "divergence marked, the counts and each sample's cost in the header. Exit 0; 2: bad "
        "input or an item id neither run pairs.",
    )
    add_pairing_args(parser, with_formats=with_formats)
    parser.add_argument("--epoch", type=int, default=1, help="which epoch (default 1)")
    parser.add_argument(
        "--stacked", action="store_true", help="one side after the other, not side by side"
    )
    parser.add_argument(
        "--width", type=int, default=None, help="columns (default: the terminal's, else 120)"
    )
    parser.add_argument(
        "--unfold", action="store_true", help="reasoning, long tool arguments and results in full"
    )
    parser.add_argument("--format", choices=("text", "markdown"), default="text")
    return parser


def run_show(args: argparse.Namespace, pair_spec_of) -> int:
    from evaltui.cli.errors import EXIT_OK
    from evaltui.cli.run_text import print_run_text
    from evaltui.core.analysis.pipeline import compare
    from evaltui.core.errors import UsageError
    from evaltui.core.report.item_show import (
        item_show,
        markdown_text,
        side_by_side_text,
        stacked_text,
    )

    more = list(args.more or ())
    if len(more) != 1:
        raise UsageError(
            "give the baseline, the candidate and one item id: evaltui show BASE CAND ITEM_ID"
        )
    if args.epoch < 1:
        raise UsageError(f"--epoch must be 1 or more, not {args.epoch}")
    item_id = str(more[0])
    args.more = []
    analysis = compare(pair_spec_of(args), complete=False)
    show = item_show(analysis.paired, item_id, args.epoch, args.unfold)
    if args.format == "markdown":
        text = markdown_text(show)
    else:
        width = args.width or shutil.get_terminal_size((120, 24)).columns
        text = stacked_text(show, width) if args.stacked else side_by_side_text(show, width)

    def write() -> int:
        sys.stdout.write(text)
        return EXIT_OK

    return print_run_text(args.format, write)  # (model output: inert to a CI runner)
