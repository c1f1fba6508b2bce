"""A large Inspect log read by a second process (`inspect_elsewhere`): the same run as read
here, the same refusal, the log read here when the child gives no answer, and a second process
only for two large local logs."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from evaltui.core.analysis import pipeline
from evaltui.core.errors import InputError
from evaltui.core.read.formats import LoadOptions, inspect_elsewhere, load_run
from evaltui.core.read.formats.inspect_elsewhere import (
    candidate_loader,
    load_elsewhere,
    load_remote_elsewhere,
)
from evaltui.core.read.zip_directory import entry_count

DATA = Path(__file__).resolve().parents[2] / "data" / "inspect_ai"
LOGS = [
    DATA / "zstd" / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval",
    DATA / "chunked" / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval",
    DATA / "agent" / "drug_interactions_baseline.eval",
]


def _same_run(path: Path, options: LoadOptions) -> None:
    there = inspect_elsewhere._ask_child(path, None, options)  # the child's, never a fallback
    assert there is not None, "the second process gave no run"
    here = load_run(path, None, options)
    assert there.table.equals(here.table) and there.table.schema == here.table.schema
    assert there.metadata == here.metadata
    assert there.source == here.source
    assert (there.source.opened, there.source.hash_checked) == (
        here.source.opened,
        here.source.hash_checked,
    )
    assert there.pending_source is None
    a, b = there.transcripts.parts(), here.transcripts.parts()  # type: ignore[attr-defined]
    assert (a.rows, a.scorer, a.stamp) == (b.rows, b.scorer, b.stamp)
    assert a.chunks.starts() == b.chunks.starts()
    assert a.archive.names == b.archive.names and a.archive.start_dir == b.archive.start_dir
    assert (a.archive.columns == b.archive.columns).all()
    for row in (0, here.n_records // 2, here.n_records - 1):
        assert there.transcripts.read(row) == here.transcripts.read(row)


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.parent.name)
def test_a_log_read_by_a_second_process_is_the_run_read_here(path: Path) -> None:
    _same_run(path, LoadOptions(defer_hash_check=True))


def test_a_log_read_by_a_second_process_has_its_sha256_when_not_deferred() -> None:
    _same_run(LOGS[0], LoadOptions())
    there = inspect_elsewhere._ask_child(LOGS[0], None, LoadOptions())
    assert there is not None and there.source.sha256 == load_run(LOGS[0]).source.sha256 != ""


def test_a_summary_kept_for_a_row_without_member_comes_back_equal(tmp_path: Path) -> None:
    """A log without sample members keeps each row's summary (its transcript): they travel
    as JSON and come back equal."""
    thin = tmp_path / "thin.eval"
    deflated = DATA / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
    with zipfile.ZipFile(deflated) as source, zipfile.ZipFile(thin, "w") as target:
        for info in source.infolist():
            if not info.filename.startswith("samples/"):
                target.writestr(info.filename, source.read(info.filename))
    _same_run(thin, LoadOptions(defer_hash_check=True))
    assert load_run(thin).transcripts.parts().rows[0].summary  # type: ignore[attr-defined]


def test_the_childs_input_error_is_raised_in_its_words(tmp_path: Path) -> None:
    broken = tmp_path / "broken.eval"
    broken.write_bytes(LOGS[0].read_bytes()[:-200])  # the central directory cut short
    with pytest.raises(InputError) as here:
        load_run(broken, "inspect_eval")
    with pytest.raises(InputError) as there:  # the child's, sent back (not a fallback's)
        inspect_elsewhere._ask_child(broken, "inspect_eval", LoadOptions())
    assert str(there.value) == str(here.value)
    assert (there.value.path, there.value.record, there.value.field) == (
        here.value.path,
        here.value.record,
        here.value.field,
    )


@pytest.mark.parametrize("executable", ["/bin/false", "/nonexistent/python", ""])
def test_a_child_with_no_answer_leaves_the_log_to_be_read_here(
    executable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that fails, cannot start or is not there: the log is read in this process, the
    same run."""
    monkeypatch.setattr(sys, "executable", executable)
    run = load_elsewhere(LOGS[0], None, LoadOptions(defer_hash_check=True))
    assert run.table.equals(load_run(LOGS[0], None, LoadOptions(defer_hash_check=True)).table)


