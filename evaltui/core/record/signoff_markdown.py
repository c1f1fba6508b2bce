"""The sign-off record as Markdown a reviewer pastes into a pull request as it is.

A PR comment is read top down and cut at GitHub's limit (65,536 characters), so the order is the
order of importance: the decision line and its reasons, who decided what and what an approval
overrode, what was compared (each run's task, model, scorers, dataset, harness, date and file,
relative to where the command ran: never an absolute local path), then the regressions (each
with its tag, who tagged it, the note, and a short excerpt of both outputs in a collapsible
block), then the improvements as a count and a few ids, then the numbers. Past the limit the
regressions that do not fit are counted and the reader is sent to the CSV and the JSON written
beside this file, which hold every item.

Every string taken from an input or a reviewer is escaped (`textsafe.md_cell`): an id, a note or
a model output cannot break a table, open a tag or inject HTML.
"""

from __future__ import annotations

from typing import Any

from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.canonical import HASH_FIELD
from evaltui.core.compare.comparability import assess
from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW
from evaltui.core.decide.vocabulary import SEPARATOR, split_line
from evaltui.core.read.describe import display_path
from evaltui.core.read.runs import ITEM_ID
from evaltui.core.report.compared import compared_markdown, described
from evaltui.core.report.item_show import command_for, shell_word
from evaltui.core.report.pair_markdown import report_markdown
from evaltui.core.textsafe import md_cell

GITHUB_COMMENT_LIMIT = 65_536  # characters in one issue or pull-request comment
LIMIT_MARGIN = 2_000  # room kept for the closing lines
EXCERPT_CHARS = 160  # of each output, in the collapsible block
# Regressions whose outputs are read at once: the budget lists a few hundred at most, and
# reading all of a 200,000-item pair's 9,805 regressions' outputs took 5 s of its sign-off.
EXCERPT_BATCH = 256
SHOWN_IMPROVEMENTS = 10  # ids named beside the improvement count
# Up to this many characters of the two quoted paths, each regression's row holds the whole
# `evaltui show` command (copied as it is); longer (deep directories, URLs), the command is
# written once above the table with `<id>` and the rows hold the ids, so the table stays
# readable and the comment's budget goes to regressions.
SHORT_PATHS = 60


def record_markdown(
    record: dict[str, Any], analysis: Analysis, limit: int = GITHUB_COMMENT_LIMIT
) -> str:
    """The record as PR-ready Markdown of at most `limit` characters."""
    paired = analysis.paired
    compared = compared_markdown(
        {
            "inputs": record["inputs"],
            "metric": analysis.metric,
            "comparability": assess(paired.baseline, paired.candidate).to_dict(),
            "direction": analysis.direction.to_dict(),
        }
    )
    head = _head(record, compared)
    regressions = [i for i in record["items"] if i["direction"] == "regression"]
    improvements = [i for i in record["items"] if i["direction"] == "improvement"]
    results = report_markdown(
        analysis,
        gates=record["gates"] or None,
        decision=record["decision"],
        heading="## Results",
        list_ids=False,
        compared=False,
    )
    tail = [
        _improvements(improvements),
        results,
        f"<sub>record `{record[HASH_FIELD]}` · evaltui {record['tool']['version']} · "
        f"schema {record['schema']}</sub>",
        "",
    ]
    budget = limit - LIMIT_MARGIN - sum(len(t) + 1 for t in (*head, *tail))
    body = _regressions(regressions, analysis, budget, record.get("inputs"))
    return "\n".join([*head, *body, *tail])


def decision_markdown(decision: dict[str, Any]) -> str:
    """The decision line (a record's `decision`: its status and line) as the comment's first
    line: the status word in bold, the rest plain (a heading that long is hard to read in a
    PR; the bold word carries the meaning). The record keeps the line, not its parts: the
    vocabulary that composed it reads its status word back (`vocabulary.split_line`)."""
    word, rest = split_line(decision["status"], decision["line"])
    if not word:
        return md_cell(rest)
    return f"**{md_cell(word)}**" + (f"{SEPARATOR}{md_cell(rest)}" if rest else "")


