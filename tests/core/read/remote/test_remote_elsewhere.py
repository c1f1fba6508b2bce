"""A large remote `.eval` log read by a second process (`inspect_elsewhere`), over the Range
HTTP server on the loopback: the run read here, at the version this process first saw (a log
replaced in between is refused in one line, never mixed), its requests counted here, its
samples read here through the same pinned blob; a small one read here as before."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from evaltui.cli.main import main
from evaltui.core.read.formats import LoadOptions, inspect_elsewhere, load_run
from evaltui.core.read.formats.inspect_elsewhere import candidate_loader, load_remote_elsewhere
from evaltui.core.read.remote import registry, stores
from evaltui.core.read.remote.blob import TRAFFIC, RemoteBlob
from evaltui.core.read.remote.failures import RemoteError
from evaltui.core.read.remote.registry import blob_for, seen
from tests.core.read.remote.conftest import BASE, CAND, padded

DEFERRED = LoadOptions(defer_hash_check=True)  # as the app reads


def test_a_large_remote_log_read_by_a_second_process_is_the_run_read_here(
    http_root: Any, asked: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _ = http_root
    url = f"{server.url}/{BASE.name}"
    here = load_run(url, None, DEFERRED)
    monkeypatch.setattr(inspect_elsewhere, "REMOTE_BYTES", 1)
    requests_before, traffic_before = server.requests, TRAFFIC.snapshot()
    there = load_remote_elsewhere(url, None, DEFERRED, wait_for_hash=False)
    assert len(asked) == 1 and asked[0] is there  # the child's run, not a fallback's
    assert there.table.equals(here.table) and there.metadata == here.metadata
    assert there.source == here.source and there.source.path == url
    # every request the child made is counted here, as if this process had made it
    counted = TRAFFIC.snapshot()[0] - traffic_before[0]
    assert counted == server.requests - requests_before >= 2  # a HEAD, the child's reads
    # the samples are read here, through this process's blob at the stamp the child read at
    reader = there.transcripts.path  # type: ignore[attr-defined]
    assert isinstance(reader, RemoteBlob) and reader is seen(url)
    for row in (0, here.n_records - 1):
        assert there.transcripts.read(row) == here.transcripts.read(row)


def test_a_log_replaced_after_this_process_looked_is_refused_by_the_child_in_one_line(
    http_root: Any,
) -> None:
    server, root = http_root
    (root / "swapped.eval").write_bytes(BASE.read_bytes())
    url = f"{server.url}/swapped.eval"
    blob = blob_for(url)
    blob.stat()  # the version this process saw
    replacement = root / "swapped.tmp"
    shutil.copy(CAND, replacement)
    os.replace(replacement, root / "swapped.eval")  # the writer replaces it meanwhile
    with pytest.raises(RemoteError) as caught:  # the child's refusal, sent back
        inspect_elsewhere._ask_child(url, None, DEFERRED, blob=blob)
    assert caught.value.kind == "changed"
    assert str(caught.value).startswith(f"{url}: ") and "\n" not in str(caught.value)


def test_a_small_remote_log_is_read_in_this_process(http_root: Any, asked: list[Any]) -> None:
    server, _ = http_root
    url = f"{server.url}/{CAND.name}"  # 60 KB, far below `REMOTE_BYTES`
    before = server.requests
    here = load_run(url, None, DEFERRED)
    read_here = server.requests - before
    before = server.requests
    run = load_remote_elsewhere(url, None, DEFERRED)
    assert asked == []
    assert run.table.equals(here.table)
    assert server.requests - before == read_here  # the look it sized it by is the read's one


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each child `_Child.start` started, and the order of starts and store looks (`events`)."""
    children: list[Any] = []
    events: list[str] = []
    start, look = inspect_elsewhere._Child.start, registry.blob_for

    def counted_start(scheme: str | None) -> Any:
        events.append("child")
        children.append(child := start(scheme))
        return child

    def counted_look(url: str) -> Any:
        events.append("look")
        return look(url)

    monkeypatch.setattr(inspect_elsewhere._Child, "start", staticmethod(counted_start))
    monkeypatch.setattr(registry, "blob_for", counted_look)
    children_and_events: list[Any] = [children, events]
    return children_and_events


