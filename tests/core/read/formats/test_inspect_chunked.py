"""Inspect's chunked-sample `.eval` layout, on logs Inspect itself wrote (tests/data/inspect_ai/
chunked): read and paired like the monolith logs they were converted from, an item's transcript
assembled from its shell, its message chunks and the attachments they reference, and nothing
else read when it opens."""

from __future__ import annotations

import json
from pathlib import Path

from evaltui.cli.main import main
from evaltui.core.read.formats import inspect_archive, load_run
from evaltui.core.read.logdir import list_runs

DATA = Path(__file__).resolve().parents[3] / "data" / "inspect_ai"
NAMES = (
    "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval",
    "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval",
)
MONOLITH = [DATA / n for n in NAMES]
CHUNKED = [DATA / "chunked" / n for n in NAMES]


def test_a_chunked_pair_reports_what_its_monolith_pair_reports(capsys):
    main(["report", *map(str, CHUNKED), "--format", "json"])
    chunked = json.loads(capsys.readouterr().out)
    main(["report", *map(str, MONOLITH), "--format", "json"])
    monolith = json.loads(capsys.readouterr().out)
    for key in ("analysis", "table", "regressions", "improvements", "decision"):
        assert chunked[key] == monolith[key], key


def test_every_transcript_is_the_monolith_one():
    for chunked_path, monolith_path in zip(CHUNKED, MONOLITH, strict=True):
        chunked, monolith = load_run(chunked_path), load_run(monolith_path)
        keys = ["item_id", "epoch", "row"]
        left = chunked.table.select(keys).sort(["item_id", "epoch"]).rows()
        right = dict(((i, e), r) for i, e, r in monolith.table.select(keys).rows())
        for item_id, epoch, row in left:
            a = chunked.transcripts.read(row)
            b = monolith.transcripts.read(right[(item_id, epoch)])
            assert (a.input, a.output, a.target, a.messages) == (
                b.input, b.output, b.target, b.messages
            ), (item_id, epoch)  # fmt: skip
            assert len(a.messages) == 3


def test_opening_an_item_reads_its_shell_messages_and_attachments_only(monkeypatch):
    run = load_run(CHUNKED[0])
    read: list[str] = []
    real = inspect_archive.read_json

    def spy(path, archive, info):
        read.append(info.filename)
        return real(path, archive, info)

    monkeypatch.setattr(inspect_archive, "read_json", spy)
    run.transcripts.read(0)
    prefix = read[0].rsplit("/", 1)[0]
    assert read[0].endswith("/sample.json")
    assert {name.split("/")[2] for name in read[1:]} == {"messages", "attachments"}
    assert all(name.startswith(prefix + "/") for name in read)


def test_a_listing_counts_the_items_of_chunked_logs():
    listing = list_runs(CHUNKED[0].parent)
    assert [entry.items for entry in listing.runs] == [10, 10]
