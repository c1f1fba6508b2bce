"""`evaltui report` in CI: the GitHub Actions job summary and annotations, a JUnit file, and a
Markdown file for a pull request's comment (`--github`, `--junit`, `--summary`).

All of them are written from the design's findings (`Design.findings`) and its report Markdown,
so they say what the report and its exit code say: the first line is the decision's, and the
exit code is unchanged. The files are written before anything is printed, so a file that cannot
be written ends the command with its one-line error (exit 2) and no verdict on stdout.

In GitHub Actions (`GITHUB_ACTIONS=true`, or `--github on`), the annotations are workflow
commands on stdout after a text report; after a Markdown or JSON report they go to stderr
instead (the runner reads workflow commands on both streams, and a document on stdout is often
redirected to a file, which a command line would spoil). The report quotes the runs, so it is
printed through `run_text.print_run_text`, as every command's run text is: a text report between
`::stop-commands::` and its resume token, a Markdown or JSON report defused to the same
document; in Actions that holds with `--github off` too (the runner reads stdout whatever the
flags). Errors and warnings on stderr are defused in Actions too (`errors.message_line`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from evaltui.cli.run_text import DOCUMENTS, in_actions, print_run_text, write_line

GITHUB_CHOICES = ("auto", "on", "off")


def add_ci_args(parser: argparse.ArgumentParser) -> None:
    """The report's CI flags."""
    group = parser.add_argument_group("CI outputs")
    group.add_argument(
        "--github",
        choices=GITHUB_CHOICES,
        default="auto",
        help="GitHub Actions job summary (appended to $GITHUB_STEP_SUMMARY) and an error "
        "annotation per regression (workflow commands); auto (default): when "
        "GITHUB_ACTIONS=true",
    )
    group.add_argument(
        "--junit",
        type=Path,
        default=None,
        metavar="PATH",
        help="write a JUnit XML file: each regression a failing test case, each improvement a "
        "passing one, one test suite per metric, and the decision as a case that fails with "
        "the exit code",
    )
    group.add_argument(
        "--summary",
        type=Path,
        default=None,
        metavar="PATH",
        help="write the job summary's Markdown to PATH (a pull request's comment body: under "
        "65,536 characters, led by the decision line)",
    )


def github_on(choice: str, environ: Mapping[str, str]) -> bool:
    """Whether the GitHub Actions outputs are written: `--github on`, or auto in Actions."""
    if choice == "auto":
        return in_actions(environ)
    return choice == "on"


def report_with_ci(
    design: Any,
    decided: Any,
    args: argparse.Namespace,
    print_report: Callable[[Any, Any, str], int],
    environ: Mapping[str, str] | None = None,
) -> int:
    """Write the CI files the arguments ask for, print the report (wrapped and followed by the
    annotations in Actions), and return the decision's exit code."""
    env = os.environ if environ is None else environ
    github = github_on(getattr(args, "github", "off"), env)
    junit, summary = getattr(args, "junit", None), getattr(args, "summary", None)
    form, guard = args.format, github or in_actions(env)  # (--github off: still inert in Actions)
    if not (github or junit or summary):
        return print_run_text(form, lambda: print_report(design, decided, form), guard)
    from evaltui.core.report.github import annotation_lines, job_summary

    findings = design.findings(decided)
    if junit is not None:
        from evaltui.core.report.junit import junit_xml

        Path(junit).write_text(junit_xml(findings), encoding="utf-8")
    markdown = job_summary(design.report_markdown(decided), findings) if github or summary else ""
    if summary is not None:
        Path(summary).write_text(markdown, encoding="utf-8")
    if github:
        _append_step_summary(markdown, env)
    code = print_run_text(form, lambda: print_report(design, decided, form), guard)
    if github:  # (after a document: on stderr, as stdout is often redirected to a file)
        stream = sys.stderr if form in DOCUMENTS else sys.stdout
        for line in annotation_lines(findings, _file_of(env)):
            write_line(stream, line)
    return code


def _append_step_summary(markdown: str, env: Mapping[str, str]) -> None:
    """Append to the file `$GITHUB_STEP_SUMMARY` names (GitHub's docs: append, one per step)."""
    target = env.get("GITHUB_STEP_SUMMARY")
    if not target:
        sys.stderr.write(
            "evaltui: warning: $GITHUB_STEP_SUMMARY is not set, so no job summary is written "
            "(--summary PATH writes its Markdown to a file)\n"
        )
        return
    with open(target, "a", encoding="utf-8") as out:
        out.write(markdown + "\n")


def _file_of(env: Mapping[str, str]) -> Callable[[str], str | None]:
    """A run's path as an annotation's `file`: relative to the workspace (`GITHUB_WORKSPACE`,
    else the current folder), or None for a file outside it (GitHub can point at no other)."""
    workspace = Path(env.get("GITHUB_WORKSPACE") or Path.cwd()).resolve()

    def file_of(path: str) -> str | None:
        try:
            return Path(path).resolve().relative_to(workspace).as_posix()
        except (ValueError, OSError):
            return None

    return file_of
