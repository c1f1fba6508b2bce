"""Inspect `.eval` logs whose members are zstd-compressed (Inspect's default since 0.3.206).

Fixtures (tests/data/inspect_ai/README.txt, section zstd/): the real gpt-5 / claude-sonnet-4
pair re-compressed member by member with zstd (zip method 93) by `zstd/recompress.py`, and the
claude log again with every member split into three zstd frames (the layout Inspect writes for
members over 200 MiB). Broken archives are edited copies written to tmp_path.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from evaltui.core.errors import InputError
from evaltui.core.read.formats import detect_format, inspect_archive, load_run
from evaltui.core.read.formats.zip_members import ZIP_ZSTANDARD

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "inspect_ai"
ZSTD = DATA / "zstd"
NAMES = (
    "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval",
    "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval",
)
MULTIFRAME = ZSTD / "multiframe_popularity_jKN69eAYYpZFAZhRgMAztp.eval"


def methods(path: Path) -> set[int]:
    with zipfile.ZipFile(path) as archive:
        return {info.compress_type for info in archive.infolist()}


@pytest.mark.parametrize("name", NAMES)
def test_zstd_log_loads_the_same_table_and_metadata_as_its_deflate_original(name):
    assert methods(ZSTD / name) == {ZIP_ZSTANDARD}
    zstd_run, deflate_run = load_run(ZSTD / name), load_run(DATA / name)
    assert zstd_run.table.equals(deflate_run.table)
    assert dict(zstd_run.metadata) == dict(deflate_run.metadata)


def test_zstd_sample_member_is_read_for_drilldown():
    zstd_run, deflate_run = load_run(ZSTD / NAMES[0]), load_run(DATA / NAMES[0])
    for row in (0, 17, 49):
        assert zstd_run.transcripts.read(row) == deflate_run.transcripts.read(row)


def test_members_written_as_several_zstd_frames_are_read_whole():
    run, original = load_run(MULTIFRAME), load_run(DATA / NAMES[1])
    assert run.table.equals(original.table)
    assert run.transcripts.read(3) == original.transcripts.read(3)


def test_zstd_log_is_detected_from_its_content():
    assert detect_format(ZSTD / NAMES[0]) == "inspect_eval"


def _damaged(tmp_path: Path, member: str, edit) -> Path:
    """A copy of the zstd gpt-5 log with `member`'s compressed bytes edited in place."""
    data = bytearray((ZSTD / NAMES[0]).read_bytes())
    with zipfile.ZipFile(ZSTD / NAMES[0]) as archive:
        info = archive.getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    edit(data, start, info.compress_size)
    path = tmp_path / "damaged.eval"
    path.write_bytes(bytes(data))
    return path


def test_damaged_zstd_member_is_one_error_naming_the_member(tmp_path):
    def scramble(data, start, size):
        data[start + 4 : start + size] = bytes(size - 4)  # keep the magic, zero the frame

    path = _damaged(tmp_path, "header.json", scramble)
    with pytest.raises(InputError) as caught:
        load_run(path)
    message = str(caught.value)
    assert "(record header.json)" in message and "cannot read the member" in message
    assert "\n" not in message


def test_zstd_member_whose_bytes_do_not_match_the_crc_is_refused(tmp_path):
    from evaltui.core.read.formats.zip_members import zstd  # stdlib on 3.14, the backport below

    with zipfile.ZipFile(ZSTD / NAMES[0]) as archive:
        info = archive.getinfo("header.json")
        size = info.compress_size
    other = zstd.compress(b"{}")
    assert len(other) + 8 <= size
    # a skippable frame (magic 0x184D2A50) fills the rest, so the stream itself stays valid
    padding = size - len(other) - 8
    skippable = (0x184D2A50).to_bytes(4, "little") + padding.to_bytes(4, "little")

    def replace(data, start, size):
        data[start : start + size] = other + skippable + bytes(padding)

    with pytest.raises(InputError, match=r"\(record header.json\).*CRC-32"):
        load_run(_damaged(tmp_path, "header.json", replace))


def test_zstd_member_cap_bounds_what_is_inflated_not_what_is_declared(monkeypatch):
    monkeypatch.setattr(inspect_archive, "MAX_MEMBER_BYTES", 100)
    with pytest.raises(InputError, match=r"\(record header.json\): .*100-byte limit"):
        load_run(ZSTD / NAMES[0])