def _head(record: dict[str, Any], compared: list[str]) -> list[str]:
    triage = record["triage"]
    decision = record["decision"]
    by_tag = ", ".join(f"{md_cell(tag)} {count}" for tag, count in triage["by_tag"].items())
    lines = [decision_markdown(decision), ""]
    lines += [f"- {md_cell(r['text'])}" for r in decision["reasons"]]
    lines += [
        f"**Reviewer's decision: {record['reviewer_decision']}** by "
        f"{md_cell(record['reviewer'])}, {record['created']}",
        "",
        f"Rationale: {md_cell(record['rationale'])}",
        "",
        f"Regressions triaged: {triage['triaged']:,} of {triage['regressions']:,}"
        + (f" (by tag: {by_tag})" if by_tag else ""),
        "",
    ]
    lines += _team(record.get("team_review"))
    if record["override"]:
        over = "; ".join(md_cell(p) for p in record["override"]["overrides"])
        lines += [
            f"**Override**: approved over {over}. Reason: {md_cell(record['override']['reason'])}",
            "",
        ]
    if record["policy"].get("rules") is not None:
        lines += [f"Policy hash: `{record['policy_hash']}`", ""]
    return lines + compared


def _team(team: dict[str, Any] | None) -> list[str]:
    """Who reviewed, how many reviews, the disputes settled and open, each adjudication (who,
    why, when) and the agreement line (a record made before a team review has none)."""
    if not team:
        return []
    names = ", ".join(md_cell(name) for name in team["reviewers"]) or "nobody"
    lines = [
        f"Reviewers: {names} ({len(team['reviews']):,} reviews); disputes: "
        f"{len(team['disputes_settled']):,} settled, {len(team['disputes_open']):,} open "
        f"(rule: {md_cell(team['dispute_rule'])})",
        "",
        md_cell(team["agreement"]["line"]),
        "",
    ]
    for a in team["adjudications"]:
        lines.append(
            f"- adjudicated `{md_cell(a['item_id'], code=True)}` as {md_cell(a['tag'])} by "
            f"{md_cell(a['by'])}, {md_cell(a['time'])}: {md_cell(a['reason'])}"
        )
    return [*lines, ""] if team["adjudications"] else lines


def _regressions(
    items: list[dict[str, Any]],
    analysis: Analysis,
    budget: int,
    inputs: dict[str, Any] | None = None,
) -> list[str]:
    if not items:
        return ["## Regressions", "", "None.", ""]
    lines = [f"## Regressions ({len(items):,})", ""]
    paths = _run_paths(inputs)
    words = " ".join(shell_word(p) for p in paths)
    in_rows = len(words) <= SHORT_PATHS
    # Long paths: a column of quoted ids only when some id reads otherwise in a shell (a space,
    # a quote, a `$`); when none does, the item column is already what `<id>` stands for.
    quoted_column = not in_rows and any(shell_word(i["item_id"]) != i["item_id"] for i in items)
    if in_rows:
        lines += [
            "Each item's two transcripts, aligned: the command in its row (run where the "
            "sign-off was made).",
            "",
        ]
    else:
        command = md_cell(f"evaltui show {words} <id>", code=True)
        where = (
            "its row's last column gives it (quoted for a shell"
            if quoted_column
            else "its row's item (no id needs quoting"
        )
        lines += [
            f"Each item's two transcripts, aligned: `{command}`, with `<id>` as {where}; run "
            "where the sign-off was made).",
            "",
        ]
    last = " show it |" if in_rows else (" `<id>` |" if quoted_column else "")
    lines += [
        "| item | slice | tag | tagged by | note |" + last,
        "|---|---|---|---|---|" + ("---|" if last else ""),
    ]
    excerpts: dict[str, tuple[str, str]] = {}
    rows: list[str] = []
    details: list[str] = []
    used = sum(len(x) + 1 for x in lines) + 200  # the closing lines of this section
    shown = 0
    for index, item in enumerate(items):
        if index % EXCERPT_BATCH == 0:  # the next outputs, read only if the list gets there
            batch = items[index : index + EXCERPT_BATCH]
            excerpts = _excerpts(analysis, [i["item_id"] for i in batch])
        show = md_cell(
            command_for(item["item_id"], *paths) if in_rows else shell_word(item["item_id"]),
            code=True,
        )
        row = (
            f"| `{md_cell(item['item_id'], code=True)}` | {md_cell(item['slice'] or '')} | "
            f"{md_cell(item['tag'] or 'untriaged')} | {md_cell(item['tagged_by'] or '')} | "
            f"{md_cell(item['note'] or '')} |" + (f" `{show}` |" if last else "")
        )
        base, cand = excerpts.get(item["item_id"], ("", ""))
        detail = (
            f"- `{md_cell(item['item_id'], code=True)}`: baseline «{md_cell(base)}» · "
            f"candidate «{md_cell(cand)}»"
        )
        cost = len(row) + len(detail) + 2
        if used + cost > budget:
            break
        rows.append(row)
        details.append(detail)
        used += cost
        shown += 1
    lines += rows
    lines.append("")
    if shown < len(items):
        lines += [
            f"**{len(items) - shown:,} more regressions are not listed here** (a PR comment holds "
            f"{GITHUB_COMMENT_LIMIT:,} characters): every item, with its tag and note, is in the "
            "CSV and the JSON record written beside this file.",
            "",
        ]
    if details:
        lines += [
            "<details><summary>Both outputs of the regressions listed (excerpts)</summary>",
            "",
            *details,
            "",
            "</details>",
            "",
        ]
    return lines