def test_a_large_remote_logs_child_is_started_before_this_process_looks_at_it(
    http_root: Any, asked: list[Any], started: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child imports its reader and sets its store up while this process sets up its own
    and looks at the object (a second of the app's start over S3), not after."""
    server, _ = http_root
    monkeypatch.setattr(inspect_elsewhere, "REMOTE_BYTES", 1)
    run = load_remote_elsewhere(f"{server.url}/{BASE.name}", None, DEFERRED)
    children, events = started
    assert events == ["child", "look"] and asked == [run]
    assert children[0]._process.poll() == 0  # it answered and ended


@pytest.mark.parametrize("name", [CAND.name, "missing.eval"], ids=["small", "missing"])
def test_a_child_started_for_a_log_read_here_after_all_is_ended(
    http_root: Any, started: list[Any], name: str
) -> None:
    """A small log (read here) or one the look refuses: the child started before the look is
    killed and reaped, never left running beside the read or after the refusal."""
    server, _ = http_root
    url = f"{server.url}/{name}"
    try:
        load_remote_elsewhere(url, None, DEFERRED)
    except RemoteError as exc:
        assert name == "missing.eval" and "\n" not in str(exc)
    children, events = started
    assert events[:2] == ["child", "look"] and len(children) == 1
    process = children[0]._process
    assert process.poll() is not None and process.stdin.closed and process.stdout.closed


def test_a_child_sets_its_store_up_before_it_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_warm`: the reader imported and the store built and kept, so the read that follows
    finds it ready; a store that cannot be set up is left for the read to refuse."""
    monkeypatch.setattr(stores, "_cache", {})
    inspect_elsewhere._warm("https")
    assert list(stores._cache) == [("https", "")]
    monkeypatch.setattr(stores, "_build", lambda *a: 1 / 0)
    inspect_elsewhere._warm("s3")  # no exception: the read will say what is wrong
    assert list(stores._cache) == [("https", "")]


def test_a_remote_candidate_log_is_sized_in_its_own_reading_thread() -> None:
    """`candidate_loader` makes no request: a remote `.eval` candidate is sized by the loader
    it returns (in the candidate's thread, beside the baseline's read); other formats and
    other names are read here."""
    url = "https://example.invalid/logs/run.eval"
    assert candidate_loader(BASE, url, None) is load_remote_elsewhere
    assert candidate_loader(url, url, "inspect_eval") is load_remote_elsewhere
    assert candidate_loader(url, url, "jsonl") is load_run
    assert candidate_loader(url, "https://example.invalid/logs/run.jsonl", None) is load_run


def test_a_report_over_urls_with_a_second_process_is_the_report_without(
    http_root: Any, asked: list[Any], capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    server, root = http_root
    (root / "padded.eval").write_bytes(padded(CAND, 3 << 20))  # several blocks: ranges read
    base, cand = f"{server.url}/{BASE.name}", f"{server.url}/padded.eval"
    monkeypatch.setenv("EVALTUI_NO_CACHE", "1")
    assert main(["report", base, cand, "--format", "json"]) == 4
    without = capsys.readouterr().out
    monkeypatch.setattr(inspect_elsewhere, "REMOTE_BYTES", 1)
    assert main(["report", base, cand, "--format", "json"]) == 4
    assert len(asked) == 1 and asked[0] is not None
    assert capsys.readouterr().out == without  # its sha256 too, computed by the child


class _Stalled:
    """A loopback HTTP server that answers a HEAD (a 1 GB log, its ETag) and never answers a
    GET: a read that hangs (a slow link, a stuck store), so a reader stays in it until its
    process ends."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/log.eval"
        self.asked = threading.Event()  # a GET came in
        self.closed = threading.Event()  # and its connection was closed by the reader
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            connection, _ = self.socket.accept()
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            while request := connection.recv(65536):
                if not request.startswith(b"GET"):
                    connection.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n"
                        b'ETag: "v1"\r\nAccept-Ranges: bytes\r\n\r\n'
                    )
                    continue
                self.asked.set()
                while connection.recv(65536):  # b"": the reader's end closed
                    pass
                self.closed.set()
                return


@pytest.mark.slow
def test_the_second_process_ends_when_its_caller_is_killed_mid_read(tmp_path: Any) -> None:
    stalled = _Stalled()
    caller = subprocess.Popen(
        [sys.executable, "-c", CALLER, stalled.url],
        env=dict(os.environ, PYTHONPATH=str(ROOT), EVALTUI_CACHE_DIR=str(tmp_path)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        # barrier: the child's read began (it asks for the log's bytes after it started to
        # watch its stdin)
        assert stalled.asked.wait(60), caller.stderr.read() if caller.poll() is not None else ""
    finally:
        caller.kill()  # as the app quit or killed: the child's stdin closes with it
        caller.wait()
        caller.stderr.close()  # type: ignore[union-attr]
    # the child's connection closes as it ends; reading on, it would hold it for the store's
    # read timeout (60 s) and then retry
    assert stalled.closed.wait(30), "the second process read on after its caller was killed"
    assert stores.READ_TIMEOUT >= 60


ROOT = Path(__file__).resolve().parents[4]
CALLER = (  # as `load_remote_elsewhere` asks: the caller looks, the child reads at its stamp
    "import sys\n"
    "from evaltui.core.read.formats.contract import LoadOptions\n"
    "from evaltui.core.read.formats.inspect_elsewhere import _ask_child\n"
    "from evaltui.core.read.remote.registry import blob_for\n"
    "blob = blob_for(sys.argv[1])\n"
    "blob.stat()\n"
    "_ask_child(sys.argv[1], 'inspect_eval', LoadOptions(), blob=blob)\n"
)
