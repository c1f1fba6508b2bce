"""The large-log open of Inspect `.eval` logs (issue 27 item 5) loses no check.

The central directory is parsed by `zip_directory` instead of `zipfile` (the same entries, zip64
included, the same refusals), and the summaries are decoded by msgspec a batch at a time
(`json_array`, `jsontext.fast_loads`): a key written twice or a field of the wrong type is
refused in the same words as by the checking decoder, wherever in the list it sits.
"""

from __future__ import annotations

import json
import math
import struct
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltui.core.errors import InputError
from evaltui.core.read import zip_directory
from evaltui.core.read.archive_limits import LimitExceeded
from evaltui.core.read.formats import inspect_eval, json_array, jsontext, load_run
from evaltui.core.read.formats.inspect_common import TOKEN_KEYS, sample_facts, shared_scores
from evaltui.core.read.formats.inspect_summaries import columnwise_facts
from evaltui.core.read.formats.zip_members import checked_members
from evaltui.core.read.zip_directory import read_directory
from tests.conftest import examples
from tests.core.read.eval_members import with_member_changed

DATA = Path(__file__).resolve().parent.parent.parent / "data"
GPT5 = DATA / "inspect_ai" / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
FIELDS = ("filename", "header_offset", "compress_size", "file_size", "CRC", "compress_type")


def _listing(entries) -> list[tuple]:
    return [tuple(getattr(e, f) for f in FIELDS) + (e.flag_bits & 0x1,) for e in entries]


def _ours(path: Path):
    with path.open("rb") as handle:
        return read_directory(handle)


def _same_as_zipfile(path: Path) -> None:
    with zipfile.ZipFile(path) as archive:
        expected = _listing(archive.infolist())
        start_dir = archive.start_dir
    directory = _ours(path)
    assert _listing(directory.infolist()) == expected
    assert directory.start_dir == start_dir


# ---------------------------------------------------------------------------------------------
# The central directory


@pytest.mark.parametrize(
    "path", sorted(DATA.rglob("*.eval")), ids=lambda p: p.name[-30:]
)  # fmt: skip
def test_every_eval_fixture_lists_the_same_entries_as_zipfile(path):
    _same_as_zipfile(path)


def test_names_comments_and_a_prepended_stub_list_as_zipfile_lists_them(tmp_path):
    path = tmp_path / "mixed.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/é_epoch_1.json", b'{"id": "\\u00e9"}')  # a UTF-8 name
        plain = zipfile.ZipInfo("plain.json")
        archive.writestr(plain, b"[]")
        archive.writestr("dir/", b"")
        archive.comment = b"a comment after the end record"
    _same_as_zipfile(path)
    stubbed = tmp_path / "stubbed.zip"  # data before the archive: every offset shifts
    stubbed.write_bytes(b"#!/bin/sh stub\n" * 10 + path.read_bytes())
    _same_as_zipfile(stubbed)
    assert [e.is_dir() for e in _ours(path).infolist()] == [False, False, True]


class _Reads:
    """A file that records each read as (offset, length)."""

    def __init__(self, path: Path) -> None:
        self._handle = path.open("rb")
        self.reads: list[tuple[int, int]] = []

    def seek(self, *args: int) -> int:
        return self._handle.seek(*args)

    def tell(self) -> int:
        return self._handle.tell()

    def read(self, size: int = -1) -> bytes:
        at = self._handle.tell()
        data = self._handle.read(size)
        self.reads.append((at, len(data)))
        return data


@pytest.mark.parametrize("stub", [0, 3 << 20], ids=["at-start", "behind-a-stub"])
def test_read_behind_takes_the_bytes_before_the_directory_in_its_own_read(tmp_path, stub):
    """A remote log's header and summaries, written just before its directory, come with the
    directory's read (one ranged request, not one more); the listing is the same, and never
    reaches before the file's first byte."""
    path = tmp_path / "log.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("padding.bin", bytes(stub))
        archive.writestr("summaries.json", b"[]")
        archive.writestr("header.json", b"{}")
    handle = _Reads(path)
    directory = read_directory(handle, zip_directory.behind)  # type: ignore[arg-type]
    start_dir = zipfile.ZipFile(path).start_dir
    end_record = path.stat().st_size - 22  # (no comment): where the directory ends
    at, length = handle.reads[-1]
    assert (at, at + length) == (max(0, start_dir - (2 << 20)), end_record)
    assert at <= directory.getinfo("summaries.json").header_offset
    assert _listing(directory.infolist()) == _listing(zipfile.ZipFile(path).infolist())


