"""One writer per pair, decided by the kernel: a flock on the pair's lock file.

Pinned here: two instances started together never both write; a holder that died (even one not
yet reaped) or a lock file left empty or garbled blocks nobody; the refusal names the holder on
one line; one process may open its pair twice; closing lets the next instance in.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evaltui.core.errors import UsageError
from evaltui.core.record.journal import ReviewSession, session_key
from evaltui.core.record.lock import LOCK_NAME, acquire_lock, release_lock

ROUNDS = 200
TIMEOUT = 20.0  # seconds any single wait may take before the test gives up instead of hanging

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from evaltui.core.record.journal import ReviewSession
    from evaltui.core.record.lock import LOCK_NAME
    root, base, cand = map(Path, sys.argv[1:4])
    s = ReviewSession.open(base, cand, "s1", "s2", root=root)
    if len(sys.argv) > 4:  # stand-in for a holder whose text write never finished
        (s.path.parent / LOCK_NAME).write_bytes(bytes.fromhex(sys.argv[4]))
    print("locked", flush=True)
    time.sleep(60)
    """
)

TRY_OPEN = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from evaltui.core.errors import UsageError
    from evaltui.core.record.journal import ReviewSession
    root, base, cand = map(Path, sys.argv[1:4])
    try:
        ReviewSession.open(base, cand, "s1", "s2", root=root).close()
    except UsageError as exc:
        print(exc)
    else:
        print("opened")
    """
)


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path, Path]:
    """State root, baseline and candidate paths (the files need not exist to lock)."""
    return tmp_path / "state", tmp_path / "b.jsonl", tmp_path / "c.jsonl"


def lock_file(root: Path, base: Path, cand: Path) -> Path:
    return root / "sessions" / session_key(base, cand) / LOCK_NAME


def start_holder(root: Path, base: Path, cand: Path, text: bytes | None = None):
    """Another evaltui holding the pair (optionally with its lock text replaced by `text`)."""
    args = [sys.executable, "-c", HOLDER, str(root), str(base), str(cand)]
    if text is not None:
        args.append(text.hex())
    holder = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    return holder


def open_elsewhere(root: Path, base: Path, cand: Path) -> str:
    """What another process gets when it opens the pair: "opened" or the refusal."""
    done = subprocess.run(
        [sys.executable, "-c", TRY_OPEN, str(root), str(base), str(cand)],
        capture_output=True, text=True, timeout=TIMEOUT, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def kill(holder: subprocess.Popen) -> None:
    if holder.poll() is None:
        os.kill(holder.pid, signal.SIGKILL)
    holder.wait()


# -- two instances started at the same moment -------------------------------------------------


def _race_worker(name, folders, start, hold, results) -> None:
    """One contender, reused every round: wait for the start, try the lock, report, and keep
    what it got until the other has tried too (so a release cannot let the second one in)."""
    while (folder := folders.get()) is not None:
        start.wait(TIMEOUT)
        try:
            key = acquire_lock(Path(folder))
        except UsageError as exc:
            results.put((name, "refused", str(exc)))
            hold.wait(TIMEOUT)
        else:
            results.put((name, "locked", ""))
            hold.wait(TIMEOUT)
            release_lock(key)


@pytest.mark.slow
def test_two_instances_started_together_never_both_get_the_pair(tmp_path):
    """Rounds on fresh folders, and on folders whose lock file names a dead holder (the case
    where two pid-file takeovers could both succeed): exactly one contender locks each time."""
    ctx = multiprocessing.get_context("spawn")
    start, hold, results = ctx.Barrier(2), ctx.Barrier(2), ctx.Queue()
    queues = {name: ctx.Queue() for name in ("a", "b")}
    workers = [
        ctx.Process(target=_race_worker, args=(name, q, start, hold, results), daemon=True)
        for name, q in queues.items()
    ]
    for worker in workers:
        worker.start()
    dead = json.dumps({"pid": 2**22 + 7, "host": socket.gethostname(), "time": "long ago"})
    outcomes = []
    try:
        for round_no in range(ROUNDS):
            folder = tmp_path / f"pair{round_no}"
            folder.mkdir()
            if round_no % 2:
                (folder / LOCK_NAME).write_text(dead, encoding="utf-8")
            for q in queues.values():
                q.put(str(folder))
            got = sorted(results.get(timeout=TIMEOUT)[1:] for _ in queues)
            outcomes.append(got)
    finally:
        for q in queues.values():
            q.put(None)
        for worker in workers:
            worker.join(TIMEOUT)
            if worker.is_alive():
                worker.kill()
    locked = [sum(1 for kind, _ in got if kind == "locked") for got in outcomes]
    assert locked == [1] * ROUNDS
    refusals = {message for got in outcomes for kind, message in got if kind == "refused"}
    assert all(m.startswith("another evaltui (") for m in refusals), refusals
    assert not any("None" in m for m in refusals), refusals


# -- holders that are gone, and what they leave behind ----------------------------------------


def _process_state(pid: int) -> str:
    """The one-letter state of a process from /proc (Z: dead, not yet reaped)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see a zombie")
