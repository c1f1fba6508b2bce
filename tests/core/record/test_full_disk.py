"""A full disk never wedges a pair, never tears the journal and never half-writes a record.

On a real small file system (a tmpfs mounted for the test; skipped with the reason where it
cannot be made) and with fake writers that raise ENOSPC part-way: opening on a full disk is one
line naming the journal, exit 2, and the lock it leaves blocks nobody, so the next open after
space is freed works without touching it; a tag that cannot be written is said on screen, never
"saved", the review stays open and writes again once space returns; a sign-off on a full disk
leaves the previous record as it was and nothing else behind.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaltui.core.record.journal import ReviewSession, StateWriteError, session_key
from evaltui.core.record.lock import LOCK_NAME
from tests.conftest import SAMPLE_RUNS

BASE, CAND = SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"
SCRIPT = Path(sys.executable).parent / "evaltui"
TIMEOUT = 120


class SmallDisk:
    """A mounted tmpfs of a few hundred KiB: `fill` takes every free page, `free` gives
    them back."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fillers: list[Path] = []

    def fill(self) -> None:
        """Write until the file system refuses: big chunks first, then page-sized ones."""
        filler = self.root / f"filler{len(self._fillers)}"
        self._fillers.append(filler)
        with filler.open("wb", buffering=0) as handle:
            for size in (1 << 16, 1 << 12, 1 << 9, 1):
                chunk = b"\0" * size
                while True:
                    try:
                        handle.write(chunk)
                    except OSError as exc:
                        assert exc.errno == errno.ENOSPC, exc
                        break

    def free(self) -> None:
        for filler in self._fillers:
            filler.unlink(missing_ok=True)
        self._fillers.clear()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    """A 512 KiB tmpfs at tmp_path/disk, unmounted at teardown whatever the test did."""
    if not sys.platform.startswith("linux"):
        pytest.skip("a small file system is mounted with Linux tmpfs")
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount, umount = shutil.which("mount"), shutil.which("umount")
    if mount is None or umount is None:
        pytest.skip("mount/umount are not installed")
    point = tmp_path / "disk"
    point.mkdir()
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", "size=512k,mode=0755", "tmpfs", str(point)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield SmallDisk(point)
    finally:
        gone = subprocess.run([umount, str(point)], capture_output=True, check=False)
        if gone.returncode != 0:  # something still open there: detach it anyway
            subprocess.run([umount, "-l", str(point)], capture_output=True, check=False)


def evaltui(*args: str, state: Path) -> subprocess.CompletedProcess[str]:
    """The installed command, its state folder at `state`."""
    env = {**os.environ, "EVALTUI_STATE_DIR": str(state)}
    env.pop("EVALTUI_DEBUG", None)
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=TIMEOUT,
        check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def signoff(prefix: Path, state: Path, rationale: str = "why") -> subprocess.CompletedProcess:
    return evaltui(
        "signoff", str(BASE), str(CAND), "--decision", "block", "--reviewer", "dana",
        "--rationale", rationale, "--output", str(prefix), state=state,
    )  # fmt: skip


def journal_entries(path: Path) -> list[dict]:
    """Every line of a journal, each of which must be whole JSON."""
    raw = path.read_bytes()
    assert raw.endswith(b"\n"), raw[-200:]
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


# -- on a real small file system ------------------------------------------------------------


@pytest.mark.slow
def test_opening_on_a_full_disk_is_one_line_naming_the_journal_and_the_next_open_works(
    small_disk,
):
    state = small_disk.root / "state"
    small_disk.fill()
    done = signoff(small_disk.root.parent / "so", state)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    folder = state / "sessions" / session_key(BASE, CAND)
    assert lines[0] == (
        f"evaltui: error: cannot write the review journal {folder / 'journal.jsonl'}: "
        "the disk is full (No space left on device)"
    )
    lock = folder / LOCK_NAME
    before = lock.stat() if lock.exists() else None
    small_disk.free()
    again = signoff(small_disk.root.parent / "so", state)
    assert again.returncode == 0, again.stderr
    if before is not None:  # the same lock file, left as it was: nobody had to delete it
        assert (lock.stat().st_ino, lock.stat().st_dev) == (before.st_ino, before.st_dev)
    entries = journal_entries(folder / "journal.jsonl")
    assert entries[0]["kind"] == "session"


def test_a_session_that_cannot_start_on_a_full_disk_gives_the_pair_back_at_once(small_disk):
    state = small_disk.root / "state"
    small_disk.fill()
    with pytest.raises(StateWriteError, match="the disk is full"):
        ReviewSession.open(BASE, CAND, "s1", "s2", root=state)
    small_disk.free()
    # In the same process too: the failed open did not keep the pair locked.
    session = ReviewSession.open(BASE, CAND, "s1", "s2", root=state)
    session.set_tag("pharm-0020", "flaky")
    session.close()


