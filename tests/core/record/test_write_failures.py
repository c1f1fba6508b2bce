"""Every write that can fail fails cleanly: one line naming the path, exit 2, nothing left
behind, nothing the reviewer had already saved lost.

Permission cases run the installed command without the capabilities that let root read any
file (setpriv drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), so they are real refusals of the
kernel under root too; a read-only state folder is a tmpfs mounted read-only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaltui.core.record.journal import session_key
from evaltui.core.record.lock import LOCK_NAME
from tests.conftest import SAMPLE_RUNS
from tests.in_process import run_evaltui

SCRIPT = Path(sys.executable).parent / "evaltui"
TIMEOUT = 120


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the demo pair in a folder of the test's own (its modes are the test's)."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for name in ("baseline.jsonl", "candidate.jsonl"):
        shutil.copy(SAMPLE_RUNS / name, folder / name)
    return folder / "baseline.jsonl", folder / "candidate.jsonl"


def unprivileged() -> list[str]:
    """A command prefix under which file modes are enforced: nothing for a normal user; for
    root, setpriv without the two capabilities that bypass them."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root reads any file, and setpriv (to drop that) is not installed")
    probe = subprocess.run(
        [setpriv, "--bounding-set=-dac_override,-dac_read_search", "true"],
        capture_output=True, check=False,
    )  # fmt: skip
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop capabilities here: {probe.stderr.decode().strip()}")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def evaltui(
    *args: str | Path, state: Path, prefix: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The command with STATE as its state folder: in this process, unless `prefix` (setpriv,
    dropping root's capabilities) needs a process of its own."""
    if not prefix:
        return run_evaltui(args, {"EVALTUI_STATE_DIR": str(state)})
    env = {**os.environ, "EVALTUI_STATE_DIR": str(state)}
    env.pop("EVALTUI_DEBUG", None)
    return subprocess.run(
        [*(prefix or []), str(SCRIPT), *map(str, args)], capture_output=True, text=True,
        env=env, timeout=TIMEOUT, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def signoff_args(base: Path, cand: Path, output: Path | str, rationale: str = "why") -> list:
    return [
        "signoff", base, cand, "--decision", "block", "--reviewer", "dana",
        "--rationale", rationale, "--output", output,
    ]  # fmt: skip


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The single stderr line of a refused command (exit 2, no traceback)."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr.rstrip("\n")


def files_under(folder: Path) -> set[str]:
    return (
        {p.relative_to(folder).as_posix() for p in folder.rglob("*")} if folder.exists() else set()
    )


@pytest.fixture
def read_only_mount(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs at tmp_path/ro: written freely until `remount_read_only`, unmounted after."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("mounting a read-only tmpfs needs Linux and root")
    point = tmp_path / "ro"
    point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(point)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield point
    finally:
        if subprocess.run(["umount", str(point)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(point)], capture_output=True, check=False)


def remount_read_only(point: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(point)], check=True, capture_output=True)


# -- the state folder -----------------------------------------------------------------------


def test_a_read_only_state_folder_refuses_a_new_session_on_one_line(pair, read_only_mount):
    base, cand = pair
    remount_read_only(read_only_mount)
    state = read_only_mount / "state"
    line = one_line(evaltui(*signoff_args(base, cand, read_only_mount.parent / "so"), state=state))
    folder = state / "sessions" / session_key(base, cand)
    assert line == (
        f"evaltui: error: cannot write the review folder {folder}: the file system is "
        "read-only (Read-only file system)"
    )
    assert not (read_only_mount.parent / "so.json").exists()


@pytest.mark.slow
def test_a_state_folder_made_read_only_after_tagging_refuses_writes_and_still_reports(
    pair, read_only_mount
):
    base, cand = pair
    state, out = read_only_mount / "state", read_only_mount.parent
    assert evaltui(*signoff_args(base, cand, out / "first"), state=state).returncode == 0
    journal = state / "sessions" / session_key(base, cand) / "journal.jsonl"
    before = journal.read_bytes()
    remount_read_only(read_only_mount)
    line = one_line(evaltui(*signoff_args(base, cand, out / "second"), state=state))
    lock = journal.parent / LOCK_NAME
    assert line == (
        f"evaltui: error: cannot open the review lock {lock}: the file system is read-only "
        "(Read-only file system)"
    )
    assert not (out / "second.json").exists()
    assert journal.read_bytes() == before
    report = evaltui("report", base, cand, "--format", "json", state=state)
    assert report.returncode == 0, report.stderr  # reading the journal needs no writes


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
def test_an_unwritable_state_folder_is_refused_on_one_line(pair, tmp_path):
    prefix = unprivileged()
    base, cand = pair
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(0o555)
    try:
        line = one_line(
            evaltui(*signoff_args(base, cand, tmp_path / "so"), state=state, prefix=prefix)
        )
    finally:
        state.chmod(0o755)
    folder = state / "sessions" / session_key(base, cand)
    assert line == (
        f"evaltui: error: cannot write the review folder {folder}: permission denied "
        "(Permission denied)"
    )
    assert files_under(state) == set() and not (tmp_path / "so.json").exists()


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
def test_a_lock_file_made_unreadable_is_refused_on_one_line_and_blocks_nothing_after(
    pair, tmp_path
):
    prefix = unprivileged()
    base, cand = pair
    state = tmp_path / "state"
    assert evaltui(*signoff_args(base, cand, tmp_path / "a"), state=state).returncode == 0
    lock = state / "sessions" / session_key(base, cand) / LOCK_NAME
    lock.chmod(0o000)
    try:
        done = evaltui(*signoff_args(base, cand, tmp_path / "b"), state=state, prefix=prefix)
    finally:
        lock.chmod(0o644)
    assert one_line(done) == (
        f"evaltui: error: cannot open the review lock {lock}: permission denied (Permission denied)"
    )
    assert not (tmp_path / "b.json").exists()
    assert evaltui(*signoff_args(base, cand, tmp_path / "b"), state=state).returncode == 0


def test_a_lock_path_that_is_a_folder_is_refused_on_one_line(pair, tmp_path):
    base, cand = pair
    state = tmp_path / "state"
    lock = state / "sessions" / session_key(base, cand) / LOCK_NAME
    lock.mkdir(parents=True)
    line = one_line(evaltui(*signoff_args(base, cand, tmp_path / "so"), state=state))
    assert line == f"evaltui: error: cannot open the review lock {lock}: Is a directory"


# -- the sign-off's output --------------------------------------------------------------------


def test_an_output_prefix_into_a_missing_folder_is_refused_and_creates_nothing(pair, tmp_path):
    base, cand = pair
    line = one_line(
        evaltui(*signoff_args(base, cand, tmp_path / "nope" / "so"), state=tmp_path / "s")
    )
    assert (
        line
        == f"evaltui: error: cannot write the sign-off: folder {tmp_path / 'nope'} does not exist"
    )
    assert not (tmp_path / "nope").exists()


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
def test_an_output_prefix_under_a_file_is_refused(pair, tmp_path):
    base, cand = pair
    (tmp_path / "afile").write_text("x")
    line = one_line(
        evaltui(*signoff_args(base, cand, tmp_path / "afile" / "so"), state=tmp_path / "s")
    )
    assert (
        line == f"evaltui: error: cannot write the sign-off: {tmp_path / 'afile'} is not a folder"
    )


def test_an_output_through_a_dangling_folder_link_is_refused(pair, tmp_path):
    base, cand = pair
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    line = one_line(
        evaltui(*signoff_args(base, cand, tmp_path / "link" / "so"), state=tmp_path / "s")
    )
    assert (
        line
        == f"evaltui: error: cannot write the sign-off: folder {tmp_path / 'link'} does not exist"
    )
    assert not (tmp_path / "gone").exists()


@pytest.mark.parametrize("which", ["so.json", "so.md", "so.csv"])
def test_a_record_file_that_is_a_symlink_is_never_written_through(pair, tmp_path, which):
    base, cand = pair
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("not a record")
    (out / which).symlink_to(elsewhere)
    line = one_line(evaltui(*signoff_args(base, cand, out / "so"), state=tmp_path / "s"))
    assert line == (
        f"evaltui: error: cannot write the sign-off: {out / which} is a symbolic link "
        f"(to {elsewhere}); remove it or choose another --output"
    )
    assert elsewhere.read_text() == "not a record"
    assert files_under(out) == {which}  # nothing else written, no temporary files


def test_an_output_folder_reached_through_a_symlink_is_written_there(pair, tmp_path):
    base, cand = pair
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    done = evaltui(*signoff_args(base, cand, tmp_path / "alias" / "so"), state=tmp_path / "s")
    assert done.returncode == 0, done.stderr
    assert files_under(real) == {"so.json", "so.md", "so.csv"}


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
def test_a_record_already_at_the_output_is_replaced_whole(pair, tmp_path):
    """All three files are the new record's, none left from the old; no temporary files."""
    base, cand = pair
    out = tmp_path / "out"
    out.mkdir()
    first = evaltui(*signoff_args(base, cand, out / "so", "first"), state=tmp_path / "s")
    assert first.returncode == 0, first.stderr
    old = {p.name: p.read_bytes() for p in out.iterdir()}
    second = evaltui(*signoff_args(base, cand, out / "so", "second"), state=tmp_path / "s")
    assert second.returncode == 0, second.stderr
    new = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(new) == ["so.csv", "so.json", "so.md"]
    record = json.loads(new["so.json"])
    assert record["rationale"] == "second"
    assert b"second" in new["so.md"] and b"first" not in new["so.md"]
    assert new["so.json"] != old["so.json"] and new["so.md"] != old["so.md"]


@pytest.mark.slow
def test_an_output_folder_that_is_read_only_leaves_the_old_record_and_no_temp_files(
    pair, read_only_mount
):
    base, cand = pair
    out = read_only_mount / "out"
    out.mkdir()
    state = read_only_mount.parent / "state"
    assert evaltui(*signoff_args(base, cand, out / "so", "first"), state=state).returncode == 0
    old = {p.name: p.read_bytes() for p in out.iterdir()}
    remount_read_only(read_only_mount)
    line = one_line(evaltui(*signoff_args(base, cand, out / "so", "second"), state=state))
    assert line == (
        f"evaltui: error: cannot write the sign-off record {out / 'so.csv'}: the file system is "
        "read-only (Read-only file system); nothing was written (a record already there is "
        "unchanged)"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == old


# -- the inputs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    ["report", pytest.param("signoff", marks=pytest.mark.slow)],  # (the same read)
)
def test_an_input_without_read_permission_is_one_line_naming_it(pair, tmp_path, command):
    prefix = unprivileged()
    base, cand = pair
    base.chmod(0o000)
    try:
        args = ["report", base, cand] if command == "report" else signoff_args(base, cand, "so")
        done = evaltui(*args, state=tmp_path / "state", prefix=prefix)
    finally:
        base.chmod(0o644)
    line = one_line(done)
    assert line.startswith("evaltui: error: ") and str(base) in line, line
    assert "permission denied" in line.lower(), line
    assert files_under(tmp_path / "state") == set()
