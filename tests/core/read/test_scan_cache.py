"""Reopening a big JSONL run reuses its parse, but only for the same bytes (sha256 checked)."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest

from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.errors import InputError
from evaltui.core.read.formats import LoadOptions, entry_seal, jsonl, load_run, scan_cache
from evaltui.core.read.formats.jsonl_scan import scan_jsonl
from evaltui.core.read.runs import sha256_of
from evaltui.core.report.pair import report_dict


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv(scan_cache.ENV, str(root))
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)  # the test files are small
    return root


def write_run(path, flip=False, n=120):
    rows = [
        {
            "item_id": f"q{i}",
            "passed": (i % 3 != 0) != (flip and i % 7 == 0),
            "slice": f"s{i % 4}",
            "cluster": f"doc{i // 6}",
            "topic": f"t{i % 2}",
            "output": f"answer {i} " + "y" * 300,
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def forbid_parsing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the file was parsed although a cache entry matched")

    monkeypatch.setattr(jsonl, "scan_jsonl", refuse)


def entries(root):
    return sorted(p for p in root.iterdir() if not p.name.startswith("."))


def test_a_reopened_run_comes_from_the_cache_with_the_same_table_hash_and_transcripts(
    tmp_path, cache, monkeypatch
):
    path = write_run(tmp_path / "b.jsonl")
    first = load_run(path, None, LoadOptions())
    assert len(entries(cache)) == 1
    forbid_parsing(monkeypatch)
    again = load_run(path, None, LoadOptions())
    assert again.table.equals(first.table)
    assert again.source == first.source
    assert again.source.sha256 == sha256_of(path)
    assert again.transcripts.read(17).output == first.transcripts.read(17).output
    assert again.transcripts.read(17).output.startswith("answer 17 ")


def test_a_report_from_cached_runs_equals_the_report_from_parsed_runs(tmp_path, cache, monkeypatch):
    base, cand = write_run(tmp_path / "b.jsonl"), write_run(tmp_path / "c.jsonl", flip=True)
    parsed = report_dict(compare_files(base, cand))
    forbid_parsing(monkeypatch)
    cached = report_dict(compare_files(base, cand))
    parsed.pop("generated_at", None), cached.pop("generated_at", None)
    assert cached == parsed


def test_an_entry_whose_recorded_hash_differs_from_the_file_is_dropped_and_the_file_parsed(
    tmp_path, cache, monkeypatch
):
    path = write_run(tmp_path / "b.jsonl")
    load_run(path, None, LoadOptions())
    (entry,) = entries(cache)
    meta = json.loads((entry / scan_cache.META).read_text())
    meta["sha256"] = "0" * 64  # as if the bytes had changed under the same identity
    (entry / scan_cache.META).write_text(json.dumps(meta))
    entry_seal.seal(entry)  # (an intact entry of other bytes, not a damaged one)
    parsed = []
    monkeypatch.setattr(jsonl, "scan_jsonl", lambda *a, **k: parsed.append(1) or scan_jsonl(*a))
    run = load_run(path, None, LoadOptions())
    assert parsed == [1]
    assert run.source.sha256 == sha256_of(path)


def test_a_rewritten_file_is_parsed_again_even_with_its_old_size_and_mtime(tmp_path, cache):
    path = write_run(tmp_path / "b.jsonl")
    first = load_run(path, None, LoadOptions())
    stat = path.stat()
    path.write_text(path.read_text().replace("answer 1 ", "answer 1!", 1))  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    second = load_run(path, None, LoadOptions())
    assert second.source.sha256 != first.source.sha256
    assert second.source.sha256 == sha256_of(path)
    assert second.transcripts.read(1).output.startswith("answer 1!")


def test_a_damaged_entry_is_ignored_and_the_results_are_unchanged(tmp_path, cache):
    path = write_run(tmp_path / "b.jsonl")
    first = load_run(path, None, LoadOptions())
    (entry,) = entries(cache)
    (entry / scan_cache.FRAME).write_bytes(b"not parquet")
    again = load_run(path, None, LoadOptions())
    assert again.table.equals(first.table)


@pytest.mark.parametrize("verdict", ["pass", None])
def test_a_file_with_a_bad_record_is_never_cached(tmp_path, cache, verdict):
    path = write_run(tmp_path / "b.jsonl")
    with path.open("a") as handle:
        handle.write(json.dumps({"item_id": "bad", "passed": verdict}) + "\n")
    with pytest.raises(InputError, match=":121: field 'passed'"):
        load_run(path, None, LoadOptions())
    assert not cache.exists() or entries(cache) == []


def test_different_column_options_do_not_share_an_entry(tmp_path, cache):
    path = write_run(tmp_path / "b.jsonl")
    load_run(path, None, LoadOptions())
    load_run(path, None, LoadOptions.of(slice_col="topic"))
    assert len(entries(cache)) == 2


def test_the_cache_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(scan_cache.ENV, "off")
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)
    assert scan_cache.cache_root() is None
    write_run(tmp_path / "b.jsonl")
    load_run(tmp_path / "b.jsonl", None, LoadOptions())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.jsonl"]


def test_small_files_are_not_cached(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv(scan_cache.ENV, str(root))
    load_run(write_run(tmp_path / "b.jsonl"), None, LoadOptions())
    assert not root.exists()


def test_an_unwritable_cache_leaves_loading_unchanged(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv(scan_cache.ENV, str(blocker / "scans"))
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)
    run = load_run(write_run(tmp_path / "b.jsonl"), None, LoadOptions())
    assert run.table.height == 120


def test_only_the_most_recently_used_entries_are_kept(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(scan_cache, "MAX_ENTRIES", 3)
    for i in range(5):
        load_run(write_run(tmp_path / f"r{i}.jsonl", n=40 + i), None, LoadOptions())
    kept = entries(cache)
    assert len(kept) == 3
    paths = {json.loads((p / scan_cache.META).read_text())["path"] for p in kept}
    assert paths == {str((tmp_path / f"r{i}.jsonl").resolve()) for i in (2, 3, 4)}


def test_an_unchecked_lookup_is_marked_and_confirm_recomputes_it(tmp_path, cache):
    path = write_run(tmp_path / "b.jsonl")
    load_run(path, None, LoadOptions())
    trusted = load_run(path, None, LoadOptions.of(defer_hash_check=True))
    assert trusted.source.hash_checked is False
    assert scan_cache.confirm(trusted.source).hash_checked is True
    forged = replace(trusted.source, sha256="0" * 64)
    with pytest.raises(InputError, match="b.jsonl: changed since it was opened"):
        scan_cache.confirm(forged)


def test_a_headless_load_always_hashes_the_bytes(tmp_path, cache):
    path = write_run(tmp_path / "b.jsonl")
    load_run(path, None, LoadOptions())
    assert load_run(path, None, LoadOptions()).source.hash_checked is True


def test_an_entry_gives_back_every_column_type_and_null_as_scanned(tmp_path, cache):
    import numpy as np
    import polars as pl

    from evaltui.core.read.formats.jsonl_scan import Scan
    from evaltui.core.read.formats.line_index import LineIndex

    path = write_run(tmp_path / "b.jsonl", n=4)
    frame = pl.DataFrame(
        {
            "item_id": ["q0", "q1", None, "q\u00e9"],
            "passed": [True, None, False, True],
            "score": [0.25, float("nan"), None, 1e-300],
            "tokens": pl.Series([1, None, 2**40, -3], dtype=pl.Int64),
        }
    )
    lines = LineIndex(np.array([0, 5, 9, 14]), np.array([1, 2, 4, 5]))
    schema = dict(frame.schema)
    scan_cache.store(path, schema, Scan(frame=frame, sha256=sha256_of(path), lines=lines))
    found = scan_cache.lookup(path, schema)
    assert found is not None
    assert found.frame.schema == frame.schema
    assert found.frame.equals(frame, null_equal=True)
    assert found.lines.starts.tolist() == [0, 5, 9, 14]
    assert found.lines.line_numbers.tolist() == [1, 2, 4, 5]


def write_full_run(path, n=150):
    """Every statistics column the checks look at: int ids, epochs, status, outcome, a score."""
    rows = []
    for i in range(n):
        status = "error" if i % 37 == 5 else "ok"
        rows.append(
            {
                "item_id": i // 2,
                "epoch": i % 2 + 1,
                "passed": None if status == "error" else i % 3 != 0,
                "score:judge": None if status == "error" else (i % 11) / 10,
                "status": status,
                "outcome": None if status == "error" else f"o{i % 3}",
                "slice": f"s{i % 4}",
                "cluster": None if i % 9 == 0 else f"doc{i // 6}",
                "output": "z" * 200,
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_reopened_run_whose_checks_are_skipped_has_the_table_of_a_fresh_read(
    tmp_path, cache, monkeypatch
):
    path = write_full_run(tmp_path / "b.jsonl")
    monkeypatch.setenv(scan_cache.ENV, "off")
    parsed = load_run(path, None, LoadOptions())
    monkeypatch.setenv(scan_cache.ENV, str(cache))
    first = load_run(path, None, LoadOptions())  # parsed, checked, kept with its plan's word
    forbid_parsing(monkeypatch)
    checked_again = []
    monkeypatch.setattr(jsonl, "_check_suspects", lambda *a: checked_again.append(a))
    again = load_run(path, None, LoadOptions(defer_hash_check=True))
    assert checked_again == []  # the entry's word was taken
    for run in (first, again):
        assert run.table.schema == parsed.table.schema
        assert run.table.equals(parsed.table, null_equal=True)


def write_two_labels(path, empty_tag_row=40, n=120):
    rows = [
        {"uid": f"q{i}", "tag": "" if i == empty_tag_row else f"t{i % 5}", "passed": i % 2 == 0}
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_an_entry_read_by_another_plan_is_checked_again_and_refused_in_the_same_words(
    tmp_path, cache, monkeypatch
):
    # Both plans read the same columns with the same types (one entry), but as other fields:
    # an empty `tag` is a slice under the first and a missing id under the second.
    path = write_two_labels(tmp_path / "b.jsonl")
    as_slice = LoadOptions.of(id_col="uid", slice_col="tag")
    as_id = LoadOptions.of(id_col="tag", slice_col="uid")
    monkeypatch.setenv(scan_cache.ENV, "off")
    with pytest.raises(InputError) as fresh:
        load_run(path, None, as_id)
    monkeypatch.setenv(scan_cache.ENV, str(cache))
    load_run(path, None, as_slice)
    assert len(entries(cache)) == 1
    forbid_parsing(monkeypatch)
    for defer in (False, True):
        with pytest.raises(InputError) as cached:
            load_run(path, None, replace(as_id, defer_hash_check=defer))
        assert str(cached.value) == str(fresh.value)
        assert ":41: field 'tag'" in str(cached.value)


def test_an_entry_kept_under_other_checks_is_checked_again(tmp_path, cache, monkeypatch):
    import polars as pl

    path = write_run(tmp_path / "b.jsonl")
    load_run(path, None, LoadOptions())
    (entry,) = entries(cache)
    # what a check refuses, put into the entry as if it had been kept so
    frame = pl.read_parquet(entry / scan_cache.FRAME)
    frame = frame.with_columns(
        pl.when(pl.int_range(pl.len()) == 7).then(None).otherwise(pl.col("passed")).alias("passed")
    )
    frame.write_parquet(entry / scan_cache.FRAME)
    entry_seal.seal(entry)  # (as if it had been kept so: intact)
    monkeypatch.setattr(scan_cache, "CHECKS", scan_cache.CHECKS + 1)  # the checks changed
    forbid_parsing(monkeypatch)
    with pytest.raises(InputError, match=":8: field 'passed': missing"):
        load_run(path, None, LoadOptions(defer_hash_check=True))


def test_a_changed_file_with_a_bad_record_is_refused_though_its_old_entry_was_checked(
    tmp_path, cache
):
    path = write_run(tmp_path / "b.jsonl")
    load_run(path, None, LoadOptions())
    with path.open("a") as handle:
        handle.write(json.dumps({"item_id": "", "passed": True}) + "\n")
    for defer in (False, True):
        with pytest.raises(InputError, match=":121: field 'item_id'"):
            load_run(path, None, LoadOptions(defer_hash_check=defer))


def test_an_entry_with_a_line_index_of_another_length_is_not_used(tmp_path, cache):
    import numpy as np

    path = write_run(tmp_path / "b.jsonl")
    first = load_run(path, None, LoadOptions())
    (entry,) = entries(cache)
    np.save(entry / scan_cache.LINE_NUMBERS, np.arange(1, 50, dtype=np.int64))
    entry_seal.seal(entry)  # (kept so: the length check, not the seal, refuses it)
    again = load_run(path, None, LoadOptions(defer_hash_check=True))
    assert again.table.equals(first.table)
    assert again.source.hash_checked  # parsed afresh, not taken from the entry


def test_an_input_that_cannot_be_hashed_is_not_said_to_be_a_damaged_entry(
    tmp_path, cache, monkeypatch, caplog
):
    """The input's own trouble (unreadable when the cache hashes it) is the parse's to say, in
    its one line: no warning of a damaged entry before it."""
    path = write_run(tmp_path / "b.jsonl")
    first = load_run(path, None, LoadOptions())

    def unreadable(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(scan_cache, "sha256_of", unreadable)  # (the cache's hash alone)
    with caplog.at_level("WARNING", logger="evaltui.cache"):
        again = load_run(path, None, LoadOptions())
    assert not [r for r in caplog.records if r.name == "evaltui.cache"]
    assert again.table.equals(first.table)