def test_zip64_entries_and_end_record_are_read(tmp_path, monkeypatch):
    path = tmp_path / "zip64.zip"
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 2)  # zip64 end record past 2 entries
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(4):
            with archive.open(f"m{i}.json", "w", force_zip64=True) as member:
                member.write(b"[1, 2, 3]")
    data = path.read_bytes()
    assert b"PK\x06\x06" in data and b"PK\x06\x07" in data
    _same_as_zipfile(path)
    assert _ours(path).getinfo("m3.json").file_size == 9


def test_a_zip64_extra_field_holding_the_sizes_is_read(tmp_path):
    """A central entry marking its sizes 0xFFFFFFFF takes them from its zip64 extra field."""
    path = tmp_path / "extra.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.json", b"[1]")
    data = bytearray(path.read_bytes())
    entry = data.find(b"PK\x01\x02")
    name_length, extra_length = struct.unpack_from("<2H", data, entry + 28)
    assert extra_length == 0
    struct.pack_into("<2L", data, entry + 20, 0xFFFFFFFF, 0xFFFFFFFF)  # compressed, size
    extra = struct.pack("<2H2Q", 1, 16, 3, 3)  # zip64: size, then compressed size
    at = entry + 46 + name_length
    data[at:at] = extra
    struct.pack_into("<H", data, entry + 30, len(extra))
    end = data.rfind(b"PK\x05\x06")
    size, offset = struct.unpack_from("<2L", data, end + 12)
    struct.pack_into("<L", data, end + 12, size + len(extra))
    path.write_bytes(bytes(data))
    entry_read = _ours(path).getinfo("a.json")
    assert (entry_read.file_size, entry_read.compress_size) == (3, 3)
    _same_as_zipfile(path)


@pytest.mark.parametrize(
    "damage, words",
    [
        (lambda d: b"hello, not a zip", "File is not a zip file"),
        (lambda d: d.replace(b"PK\x01\x02", b"PK\x01\x09", 1), "Bad magic number"),
        (lambda d: d[: d.find(b"PK\x01\x02") + 20] + d[d.rfind(b"PK\x05\x06") :], "central"),
    ],
    ids=["not a zip", "bad entry magic", "truncated directory"],
)
def test_a_damaged_directory_is_refused_in_zipfiles_words(tmp_path, damage, words):
    path = tmp_path / "damaged.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("header.json", b"{}")
        archive.writestr("summaries.json", b"[]")
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(zipfile.BadZipFile, match=words):
        _ours(path)


def test_a_damaged_eval_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "damaged.eval"
    data = GPT5.read_bytes()
    path.write_bytes(data.replace(b"PK\x01\x02", b"PK\x01\x09", 1))
    with pytest.raises(InputError, match="not a readable Inspect .eval archive") as caught:
        load_run(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_a_name_listed_twice_is_still_refused_on_our_entries(tmp_path):
    path = tmp_path / "twice.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("summaries.json", b"[]")
        with pytest.warns(UserWarning):
            archive.writestr("summaries.json", b"[1]")
    with pytest.raises(LimitExceeded, match="lists this member twice"):
        checked_members(_ours(path))


# ---------------------------------------------------------------------------------------------
# The fast decoding


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b": [1.5, -2, "x\\ny"], "c": {"d": null, "e": true}}',
        '[{"id": 1, "epoch": 1}, {"id": "q 2", "epoch": 2}]',
        "[18446744073709551616, 0.1, 2.5, 1e300]",
    ],
)
def test_the_fast_path_reads_what_the_checking_decoder_reads(text):
    assert jsontext.is_exact(jsontext.fast_loads(text.encode()))
    assert jsontext.loads(text.encode()) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"passed": true, "passed": false}',  # msgspec would keep the last, silently
        '[{"a": 1}, {"b": {"c": 1, "c": 1}}]',
        "[NaN, 1]",  # msgspec refuses NaN; Python reads it
        '["\\u00e9", 1E5, -0, 1e-07]',  # written otherwise than msgspec writes them
    ],
)
def test_what_the_fast_path_cannot_prove_goes_to_the_checking_decoder(text):
    assert not jsontext.is_exact(jsontext.fast_loads(text.encode()))


