"""GitHub Actions: a report's job summary (Markdown) and its error annotations (workflow commands).

Formats, as GitHub documents them ("Workflow commands for GitHub Actions",
https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions):

- an annotation is one line, `::error file={name},title={title}::{message}` (also `::warning`,
  `::notice`), read by the runner from the step's output;
- a job summary is GitHub-flavoured Markdown appended to the file `$GITHUB_STEP_SUMMARY` names
  ("Adding a job summary"; at most 1 MiB per step);
- `::stop-commands::{token}` ... `::{token}::` makes the runner ignore workflow commands in the
  lines between ("Stopping and starting workflow commands"): the CLI wraps a text report that
  quotes the runs in it.

Escaping follows the runner's unescaping (actions/runner, src/Runner.Common/ActionCommand.cs):
a message (data) escapes `%`, CR and LF as `%25`, `%0D`, `%0A`; a property also `:` and `,` as
`%3A`, `%2C`. Text from the runs (ids, slices, metric names) is untrusted: it is made inert
first (control characters as visible stand-ins), and the two sequences a runner reads as a
command, `::` (a command's separator) and `##[` (the legacy `##[command]` form, which the runner
finds anywhere in a line), are broken with a space, so no id can end our command early or start
one of its own.

GitHub shows at most 10 error annotations per step and 50 per job (actions/toolkit,
docs/problem-matchers.md, "Limitations"): the decision comes first, then the regressions up to
the limit, then one warning that counts the rest and says where they are. A pull-request
comment holds 65,536 characters: the summary is cut to fit, the cut said in a line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from evaltui.core.decide.vocabulary import STATUS_WORDS
from evaltui.core.report.findings import Finding, Findings, FindingSuite
from evaltui.core.textsafe import inert, md_cell

ERRORS_PER_STEP = 10  # error annotations GitHub shows per step
COMMENT_LIMIT = 65_536  # characters of one issue or pull-request comment
SUMMARY_MARGIN = 1_000  # room kept below the limit for the closing lines
ARTIFACT = "the JUnit file and the JSON report (`evaltui report --junit PATH --format json`)"

_COLONS = re.compile(r":(?=:)")
_LEGACY = re.compile(r"#(?=#\[)")


def defused(text: str) -> str:
    """Untrusted text that cannot be, or end, a workflow command: inert, `::` -> `: :`,
    `##[` -> `# #[`."""
    return _LEGACY.sub("# ", _COLONS.sub(": ", inert(text)))


_LINE_START_COLONS = re.compile(r"(?m)^([^\S\n]*):(?=:)")  # `::` after leading space (any)


def defused_document(text: str, form: str) -> str:
    """A report document (`form`: json or markdown) printed to stdout in Actions, with nothing
    the runner reads as a workflow command, and the same document to its reader:

    - JSON: `##[` (the legacy form, found anywhere in a line) can only be inside a string, where
      `#\\u0023[` decodes to the same text; `::` cannot start a JSON line (after the
      indentation a line starts with a quote, a bracket, a brace or a number).
    - Markdown: `##[` becomes `#\\#[` and a line's leading `::` becomes `\\::` (CommonMark's
      backslash escapes: rendered the same outside code; inside a code span the backslash
      shows, which is the price of a document the runner cannot be steered by).

    The runner trims a line's leading whitespace before it looks for `::` (actions/runner,
    ActionCommand.TryParseV2), and splits the output on newlines only."""
    if form == "json":
        return text.replace("##[", "#\\u0023[")
    return _LINE_START_COLONS.sub(r"\1\\:", text.replace("##[", "#\\#["))


def escape_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped as the runner unescapes them."""
    return defused(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: the message's escapes, and `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **properties: str | None) -> str:
    """One workflow command line, e.g. `::error file=a.jsonl,title=...::...`."""
    props = ",".join(f"{k}={escape_property(v)}" for k, v in properties.items() if v)
    return f"::{kind}{' ' + props if props else ''}::{escape_data(message)}"


def stop_commands(token: str) -> tuple[str, str]:
    """The lines that stop the runner reading workflow commands, and start it again."""
    return f"::stop-commands::{token}", f"::{token}::"


def annotation_lines(findings: Findings, file_of: Callable[[str], str | None]) -> list[str]:
    """The decision (an error when the exit code is not 0, else a notice) and each regression
    as an error annotation, within GitHub's 10 errors per step; `file_of` turns a run's path
    into the repository-relative path an annotation may point at (None: no file)."""
    blocking = findings.exit_code != 0
    title = f"evaltui: {STATUS_WORDS.get(findings.status, findings.status)}"
    lines = [command("error" if blocking else "notice", findings.line, title=title)]
    room = ERRORS_PER_STEP - (1 if blocking else 0)
    regressions = findings.regressions
    for suite, case in regressions[:room]:
        lines.append(_regression(suite, case, file_of))
    if len(regressions) > room:
        more = len(regressions) - room
        lines.append(
            command(
                "warning",
                f"{more:,} more regressions are not annotated (GitHub shows {ERRORS_PER_STEP} "
                "error annotations per step): every one is in the job summary and the JUnit file",
                title="evaltui",
            )
        )
    return lines


def _regression(suite: FindingSuite, case: Finding, file_of: Callable[[str], str | None]) -> str:
    where = f" (slice {case.slice})" if case.slice else ""
    return command(
        "error",
        f"{case.name}: {case.message}{where}",
        file=file_of(suite.file) if suite.file else None,
        title=f"{suite.name}: {case.name} regressed",
    )


def job_summary(markdown: str, findings: Findings, limit: int = COMMENT_LIMIT) -> str:
    """The job summary, also a pull request's comment body: the design's report Markdown (its
    first line is the decision's), then every regression item by item, cut to stay under
    `limit` characters with a line that says how many are not shown and where they are."""
    budget = limit - SUMMARY_MARGIN
    report = markdown.rstrip("\n").split("\n")
    regressions = findings.regressions
    table = ["", f"### Regressions, item by item ({len(regressions):,})", ""]
    if regressions:
        table += ["| metric | item | slice | what changed |", "|---|---|---|---|"]
    else:
        table += ["None."]
    head: list[str] = []
    used = sum(len(line) + 1 for line in table)
    for index, line in enumerate(report):
        if used + len(line) + 1 > budget // 2 and index > 0:  # the report keeps half at most
            head.append("")
            head.append(
                f"**The report is cut here: {len(report) - index:,} more lines not shown; "
                f"see the artifact**: {ARTIFACT}."
            )
            break
        head.append(line)
        used += len(line) + 1
    rows: list[str] = []
    for suite, case in regressions:
        row = (
            f"| {md_cell(suite.name)} | `{md_cell(case.name, code=True)}` | "
            f"{md_cell(case.slice or '')} | {md_cell(case.message)} |"
        )
        if used + len(row) + 1 > budget:
            break
        rows.append(row)
        used += len(row) + 1
    tail = []
    if len(rows) < len(regressions):
        tail = [
            "",
            f"**{len(regressions) - len(rows):,} more regressions not shown; see the artifact**: "
            f"{ARTIFACT}.",
        ]
    return "\n".join([*head, *table, *rows, *tail, ""])