@pytest.mark.slow
async def test_tags_on_a_full_disk_are_never_shown_as_saved_and_are_written_once_space_returns(
    small_disk,
):
    """Open with space, fill the disk, tag until the disk refuses: the refusal says so on
    screen, leaves the journal byte for byte as it was and keeps the review open; after
    freeing space the next key writes its tag."""
    from tests.ui.helpers import demo_app, settle

    state = small_disk.root / "state"
    journal = state / "sessions" / session_key(BASE, CAND) / "journal.jsonl"
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        small_disk.fill()
        refused = None
        for attempt in range(200):  # the journal's last page takes a few more lines first
            before = journal.read_bytes()
            app.clear_notifications()
            await pilot.press("1" if attempt % 2 else "2")
            await pilot.pause()
            said = [n.message for n in app._notifications]
            if any(m.startswith("NOT saved") for m in said):
                refused = said
                break
            assert any(m.startswith("saved:") for m in said), said
        assert refused is not None, "the full disk never refused a tag"
        assert not any(m.startswith("saved:") for m in refused), refused
        assert "the disk is full" in refused[0] and str(journal) in refused[0], refused
        assert journal.read_bytes() == before  # no half line left behind
        assert app.is_running and app.return_code is None
        item_id = app.current_item()
        small_disk.free()
        app.clear_notifications()
        await pilot.press("3")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert said == [f"saved: {item_id} → grader error"], said
        assert app.loaded.session.review(item_id).tag == "grader error"
    entries = journal_entries(journal)
    assert entries[-1]["kind"] == "tag" and entries[-1]["tag"] == "grader error"
    reopened = ReviewSession.open(BASE, CAND, "x", "y", root=state, read_only=True)
    assert not [n for n in reopened.notices if "journal" in n.text], reopened.notices


@pytest.mark.slow
def test_a_signoff_on_a_full_disk_leaves_the_previous_record_and_nothing_else(small_disk):
    state = small_disk.root.parent / "state"  # the journal has room; the output folder not
    out = small_disk.root / "records"
    out.mkdir()
    first = signoff(out / "so", state, rationale="first")
    assert first.returncode == 0, first.stderr
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(before) == ["so.csv", "so.json", "so.md"]
    small_disk.fill()
    done = signoff(out / "so", state, rationale="second, on a full disk")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"evaltui: error: cannot write the sign-off record {out / 'so'}.")
    assert "the disk is full" in lines[0] and "a record already there is unchanged" in lines[0]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # no temp files either
    small_disk.free()
    again = signoff(out / "so", state, rationale="third")
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "so.json").read_text())["rationale"] == "third"


# -- with fake writers that fail part-way (no mount needed) ---------------------------------


def _is_journal(fd: int) -> bool:
    try:
        return os.readlink(f"/proc/self/fd/{fd}").endswith("journal.jsonl")
    except OSError:
        return False


@pytest.fixture
def session(tmp_path: Path) -> Iterator[ReviewSession]:
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("the fake writer tells the journal's descriptor by /proc/self/fd")
    opened = ReviewSession.open(BASE, CAND, "s1", "s2", root=tmp_path / "state")
    opened.set_tag("pharm-0020", "flaky")
    yield opened
    opened.close()


def test_a_write_cut_short_by_enospc_leaves_no_half_line_and_the_next_tag_lands(
    session, monkeypatch
):
    real_write = os.write
    calls = []

    def short_then_full(fd, data):
        if not _is_journal(fd):
            return real_write(fd, data)
        calls.append(len(data))
        if len(calls) == 1:  # half the line fits, then the disk is full
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    before = session.path.read_bytes()
    monkeypatch.setattr(os, "write", short_then_full)
    with pytest.raises(StateWriteError, match="cannot write the review journal .*: the disk"):
        session.set_tag("pharm-0063", "acceptable")
    monkeypatch.undo()
    assert calls and session.path.read_bytes() == before
    assert session.review("pharm-0063").tag is None  # not applied either
    session.set_tag("pharm-0063", "grader error")
    assert [e.get("tag") for e in journal_entries(session.path)[1:]] == ["flaky", "grader error"]


def test_a_failed_fsync_is_not_saved_and_is_cut_back(session, monkeypatch):
    real_fsync = os.fsync

    def failing(fd):
        if _is_journal(fd):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_fsync(fd)

    before = session.path.read_bytes()
    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(StateWriteError, match="Input/output error"):
        session.set_note("pharm-0020", "a note the disk did not take")
    monkeypatch.undo()
    assert session.path.read_bytes() == before
    assert session.review("pharm-0020").note == ""


