"""The sign-off Markdown is pasted into a PR as it is: it renders as intended in a CommonMark
renderer, leads with the decision, lists regressions first, and fits GitHub's comment limit."""

from __future__ import annotations

import json

import pytest
from markdown_it import MarkdownIt

from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.record.session import start_review
from evaltui.core.record.signoff import ReviewerDecision, build_record
from evaltui.core.record.signoff_markdown import (
    EXCERPT_BATCH,
    GITHUB_COMMENT_LIMIT,
    record_markdown,
)


def render(markdown: str) -> list:
    return MarkdownIt("commonmark").enable("table").parse(markdown)


def headings(tokens) -> list[tuple[str, str]]:
    return [
        (tok.tag, tokens[i + 1].content)
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open"
    ]


@pytest.fixture
def demo_record(sample_pair, tmp_path):
    analysis = compare_files(*sample_pair, policy=sample_pair[0].parent / "policy.toml")
    session = start_review(analysis, state_root=tmp_path / "state", reviewer="dana")
    first, second = analysis.regressions[:2]
    session.set_tag(first, "confirmed regression")
    session.set_note(first, "misses the MAOI warning | <script>alert(1)</script>")
    session.set_tag(second, "acceptable")
    decision = ReviewerDecision("dana", "block", "drug interactions regressed")
    return build_record(analysis, session, decision), analysis


def test_the_demo_signoff_renders_as_headings_one_table_per_list_and_separate_warnings(
    demo_record,
):
    record, analysis = demo_record
    markdown = record_markdown(record, analysis)
    tokens = render(markdown)
    found = headings(tokens)
    first = next(t for t in tokens if t.type == "inline")  # the first paragraph: the decision
    assert first.content.startswith("**BLOCKED** · 3 gates failed")
    assert found[0] == ("h2", "Regressions (9)")
    assert ("h2", "Regressions (9)") in found and ("h2", "Improvements (21)") in found
    assert ("h2", "Results") in found
    order = [text for _, text in found]
    assert (
        order.index("Regressions (9)") < order.index("Improvements (21)") < order.index("Results")
    )
    # What was compared comes first (a row per run), then the regressions, one table of 9
    # rows; the improvements are a count and a few ids.
    tables = [i for i, t in enumerate(tokens) if t.type == "table_open"]

    def rows(start: int) -> int:
        count = 0
        for tok in tokens[start:]:
            if tok.type == "table_close":
                break
            count += tok.type == "tr_open"
        return count

    assert rows(tables[0]) == 1 + 2  # the header row, the baseline and the candidate
    assert "What was compared" in markdown.split("## Regressions")[0]
    assert rows(tables[1]) == 1 + 9  # the header row and the nine regressions
    assert "and 11 more" in markdown
    # Each warning is a paragraph of its own (consecutive "> ⚠" lines would merge into one).
    quotes = sum(1 for t in tokens if t.type == "blockquote_open")
    assert quotes == len(record["results"]["warnings"]) >= 2
    # The excerpts sit in a collapsible block; the note's HTML is inert.
    assert "<details><summary>Both outputs of the regressions listed" in markdown
    assert "<script>" not in markdown and "\\<script\\>" in markdown
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<script>" not in html


def test_the_signoff_opens_with_the_decision_tag_counts_and_failed_gates(demo_record):
    record, analysis = demo_record
    lines = record_markdown(record, analysis).splitlines()
    assert lines[0].startswith(
        "**BLOCKED** · 3 gates failed (no regressions in drug\\_interactions"
    )
    text = "\n".join(lines[:20])
    assert "1 confirmed regression" in lines[0]
    assert "3 release gates failed: no regressions in drug\\_interactions" in text
    assert "(by tag: confirmed regression 1, acceptable 1)" in text
    assert "Policy hash:" in text  # a policy was given


def test_without_a_policy_there_is_no_policy_hash_line(sample_pair, tmp_path):
    analysis = compare_files(*sample_pair)
    session = start_review(analysis, state_root=tmp_path / "state")
    record = build_record(analysis, session, ReviewerDecision("dana", "block", "no"))
    assert "Policy hash" not in record_markdown(record, analysis)


@pytest.mark.slow
def test_a_50000_item_signoff_fits_a_github_comment_and_says_what_it_left_out(
    tmp_path, write_jsonl, monkeypatch
):
    """2,500 regressions with notes and outputs: the full list would be far over the limit.
    Only the outputs of the regressions it can list are read (a batch at a time): reading all
    of a 200,000-item pair's 9,805 took 5 s of its sign-off."""
    base, cand = [], []
    for i in range(50_000):
        regressed = i % 20 == 0
        improved = i % 20 == 1
        base.append({"item_id": f"item-{i:05d}", "passed": not improved, "output": "ok " * 40})
        cand.append(
            {"item_id": f"item-{i:05d}", "passed": not regressed, "output": "changed " * 40}
        )
    analysis = compare_files(write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand))
    session = start_review(analysis, state_root=tmp_path / "state", reviewer="dana")
    for item in analysis.regressions[:300]:
        session.set_note(item, "the dose is wrong in the second paragraph " * 2)
    record = build_record(analysis, session, ReviewerDecision("dana", "block", "too many"))
    transcripts = type(analysis.paired.baseline.transcripts)
    read_rows: list[int] = []
    real_read = transcripts.read_field

    def counted(self, rows, field):
        read_rows.append(len(rows))
        return real_read(self, rows, field)

    monkeypatch.setattr(transcripts, "read_field", counted)
    markdown = record_markdown(record, analysis)
    assert len(markdown) <= GITHUB_COMMENT_LIMIT
    assert len(record["items"]) == 5_000
    listed = markdown.count("| `item-")
    assert 0 < listed < 2_500
    assert f"{2_500 - listed:,} more regressions are not listed here" in markdown
    assert sum(read_rows) <= 2 * (listed + EXCERPT_BATCH) < 2 * 2_500  # (both sides)
    assert markdown.count("candidate «changed changed") == listed
    assert "CSV and the JSON record" in markdown
    assert markdown.startswith("**NEEDS REVIEW** · 2,500 of 2,500 untriaged · ")
    json.dumps(record)  # the record itself keeps every item


