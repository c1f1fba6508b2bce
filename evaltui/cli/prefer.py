"""`evaltui prefer FILE`: the paired win rate (two systems) or the all-pairs matrix and the
Bradley-Terry fit (three or more) from a judge's per-item preferences (docs/preferences.md).

This module is the subcommand's parser; `cli.commands.run_prefer` runs it on the preference
design (`core.designs.PREFERENCE`). The exit code is the decision's, as for `evaltui report`:
0 ready or needs review, 1 blocked (a candidate loses to the baseline), 4 no verdict; bad input
or usage is 2 (cli.main turns the one-line error into it).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `prefer` on the main parser's subcommands (their parser class is cli's)."""
    parser = sub.add_parser(
        "prefer",
        help="win rates from a judge's per-item preferences (A better / B better / tie)",
        description="Read a preference file (JSONL or CSV: item_id, preference = A, B or tie, "
        "and system_a/system_b for more than two systems) and print the candidate's paired win "
        "rate against the baseline with its interval, led by the decision line; with three or "
        "more systems also every pair's win rate (p-values adjusted over the pairs) and a "
        "Bradley-Terry fit. Exit 0: ready or needs review; 1: blocked (a candidate loses to the "
        "baseline); 2: bad input or usage; 4: no verdict.",
    )
    parser.add_argument("file", type=Path, help="the preference file (JSONL or CSV)")
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="NAME",
        help="the baseline system (default: A without system columns, else the first system "
        "the file names)",
    )
    parser.add_argument(
        "--candidate",
        default=None,
        metavar="NAME",
        help="the one system the decision is about (default: every system but the baseline)",
    )
    parser.add_argument(
        "--ties",
        choices=("split", "drop"),
        default="split",
        help="the headline win rate: a tie is half a win each (split, default) or ties are "
        "dropped (drop); the other is shown beside it",
    )
    parser.add_argument("--confidence", type=float, default=0.95, help="default 0.95")
    parser.add_argument("--alpha", type=float, default=0.05, help="default 0.05")
    parser.add_argument(
        "--multiplicity",
        choices=("holm", "bh", "bonferroni", "none"),
        default="holm",
        help="adjustment of the pairs' p-values (default holm)",
    )
    parser.add_argument(
        "--allow-lookalike-names",
        action="store_true",
        help="systems whose names differ only by look-alike characters (a Cyrillic а), case or "
        "invisible characters are different systems (refused without this)",
    )
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    return parser
