"""The text report is text: no Markdown markup, natural width into a pipe, numbers that keep
their meaning, and a quiet exit when the reader goes away."""

from __future__ import annotations

import json
import subprocess
import sys

from evaltui.cli.main import main
from evaltui.core.analysis.pair_headline import binary_headline
from evaltui.core.stats.binary import compare_binary
from evaltui.core.stats.paired_table import PairedTable
from evaltui.core.words import interval_digits
from tests.cli.test_graded_report import rated_pair


def test_the_text_report_carries_no_markdown_markup(capsys, write_jsonl):
    base, cand, _ = rated_pair(write_jsonl)
    main(["report", str(base), str(cand)])
    out = capsys.readouterr().out
    assert "Mean per-item delta: -0.100" in out
    assert "**" not in out and "`" not in out


def test_into_a_pipe_lines_keep_their_natural_width(capsys, sample_pair):
    main(["report", *map(str, sample_pair)])  # capsys is not a terminal: a pipe
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("NEEDS REVIEW · ") and lines[0].endswith("no significant difference")
    headline = next(line for line in lines if line.startswith("Candidate +6.0 pts"))
    assert headline.endswith("ignore the clusters.")  # one line, however long
    assert max(len(line) for line in lines) > 120
    assert not any(line.rstrip().endswith("…") for line in lines)


def test_counts_have_thousands_separators(capsys, write_jsonl):
    rows_b = [{"item_id": f"q{i}", "passed": i % 4 != 0} for i in range(2_000)]
    rows_c = [{"item_id": f"q{i}", "passed": i % 5 != 0} for i in range(2_000)]
    base, cand = write_jsonl("b.jsonl", rows_b), write_jsonl("c.jsonl", rows_c)
    main(["report", str(base), str(cand), "--format", "markdown"])
    assert "| baseline | 1,500/2,000 |" in capsys.readouterr().out
    main(["report", str(base), str(cand)])
    assert "1,500/2,000" in capsys.readouterr().out


def test_a_headline_at_a_million_items_shows_enough_digits_to_be_read():
    table = PairedTable(
        both_pass=800_000, regressions=50_000, improvements=50_300, both_fail=99_700
    )
    text = binary_headline(compare_binary(table))
    assert "[-0.0, +0.0]" not in text
    assert text.startswith("Candidate +0.03 pts [-0.0")  # two decimals: the interval shows
    assert interval_digits(0.006, 0.115, True) == 1  # the ordinary case keeps one decimal


def test_a_reader_that_stops_reading_ends_the_report_quietly(sample_pair):
    """`evaltui report A B | head`: no "internal error: BrokenPipeError", no traceback."""
    script = "import sys; from evaltui.cli.main import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "report", *map(str, sample_pair), "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the first write
    _, err = proc.communicate(timeout=60)
    assert err == b""
    assert proc.returncode == 141


def test_json_report_is_unchanged_by_the_pipe(capsys, sample_pair):
    main(["report", *map(str, sample_pair), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["schema"] == "evaltui.report/2"


def test_counts_in_headlines_are_singular_when_there_is_one():
    one = binary_headline(
        compare_binary(PairedTable(both_pass=50, regressions=1, improvements=9, both_fail=10))
    )
    assert "(1 regression, 9 improvements)" in one and "on 10 discordant items" in one
    few = binary_headline(
        compare_binary(PairedTable(both_pass=5, regressions=1, improvements=1, both_fail=3))
    )
    assert few.startswith("Only 10 paired items (1 regression, 1 improvement)")