def test_the_three_files_get_the_users_normal_mode_not_0600(demo_record, tmp_path):
    import os
    import stat

    from evaltui.core.record.signoff import write_record

    record, analysis = demo_record
    old = os.umask(0o022)
    try:
        json_path, md_path = write_record(record, analysis, tmp_path / "rec")
    finally:
        os.umask(old)
    for path in (json_path, md_path, json_path.with_suffix(".csv")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


def test_the_regression_table_names_the_command_that_shows_each_item(demo_record):
    """Short paths: each row holds the whole command with the runs' real paths (as the
    record's "What was compared" names them), which a shell splits back into the paths and
    the id."""
    import shlex

    record, analysis = demo_record
    markdown = record_markdown(record, analysis)
    tokens = render(markdown)
    cells = [t.content for t in tokens if t.type == "inline"]
    header = cells.index("show it")
    assert cells[header - 5 : header] == ["item", "slice", "tag", "tagged by", "note"]
    base, cand = (record["inputs"][arm]["described"]["file"] for arm in ("baseline", "candidate"))
    assert base.endswith("baseline.jsonl") and cand.endswith("candidate.jsonl")
    rows = [line for line in markdown.splitlines() if line.startswith("| `")]
    assert len(rows) == len(analysis.regressions)
    for row, item_id in zip(rows, analysis.regressions, strict=True):
        command = row.rsplit("| `", 1)[1].removesuffix("` |")
        assert shlex.split(command) == ["evaltui", "show", base, cand, item_id]
    assert "BASE" not in markdown.split("## Regressions")[1].split("## Results")[0]


def _long_paths(record):
    import copy

    record = copy.deepcopy(record)
    long_dir = "runs/" + "nested/" * 8
    for arm in ("baseline", "candidate"):
        record["inputs"][arm]["described"]["file"] = f"{long_dir}{arm} run.jsonl"
    return record, long_dir


def test_long_paths_put_the_command_once_above_the_table_with_the_ids_in_the_rows(demo_record):
    import shlex

    record, analysis = demo_record
    record, long_dir = _long_paths(record)
    markdown = record_markdown(record, analysis)
    section = markdown.split("## Regressions")[1].split("## Results")[0]
    (line,) = [x for x in section.splitlines() if x.startswith("Each item's")]
    command = line.split("`")[1]
    assert shlex.split(command) == [
        "evaltui", "show", f"{long_dir}baseline run.jsonl", f"{long_dir}candidate run.jsonl", "<id>"
    ]  # fmt: skip
    assert "as its row's item (no id needs quoting" in line
    cells = [t.content for t in render(markdown) if t.type == "inline"]
    # The demo's ids read the same in a shell: the item column is the `<id>`, not repeated.
    assert cells[cells.index("item") : cells.index("note") + 1] == [
        "item", "slice", "tag", "tagged by", "note"
    ]  # fmt: skip
    assert "`<id>`" not in cells
    rows = [x for x in section.splitlines() if x.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == list(analysis.regressions)
    assert all(r.count(" | ") == 4 for r in rows)  # five cells: no column repeating the id
    assert sum(len(r) for r in rows) < 80 * len(rows)


def test_long_paths_add_a_column_of_quoted_ids_when_an_id_needs_quoting(demo_record):
    import shlex

    record, analysis = demo_record
    record, long_dir = _long_paths(record)
    first = next(i for i in record["items"] if i["direction"] == "regression")
    first["item_id"] = "it's $HOME"
    markdown = record_markdown(record, analysis)
    section = markdown.split("## Regressions")[1].split("## Results")[0]
    (line,) = [x for x in section.splitlines() if x.startswith("Each item's")]
    assert "last column gives it (quoted for a shell" in line
    cells = [t.content for t in render(markdown) if t.type == "inline"]
    assert cells[cells.index("note") + 1] == "`<id>`"  # the header, in code: not an HTML tag
    rows = [x for x in section.splitlines() if x.startswith("| `")]
    quoted = [r.rsplit("| `", 1)[1].removesuffix("` |") for r in rows]
    assert shlex.split(quoted[0]) == ["it's $HOME"]
    regressions = [i["item_id"] for i in record["items"] if i["direction"] == "regression"]
    assert [shlex.split(q)[0] for q in quoted] == regressions