def _run_paths(inputs: dict[str, Any] | None) -> tuple[str, str]:
    """The runs as the record's "What was compared" names them (relative to where the
    sign-off ran, else the file name; a URL whole: `describe.display_path`); BASE and CAND
    for a record without them."""
    if not inputs:
        return ("BASE", "CAND")
    found = []
    for arm, placeholder in (("baseline", "BASE"), ("candidate", "CAND")):
        described_arm = described(inputs, arm) or {}
        path = described_arm.get("file") or inputs.get(arm, {}).get("path")
        found.append(display_path(str(path)) if path else placeholder)
    return (found[0], found[1])


def _improvements(items: list[dict[str, Any]]) -> str:
    if not items:
        return "## Improvements\n\nNone.\n"
    ids = ", ".join(f"`{md_cell(i['item_id'], code=True)}`" for i in items[:SHOWN_IMPROVEMENTS])
    more = (
        f" and {len(items) - SHOWN_IMPROVEMENTS:,} more" if len(items) > SHOWN_IMPROVEMENTS else ""
    )
    return (
        f"## Improvements ({len(items):,})\n\n{ids}{more} (all of them, with any tags and notes, "
        "are in the CSV and the JSON record).\n"
    )


def _excerpts(analysis: Analysis, item_ids: list[str]) -> dict[str, tuple[str, str]]:
    """Each item's two outputs, cut to a short excerpt on one line (read in one batch per
    side; a reader that cannot give outputs gives empty excerpts, not an error)."""
    import polars as pl

    items = analysis.paired.items
    wanted = pl.DataFrame({ITEM_ID: item_ids}, schema={ITEM_ID: pl.String})
    rows = wanted.join(
        items.select(ITEM_ID, BASE_ROW, CAND_ROW), on=ITEM_ID, how="left", maintain_order="left"
    )
    base_rows, cand_rows = rows[BASE_ROW].to_list(), rows[CAND_ROW].to_list()
    try:
        base = analysis.paired.baseline.transcripts.read_field(base_rows, "output")
        cand = analysis.paired.candidate.transcripts.read_field(cand_rows, "output")
    except Exception:  # noqa: BLE001 - excerpts are a courtesy; the record stands without them
        return {}
    return {
        item_id: (_excerpt(b), _excerpt(c))
        for item_id, b, c in zip(item_ids, base, cand, strict=True)
    }


def _excerpt(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"