@pytest.mark.parametrize(
    "answer",
    [
        b"x" * 9,  # a length no answer has
        (100).to_bytes(8, "little") + b"abc",  # cut short
        (3).to_bytes(8, "little") + b"{{{",  # not JSON
        (2).to_bytes(8, "little") + b"{}",  # JSON, not a run
    ],
    ids=["length", "truncated", "not-json", "not-a-run"],
)
def test_a_garbled_answer_leaves_the_log_to_be_read_here(
    answer: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = f"import sys; sys.stdin.buffer.readline(); sys.stdout.buffer.write({answer!r})"
    monkeypatch.setattr(inspect_elsewhere, "_CHILD", code)
    run = load_elsewhere(LOGS[0])
    assert run.source == load_run(LOGS[0]).source
    assert run.table.equals(load_run(LOGS[0]).table)


def test_only_two_large_local_zips_get_a_second_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    small, other = LOGS[0], LOGS[2]
    assert candidate_loader(small, other, None) is load_run  # 59 and 18 entries: too few
    monkeypatch.setattr(inspect_elsewhere, "ENTRIES", 18)
    assert candidate_loader(small, other, None) is load_elsewhere
    assert candidate_loader(small, other, "inspect_eval") is load_elsewhere
    assert candidate_loader(small, other, "jsonl") is load_run  # forced to another format
    monkeypatch.setattr(inspect_elsewhere, "ENTRIES", 19)
    assert candidate_loader(small, other, None) is load_run  # one of them below the count
    monkeypatch.setattr(inspect_elsewhere, "ENTRIES", 1)
    text = tmp_path / "run.jsonl"
    text.write_text('{"item_id": "a", "passed": true}\n')
    assert candidate_loader(small, text, None) is load_run  # not a zip
    assert candidate_loader(small, tmp_path / "missing.eval", None) is load_run
    # a remote candidate: sized in its own thread (tests/core/read/remote/test_remote_elsewhere)
    assert candidate_loader(small, "s3://bucket/log.eval", None) is load_remote_elsewhere
    assert candidate_loader(small, "s3://bucket/log.jsonl", None) is load_run


def test_a_pair_compared_with_a_second_process_is_the_same_analysis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pair = (DATA / "two_scorers" / "baseline.eval", DATA / "two_scorers" / "candidate.eval")
    here = pipeline.compare_files(*pair, complete=False)
    monkeypatch.setattr(inspect_elsewhere, "ENTRIES", 1)
    assert candidate_loader(*pair, None) is load_elsewhere
    asked = []
    ask = inspect_elsewhere._ask_child

    def counted(*args: Any) -> Any:
        asked.append(run := ask(*args))
        return run

    monkeypatch.setattr(inspect_elsewhere, "_ask_child", counted)
    there = pipeline.compare_files(*pair, complete=False)
    assert len(asked) == 1 and asked[0] is not None  # the candidate, by the second process
    assert (there.headline, there.warnings) == (here.headline, here.warnings)
    assert (there.regressions, there.improvements) == (here.regressions, here.improvements)
    assert (there.deltas == here.deltas).all()
    assert there.paired.candidate.source == here.paired.candidate.source


def test_entry_count_is_the_number_of_entries_zipfile_lists(tmp_path: Path) -> None:
    for path in LOGS:
        with path.open("rb") as handle:
            assert entry_count(handle) == len(zipfile.ZipFile(path).infolist())
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"not a zip at all")
    with plain.open("rb") as handle, pytest.raises(zipfile.BadZipFile):
        entry_count(handle)


@pytest.mark.slow  # (writing 70,000 entries with zipfile is 1.5 s of CPU: the suite's budget)
def test_entry_count_of_more_than_65535_entries_is_the_zip64_records(tmp_path: Path) -> None:
    many = tmp_path / "many.zip"  # more than 65,535 entries: the count is zip64's
    with zipfile.ZipFile(many, "w") as archive:
        for i in range(70_000):
            archive.writestr(f"{i}", b"")
    with many.open("rb") as handle:
        assert entry_count(handle) == 70_000
