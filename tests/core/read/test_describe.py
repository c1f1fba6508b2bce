"""What a run is, as every surface names it (`read.describe`): from the log's own header,
dates in UTC (said), a file relative to the working directory or by its name."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltui.core.read.describe import describe, display_path, format_date
from evaltui.core.read.formats import load_run
from tests.conftest import DATA, SAMPLE_RUNS


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("2025-09-15T15:04:34-04:00", "2025-09-15 19:04:34 UTC"),  # Inspect's `created`
        ("2025-09-15T19:04:34Z", "2025-09-15 19:04:34 UTC"),
        ("1790000000.0", "2026-09-21 14:13:20 UTC"),  # lm-eval results `date`, a Unix time
        ("1790000000000", "2026-09-21 14:13:20 UTC"),  # milliseconds (promptfoo)
        # lm-eval's date id is the machine's local time: shown, its zone said to be unknown
        ("2026-10-01T23-15-32.942677", "2026-10-01 23:15:32 (time zone not recorded)"),
        ("last tuesday", "last tuesday (time zone not recorded)"),
    ],
)
def test_a_date_is_given_in_utc_or_says_its_zone_is_not_recorded(value, shown):
    assert format_date(value) == shown


def test_a_path_under_the_working_directory_is_relative_and_any_other_is_its_name(tmp_path):
    inside = tmp_path / "runs" / "a.jsonl"
    assert display_path(str(inside), cwd=tmp_path) == "runs/a.jsonl"
    assert display_path("/somewhere/else/b.eval", cwd=tmp_path) == "b.eval"
    assert display_path("runs/c.jsonl", cwd=tmp_path) == "runs/c.jsonl"
    assert display_path("../up/d.jsonl", cwd=tmp_path) == "d.jsonl"


def test_an_inspect_log_is_described_from_its_header(tmp_path):
    log = DATA / "inspect_ai" / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
    d = describe(load_run(log), cwd=tmp_path)
    assert (d.task, d.model, d.scorers, d.dataset) == (
        "popularity", "openai/gpt-5", "match", "popularity"
    )  # fmt: skip
    assert d.harness == "Inspect AI 0.3.128.dev4+g614f5bb29.d20250902"
    assert d.date == "2025-09-15 19:04:34 UTC" and d.file == log.name


def test_an_lm_eval_run_with_its_results_file_names_harness_dataset_and_date():
    path = DATA / "lm_eval" / "results" / "sshleifer__tiny-gpt2"
    d = describe(load_run(next(path.glob("samples_*.jsonl"))), cwd=Path("/"))
    assert (d.task, d.model, d.scorers) == ("copa", "sshleifer/tiny-gpt2", "acc")
    assert (d.dataset, d.harness) == ("super_glue/copa", "lm-evaluation-harness 0.4.8")
    assert d.date.endswith(" UTC")


def test_a_jsonl_run_says_what_it_does_not_carry():
    d = describe(load_run(SAMPLE_RUNS / "baseline.jsonl"))
    assert (d.task, d.model, d.scorers, d.dataset) == ("unknown",) * 4
    assert d.harness == "jsonl file (no harness recorded)" and d.date == "unknown"