def test_the_checking_decoder_still_decides_nan_and_escapes():
    value = jsontext.loads(b'["\\u00e9", 1E5, NaN]')
    assert value[:2] == ["é", 100000.0] and math.isnan(value[2])
    with pytest.raises(jsontext.DuplicateKey):
        jsontext.loads(b'{"passed": true, "passed": false}')


def _with_summaries(tmp_path: Path, change) -> Path:
    """GPT5's log with its summaries.json changed by `change` (a function of the list)."""
    return with_member_changed(
        GPT5, tmp_path, "summaries.json", lambda data: change(json.loads(data)).encode("utf-8")
    )


def _error_both_ways(path: Path, monkeypatch) -> tuple[str, str]:
    """The load's error with the fast path (batches of 2), and with the checking decoder
    alone (what the reader said before the fast path existed)."""
    monkeypatch.setattr(json_array, "BATCH", 2)
    with pytest.raises(InputError) as fast:
        load_run(path)
    monkeypatch.setattr(json_array.ArrayElements, "of", classmethod(lambda cls, d, p: None))
    monkeypatch.setattr(jsontext, "fast_loads", lambda data: jsontext._NO_FAST)
    with pytest.raises(InputError) as slow:
        load_run(path)
    return str(fast.value), str(slow.value)


def test_a_summary_with_a_key_twice_in_a_late_batch_is_refused_in_the_same_words(
    tmp_path, monkeypatch
):
    def twice(summaries: list) -> str:
        text = json.dumps(summaries, indent=1)
        at = [i for i in range(len(text)) if text.startswith('"scores":', i)][7]
        return text[:at] + '"scores": null, ' + text[at:]

    fast, slow = _error_both_ways(_with_summaries(tmp_path, twice), monkeypatch)
    assert fast == slow
    assert "appears twice" in fast and "summaries.json" in fast and "[7].scores" in fast


def test_a_summary_with_a_mistyped_epoch_is_refused_in_the_same_words(tmp_path, monkeypatch):
    def mistyped(summaries: list) -> str:
        summaries[9]["epoch"] = "one"
        return json.dumps(summaries)

    fast, slow = _error_both_ways(_with_summaries(tmp_path, mistyped), monkeypatch)
    assert fast == slow
    assert "summaries.json[9]" in fast and "epoch" in fast and "one" in fast


def test_a_batch_the_fast_path_cannot_prove_is_read_by_the_checking_decoder():
    text = b'[{"t": 1e-07}, {"t": "\\u00e9"}, {"t": 2}]'
    elements = json_array.ArrayElements.of(text, lambda: pytest.fail("parsed whole"))
    assert elements is not None and list(elements) == json.loads(text)


def test_batches_read_the_same_run_as_one_decoding(monkeypatch):
    whole = load_run(GPT5)
    monkeypatch.setattr(json_array, "BATCH", 3)
    batched = load_run(GPT5)
    assert batched.table.equals(whole.table)
    assert batched.metadata == whole.metadata


def test_the_summaries_are_split_into_elements_without_decoding_them():
    elements = json_array.ArrayElements.of(b'[{"a": 1}, [2], "three"]', lambda: None)
    assert elements is not None and len(elements) == 3
    assert list(elements) == [{"a": 1}, [2], "three"]
    assert json_array.ArrayElements.of(b'{"not": "a list"}', lambda: None) is None


def test_the_reader_keeps_its_checks_when_summaries_are_no_list(tmp_path):
    path = _with_summaries(tmp_path, lambda summaries: json.dumps({"samples": summaries}))
    with pytest.raises(InputError, match="expected a JSON list of sample summaries"):
        load_run(path)
    assert inspect_eval.SUMMARIES_JSON == "summaries.json"


def test_a_name_holding_the_entry_signature_is_listed_by_the_walk(tmp_path):
    """The vectorised pass takes every signature for an entry; one inside a name breaks its
    chain, so zipfile's walk lists the directory instead, with the same result."""
    path = tmp_path / "signature.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.json", b"[]")
        archive.writestr("tricky PK\x01\x02 name.json", b"[]")
        archive.writestr("b.json", b"[]")
    assert zip_directory._entries_vectorised(b"PK\x01\x02" + bytes(60)) is None
    _same_as_zipfile(path)