def test_a_killed_holder_not_yet_reaped_does_not_block_the_pair(pair):
    root, base, cand = pair
    holder = start_holder(root, base, cand)
    try:
        os.kill(holder.pid, signal.SIGKILL)
        deadline = time.monotonic() + TIMEOUT
        while _process_state(holder.pid) != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _process_state(holder.pid) == "Z"  # a zombie: its pid still answers kill(0)
        session = ReviewSession.open(base, cand, "s1", "s2", root=root)
        session.set_tag("q1", "flaky")
        session.close()
        assert _process_state(holder.pid) == "Z"  # the check really ran against a zombie
    finally:
        kill(holder)


@pytest.mark.parametrize(
    "left_behind",
    [
        b"",
        b"\x00\xff\xfe not json at all",
        b'{"pid": 12',
        b"[1, 2, 3]",
        json.dumps({"pid": 2**22 + 7, "host": socket.gethostname(), "time": "x"}).encode(),
    ],
    ids=["empty", "garbage", "torn-json", "not-an-object", "dead-pid-same-host"],
)
def test_a_lock_file_left_empty_or_garbled_does_not_block_an_open(pair, left_behind):
    root, base, cand = pair
    lock = lock_file(root, base, cand)
    lock.parent.mkdir(parents=True)
    lock.write_bytes(left_behind)
    session = ReviewSession.open(base, cand, "s1", "s2", root=root)
    assert json.loads(lock.read_text())["pid"] == os.getpid()  # the text names the new holder
    assert open_elsewhere(root, base, cand).startswith(f"another evaltui (pid {os.getpid()} ")
    session.close()
    assert lock.exists()  # never unlinked: a second inode would allow a second holder
    assert lock.read_bytes() == b""  # released: no holder named
    assert open_elsewhere(root, base, cand) == "opened"


# -- the refusal -----------------------------------------------------------------------------


def test_the_refusal_names_the_live_holders_pid_host_time_terminal_and_how_to_end_it(pair):
    root, base, cand = pair
    holder = start_holder(root, base, cand)
    try:
        with pytest.raises(UsageError) as refused:
            ReviewSession.open(base, cand, "s1", "s2", root=root)
    finally:
        kill(holder)
    message = str(refused.value)
    host = re.escape(socket.gethostname())
    assert re.fullmatch(
        rf"another evaltui \(pid {holder.pid} on {host}, since [^,)\n]+, no terminal\) "
        rf"is reviewing this pair; close it, or end it with `kill {holder.pid}`",
        message,
    ), message


@pytest.mark.parametrize(
    "text",
    [b"", b"\x00\x00\x00", b'{"pid": 4', b'{"pid": 5, "host": "two\\nlines", "time": "t"}'],
    ids=["empty", "zeros", "torn-json", "host-with-newline"],
)
def test_the_refusal_says_the_holder_is_unknown_when_the_text_is_unreadable(pair, text):
    root, base, cand = pair
    holder = start_holder(root, base, cand, text=text)
    try:
        with pytest.raises(UsageError) as refused:
            ReviewSession.open(base, cand, "s1", "s2", root=root)
    finally:
        kill(holder)
    assert str(refused.value) == (
        "another evaltui (holder unknown) is reviewing this pair; close it first"
    )


# -- one process, and closing ----------------------------------------------------------------


def test_one_process_may_open_its_pair_twice_and_the_last_close_lets_others_in(pair):
    root, base, cand = pair
    first = ReviewSession.open(base, cand, "s1", "s2", root=root)
    second = ReviewSession.open(base, cand, "s1", "s2", root=root)
    second.set_tag("q1", "flaky")
    first.close()
    first.close()  # a repeated close must not give up the lock `second` still writes under
    assert open_elsewhere(root, base, cand).startswith(f"another evaltui (pid {os.getpid()} ")
    second.set_tag("q2", "acceptable")
    second.close()
    assert open_elsewhere(root, base, cand) == "opened"
    again = ReviewSession.open(base, cand, "s1", "s2", root=root)
    assert again.review("q1").tag == "flaky" and again.review("q2").tag == "acceptable"
    again.close()


def test_the_same_pair_through_a_symlinked_state_folder_is_the_same_lock(pair, tmp_path):
    root, base, cand = pair
    first = ReviewSession.open(base, cand, "s1", "s2", root=root)
    (tmp_path / "alias").symlink_to(root)
    second = ReviewSession.open(base, cand, "s1", "s2", root=tmp_path / "alias")
    first.close()
    second.close()
    assert open_elsewhere(root, base, cand) == "opened"


def test_a_forked_child_neither_keeps_nor_gives_up_its_parents_lock(pair):
    """The child shares the parent's open lock file: its copy of the session closing (or its
    exit) must not unlock the pair under the parent, and its own open is refused."""
    from evaltui.core.record.lock import release_all_locks

    root, base, cand = pair
    session = ReviewSession.open(base, cand, "s1", "s2", root=root)
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            session.close()
            release_all_locks()  # what its atexit would do
            try:
                ReviewSession.open(base, cand, "s1", "s2", root=root)
            except UsageError as exc:
                code = 0 if f"(pid {os.getppid()} " in str(exc) else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert open_elsewhere(root, base, cand).startswith(f"another evaltui (pid {os.getpid()} ")
    session.close()
    assert open_elsewhere(root, base, cand) == "opened"
