"""`evaltui adjudicate BASE CAND ITEM_ID --tag TAG --reason TEXT`: settle a disputed item of a
shared review from a script, as the app's adjudicate key does (`core/record/adjudication.py`).

The adjudication is journalled in the adjudicator's own journal of the shared folder
(`--review-dir` or $EVALTUI_REVIEW_DIR), as `--reviewer` (else $EVALTUI_REVIEWER, git's
user.name, the login); only a named adjudicator (`--adjudicator`, the policy's `[review]
adjudicators`) may. Exit 0 and one line saying what was settled; 2 and one line otherwise.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any


def add_parser(
    sub: argparse._SubParsersAction,
    add_pairing_args: Callable[..., None],
    add_review_dir: Callable[[argparse.ArgumentParser], None],
    *,
    with_formats: bool,
) -> argparse.ArgumentParser:
    """Register `adjudicate` on the main parser's subcommands (the pairing and review-folder
    arguments handed in: no import cycle)."""
    parser = sub.add_parser(
        "adjudicate",
        help="settle a disputed item of a shared review (an adjudicator's tag and reason)",
        usage="evaltui adjudicate BASE CAND ITEM_ID --tag TAG --reason TEXT [options]",
        description="Settle a regression whose reviewers' tags disagree: the settled tag and "
        "a one-line reason, journalled in your own journal of the shared review folder. Only "
        "an adjudicator (--adjudicator NAME, or the policy's [review] adjudicators) may; a "
        "later adjudication of the item replaces this one. Exit 0; 2: refused or bad input.",
    )
    add_pairing_args(parser, with_formats=with_formats)
    add_review_dir(parser)
    parser.add_argument("--tag", required=True, help="the settled tag")
    parser.add_argument("--reason", required=True, help="why, in one line")
    parser.add_argument(
        "--reviewer",
        default=None,
        help="who adjudicates (default: $EVALTUI_REVIEWER, else git config user.name, else "
        "your login name)",
    )
    return parser


def run_adjudicate(args: argparse.Namespace, pair_spec_of: Callable[[Any], Any]) -> int:
    from evaltui.cli.errors import EXIT_OK
    from evaltui.core.analysis.pipeline import compare
    from evaltui.core.errors import UsageError
    from evaltui.core.record.session import (
        adjudicate,
        check_settleable,
        reviewer_identity,
        start_review,
    )
    from evaltui.core.record.shared import review_dir_from_env
    from evaltui.core.textsafe import one_line

    more = list(args.more or ())
    if len(more) != 1:
        raise UsageError(
            "give the baseline, the candidate and one item id: "
            "evaltui adjudicate BASE CAND ITEM_ID --tag TAG --reason TEXT"
        )
    if review_dir_from_env() is None:
        raise UsageError(
            "adjudicate settles a shared review's dispute: give --review-dir DIR "
            "(or set EVALTUI_REVIEW_DIR)"
        )
    item_id = str(more[0])
    args.more = []
    analysis = compare(pair_spec_of(args))
    # Checked on a read-only look first: a refusal leaves no journal of this reviewer behind.
    look = start_review(analysis, read_only=True, reviewer=reviewer_identity(args.reviewer))
    check_settleable(analysis, look, item_id)
    session = start_review(analysis, reviewer=args.reviewer)
    try:
        settled = adjudicate(analysis, session, item_id, args.tag, args.reason)
    finally:
        session.close()
    sys.stdout.write(
        f"{one_line(item_id, 80)}: settled as {one_line(str(settled.tag), 60)} by "
        f"{one_line(session.reviewer, 60)}\n"
    )
    return EXIT_OK