def test_the_columns_check_sends_an_overlap_to_check_layout(tmp_path):
    path = tmp_path / "overlap.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.json", b"[1, 2, 3]")
        archive.writestr("b.json", b"[4, 5, 6]")
    data = bytearray(path.read_bytes())
    second = data.find(b"PK\x01\x02", data.find(b"PK\x01\x02") + 4)
    struct.pack_into("<L", data, second + 42, 0)  # b.json's bytes are a.json's
    path.write_bytes(bytes(data))
    directory = _ours(path)
    assert directory.layout_suspect()
    with pytest.raises(LimitExceeded, match="overlaps"):
        checked_members(directory)


def test_verdict_scores_are_shared_and_anything_unusual_is_kept_as_written():
    shared: dict = {}
    first = {"match": {"value": "C", "answer": "No", "explanation": "long text"}}
    second = {"match": {"value": "C", "answer": "Yes", "explanation": "other text"}}
    slim = shared_scores(first, shared)
    assert slim == {"match": {"value": "C"}} and shared_scores(second, shared) is slim
    for unusual in (
        {"match": {"value": 0.5}},  # a number
        {"match": {"value": {"a": 1}}},  # a dict of values
        {"match": {"answer": "no value"}},  # no value: its error quotes this
        {"match": "C"},  # no object
        ["not", "a", "dict"],
    ):
        assert shared_scores(unusual, shared) is unusual


def test_the_app_defers_a_local_logs_sha256_and_confirm_hashes_the_same_bytes(tmp_path):
    import os

    from evaltui.core.read.formats.contract import LoadOptions
    from evaltui.core.read.formats.scan_cache import confirm
    from evaltui.core.read.runs import sha256_of

    path = tmp_path / GPT5.name
    path.write_bytes(GPT5.read_bytes())
    run = load_run(path, options=LoadOptions(defer_hash_check=True))
    assert (run.source.sha256, run.source.hash_checked) == ("", False)
    confirmed = confirm(run.source)
    assert confirmed.sha256 == sha256_of(path) and confirmed.hash_checked
    assert load_run(path).source.sha256 == confirmed.sha256  # headless: hashed at once
    later = load_run(path, options=LoadOptions(defer_hash_check=True))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # rewritten since
    with pytest.raises(InputError, match="changed since it was opened"):
        confirm(later.source)


# ---------------------------------------------------------------------------------------------
# The per-sample work done once per name or per shared object


def test_sample_member_names_split_as_the_patterns_split_them():
    from evaltui.core.read.formats.inspect_chunked import SHELL

    names = [
        "samples/1_epoch_1.json", "samples/x_epoch_epoch_2.json", "samples/_epoch_epoch_1.json",
        "samples/_epoch_1.json", "samples/a/b_epoch_3.json", "samples/7_epoch_1.json\n",
        "samples/8_epoch_\uff11.json", "samples/9_epoch_\u00b2.json", "samples/1_epoch_.json",
        "samples/x_epoch_2/sample.json", "header.json", "samples/1_epoch_1.jsonx",
        "samples/2_epoch_01.json", "samples/1_epoch_1_epoch_2.json", "samples/a\nb_epoch_1.json",
        "samples/.json", "samples/y_epoch_1/sample.json\n", "summaries.json",
    ]  # fmt: skip
    expected = {
        (m["id"], int(m["epoch"])): name
        for name in names
        if (m := inspect_eval.SAMPLE_MEMBER.match(name) or SHELL.match(name)) is not None
    }
    assert inspect_eval._sample_members(names) == expected
    assert ("8", 1) in expected and ("9", 1) not in expected  # a decimal digit, not a '²'