def test_when_even_the_cut_back_fails_the_next_entry_still_starts_on_its_own_line(
    session, monkeypatch
):
    real_write, real_truncate = os.write, os.ftruncate
    calls = []

    def short_then_full(fd, data):
        if not _is_journal(fd):
            return real_write(fd, data)
        calls.append(1)
        if len(calls) == 1:
            return real_write(fd, bytes(data[:10]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def no_truncate(fd, length):
        if _is_journal(fd):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_truncate(fd, length)

    monkeypatch.setattr(os, "write", short_then_full)
    monkeypatch.setattr(os, "ftruncate", no_truncate)
    with pytest.raises(StateWriteError):
        session.set_tag("pharm-0063", "acceptable")
    monkeypatch.undo()
    session.set_tag("pharm-0103", "flaky")
    reopened = ReviewSession.open(BASE, CAND, "s1", "s2", root=session.path.parents[2])
    assert reopened.review("pharm-0020").tag == "flaky"
    assert reopened.review("pharm-0103").tag == "flaky"  # not swallowed by the torn line
    assert reopened.review("pharm-0063").tag is None
    assert [n.text for n in reopened.notices] == [f"journal {session.path}: line 3 is damaged"]
    reopened.close()


def test_a_signoff_whose_second_file_hits_enospc_leaves_the_old_record_whole(
    tmp_path, monkeypatch, capsys
):
    from evaltui.cli.main import main

    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    args = ["signoff", str(BASE), str(CAND), "--decision", "block", "--reviewer", "dana"]
    out = tmp_path / "out"
    out.mkdir()
    assert main([*args, "--rationale", "first", "--output", str(out / "so")]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real_fsync, synced = os.fsync, []

    def full_on_the_second_file(fd):
        name = os.readlink(f"/proc/self/fd/{fd}") if Path("/proc/self/fd").is_dir() else ""
        if "/out/.so." in name:
            synced.append(name)
            if len(synced) == 2:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full_on_the_second_file)
    capsys.readouterr()
    code = main([*args, "--rationale", "second", "--output", str(out / "so")])
    monkeypatch.undo()
    err = capsys.readouterr().err
    if not synced:
        pytest.skip("needs /proc/self/fd to tell the record's temporary files")
    assert code == 2
    assert err == (
        f"evaltui: error: cannot write the sign-off record {out / 'so.md'}: the disk is full "
        "(No space left on device); nothing was written (a record already there is unchanged)\n"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


# -- the app ---------------------------------------------------------------------------------


async def test_the_app_opened_on_a_full_disk_ends_with_one_line_naming_the_journal(small_disk):
    from tests.ui.helpers import demo_app

    state = small_disk.root / "state"
    small_disk.fill()
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(400):  # bounded: the load fails within moments, then the app exits
            if app.load_error is not None:
                break
            await pilot.pause(0.05)
    journal = state / "sessions" / session_key(BASE, CAND) / "journal.jsonl"
    assert app.return_code == 2
    assert app.load_error == (
        f"cannot write the review journal {journal}: the disk is full (No space left on device)"
    )


@pytest.mark.slow
async def test_a_note_the_disk_refuses_keeps_its_text_in_the_reopened_editor(tmp_path, monkeypatch):
    from textual.widgets import TextArea

    from evaltui.ui.screens.note import NoteScreen
    from tests.ui.helpers import demo_app, settle

    if not Path("/proc/self/fd").is_dir():
        pytest.skip("the fake writer tells the journal's descriptor by /proc/self/fd")
    real_write = os.write

    def full(fd, data):
        if _is_journal(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        item_id = app.current_item()
        await pilot.press("e")
        await pilot.pause()
        await pilot.press(*"half an hour of reading")
        monkeypatch.setattr(os, "write", full)
        app.clear_notifications()
        await pilot.press("ctrl+s")
        await pilot.pause()
        monkeypatch.undo()
        said = [n.message for n in app._notifications]
        assert len(said) == 1 and said[0].startswith(f"NOT saved: note on {item_id}: "), said
        assert isinstance(app.screen, NoteScreen)  # the editor is back, with the text
        assert app.screen.query_one(TextArea).text == "half an hour of reading"
        assert app.loaded.session.review(item_id).note == ""
        app.clear_notifications()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert [n.message for n in app._notifications] == [f"saved: note on {item_id}"]
        assert not isinstance(app.screen, NoteScreen)
        assert app.loaded.session.review(item_id).note == "half an hour of reading"