def test_scorers_are_listed_in_order_of_first_appearance_whether_shared_or_not():
    from evaltui.core.read.formats.inspect_common import SampleFacts
    from evaltui.core.read.formats.inspect_scores import (
        SettledFacts,
        _find_distinct,
        available_scorers,
        scorer_keys,
    )

    shared = {"b": {"value": "C"}}
    facts = [
        SampleFacts("1", 1, None, "boom", "r1"),
        SampleFacts("2", 1, shared, None, "r2"),
        SampleFacts("3", 1, {"a": {"value": {"k2": 1, "k1": 0}}, "b": {"value": "I"}}, None, "r3"),
        SampleFacts("4", 1, shared, None, "r4"),
        SampleFacts("5", 1, {"c": {"value": {"k3": 1}}, "a": {"value": {"k1": 1}}}, None, "r5"),
    ]
    assert available_scorers(facts) == ["b", "a", "c"]
    assert available_scorers(iter(facts)) == ["b", "a", "c"]
    assert scorer_keys(facts) == {"a": ["k2", "k1"], "c": ["k3"]}
    settled = SettledFacts(facts)  # the distinct scores found once, asked for again
    for _ in range(2):
        assert available_scorers(settled) == ["b", "a", "c"]
        assert scorer_keys(settled) == {"a": ["k2", "k1"], "c": ["k3"]}
    assert settled.distinct_scores() == list(_find_distinct(facts))


def test_an_unreadable_shared_score_value_is_refused_at_its_first_sample(tmp_path):
    from evaltui.core.read.formats.inspect_common import SampleFacts
    from evaltui.core.read.formats.inspect_rows import build_table

    good, bad = {"match": {"value": "C"}}, {"match": {"value": "maybe"}}
    facts = [
        SampleFacts(str(i), 1, bad if i in (3, 5) else good, None, f"s[{i}]") for i in range(6)
    ]
    with pytest.raises(InputError) as refused:
        build_table(tmp_path / "x.eval", facts, "match")
    assert "s[3]" in str(refused.value) and "'maybe'" in str(refused.value).replace('"', "'")


# ---------------------------------------------------------------------------------------------
# Summaries read column-wise: the same facts as one at a time, or none (then one at a time)

_ID = st.one_of(
    st.integers(-(2**64), 2**64), st.booleans(), st.sampled_from(["", "a", "x\x00", "7"]),
    st.none(), st.floats(allow_nan=False),
)  # fmt: skip
_NUMBER = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-3, 3))
_USAGE = st.one_of(
    st.none(),
    st.just({}),
    st.dictionaries(
        st.sampled_from(["m1", "m2"]),
        st.one_of(st.none(), st.dictionaries(st.sampled_from(list(TOKEN_KEYS)), _NUMBER)),
        max_size=2,
    ),
)
_SUMMARY = st.fixed_dictionaries(
    {"id": _ID, "epoch": st.one_of(st.integers(-1, 3), st.booleans(), st.just(2**63))},
    optional={
        "input": st.one_of(
            st.text(max_size=5), st.none(), st.just([{"role": "user", "content": "hi"}])
        ),
        "scores": st.one_of(
            st.none(), st.just({}), st.just({"m": {"value": "C"}}), st.just({"m": {"value": 1}})
        ),
        "error": st.one_of(st.none(), st.just(""), st.just("boom"), st.just({"message": "x"})),
        "model_usage": _USAGE,
        "total_time": _NUMBER,
        "working_time": _NUMBER,
        "retries": _NUMBER,
        "error_retries": st.one_of(st.none(), st.just([1, 2])),
        "limit": st.one_of(st.none(), st.just({"type": "message", "limit": 3}), st.just("time")),
    },
)


_COMMON = st.fixed_dictionaries(
    {
        "id": st.integers(-(2**63), 2**63 - 1),
        "epoch": st.integers(1, 3),
        "input": st.text(max_size=5),
        "model_usage": st.dictionaries(
            st.just("m1"),
            st.dictionaries(st.sampled_from(list(TOKEN_KEYS)), st.one_of(st.none(), st.integers())),
            min_size=1,
        ),
    },
    optional={
        "scores": st.sampled_from(
            [
                {"m": {"value": "C"}},
                {"m": {"value": "I"}},
                {},
                None,
                {"m": {"value": True}},
                {"n": {"value": "C", "answer": "x"}},
                {"m": {"value": 1}},
                {"m": {}},
                {"m": "C"},
                {"m": {"value": "C"}, "n": {"value": False}},
                {"m": {"value": None}},
            ]
        ),
        "error": st.sampled_from([None, ""]),
        "total_time": st.one_of(st.none(), st.floats(0, 9)),
        "working_time": st.one_of(st.none(), st.floats(0, 9)),
        "retries": st.one_of(st.none(), st.integers(0, 3)),
        "error_retries": st.none(),
        "limit": st.none(),
    },
)  # the shape read column-wise; _SUMMARY: every shape


def _same_facts_either_way(summaries: list, named: dict) -> bool:
    """The column-wise facts equal the one-at-a-time ones, or there are none; True when the
    batch was read column-wise."""
    records = [f"summaries.json[{i}]" for i in range(len(summaries))]
    columns = columnwise_facts(records, summaries, named, {})
    shared: dict = {}  # one per load, as the reader keeps it
    try:
        expected = [
            sample_facts("x.eval", s, r, named, shared)
            for r, s in zip(records, summaries, strict=True)
        ]
    except InputError:
        assert columns is None  # a refusal is always made one at a time, in its words
        return False
    if columns is not None:
        assert columns == expected
        assert [type(f) for f in columns] == [type(f) for f in expected]
        assert [type(f.cost) for f in columns] == [type(f.cost) for f in expected]
        # the scores objects shared alike (one dict for the samples with the same verdicts)
        assert [[a.scores is b.scores for b in columns] for a in columns] == [
            [a.scores is b.scores for b in expected] for a in expected
        ]
    return columns is not None


_NAMED = st.sampled_from([{}, {("1", 1): "samples/1_epoch_1.json"}])


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.one_of(_COMMON, _COMMON, _COMMON, _SUMMARY, st.just([]), st.just(7)), max_size=6),
    _NAMED,
)
def test_summaries_of_any_shape_give_the_same_facts_column_wise(summaries, named):
    _same_facts_either_way(summaries, named)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_COMMON, min_size=1, max_size=6), _NAMED)
def test_summaries_of_the_common_shape_are_read_column_wise_to_the_same_facts(summaries, named):
    summaries[0]["id"] = 1  # (a member named for it, when `named` names one)
    assert _same_facts_either_way(summaries, named)


def test_a_large_log_of_the_common_shape_is_read_column_wise():
    summary = {
        "id": 3, "epoch": 1, "input": "Question?", "scores": {"match": {"value": "C"}},
        "model_usage": {"m": {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12}},
        "total_time": 1.5, "working_time": 1.25, "retries": 0, "error": None,
    }  # fmt: skip
    facts = columnwise_facts(["s[0]"], [summary], {("3", 1): "samples/3_epoch_1.json"}, {})
    assert facts == [sample_facts("x", summary, "s[0]", {("3", 1): "samples/3_epoch_1.json"}, {})]
    assert facts is not None and facts[0].record == "samples/3_epoch_1.json via s[0]"
    assert facts[0].cost == (5, 7, None, 12, 1.5, 1.25, 0, None, None)


def test_chat_inputs_two_models_and_limits_stay_in_the_column_wise_batch():
    chat = [{"role": "user", "content": [{"type": "text", "text": "q"}]}]
    summaries = [
        {"id": 1, "epoch": 1, "input": chat,
         "model_usage": {"a": {"input_tokens": 2}, "b": {"input_tokens": 3, "total_tokens": 9}},
         "limit": {"type": "message", "limit": 14.0}, "retries": 2},
        {"id": 2, "epoch": 1, "input": "plain", "total_time": 3, "error_retries": [{}, {}]},
    ]  # fmt: skip
    records = ["s[0]", "s[1]"]
    facts = columnwise_facts(records, summaries, {}, {})
    assert facts is not None  # read column-wise, not one at a time
    assert facts == [
        sample_facts("x", s, r, {}, {}) for r, s in zip(records, summaries, strict=True)
    ]
    assert facts[0].cost == (5, None, None, 9, None, None, 2, "message (14)", None)
    assert facts[1].cost == (None, None, None, None, 3.0, None, 2, None, None)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(_COMMON, min_size=1, max_size=6),
    st.lists(st.text(st.sampled_from("a7\x00\ud800\udc00\u00e9\n"), max_size=3), min_size=6),
)
def test_string_ids_are_read_column_wise_when_no_check_could_refuse_them(summaries, ids):
    for summary, item_id in zip(summaries, ids, strict=False):
        summary["id"] = item_id
    clean = all(i != "" and "\x00" not in i for i in ids[: len(summaries)]) and not any(
        "\ud800" <= c <= "\udfff" for i in ids[: len(summaries)] for c in i
    )
    assert _same_facts_either_way(summaries, {}) is clean
