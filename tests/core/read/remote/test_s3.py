"""Runs and log directories in an S3 bucket (moto's server on the loopback), read where they
live: the report, the sign-off and its verification from the URLs, the listing from headers,
an item opened by range, and every failure said in one line with exit 2."""

from __future__ import annotations

import json

import pytest

from evaltui.cli.main import main
from evaltui.core.read.formats import inspect_elsewhere, load_run
from evaltui.core.read.formats.inspect_elsewhere import REMOTE_BYTES
from evaltui.core.read.logdir import list_runs
from evaltui.core.read.remote import stores
from evaltui.core.read.remote.failures import RemoteError
from tests.core.read.remote.conftest import BASE, CAND, OTHER, one_line_exit_2, padded
from tests.core.read.remote.servers import _Proxy

# moto's server costs ~8 s of CPU to import and start: these run with -m slow (and in .ci/run);
# the default run covers the remote path with the Range HTTP server (test_http.py)
pytestmark = pytest.mark.slow

B = f"s3://logs/inspect/{BASE.name}"
C = f"s3://logs/inspect/{CAND.name}"


def test_report_reads_two_inspect_logs_from_the_bucket(s3, capsys):
    code = main(["report", B, C, "--no-cache"])
    out = capsys.readouterr().out
    assert code == 4  # ten items: counts, no verdict (as for the local copies)
    assert f"baseline: {B} (inspect_eval, 10 items" in out
    assert f"candidate: {C} (inspect_eval, 10 items" in out


def test_the_remote_report_is_the_local_report(s3, capsys, monkeypatch):
    monkeypatch.delenv("EVALTUI_NO_CACHE", raising=False)
    main(["report", B, C, "--format", "json"])
    remote = json.loads(capsys.readouterr().out)
    main(["report", str(BASE), str(CAND), "--format", "json"])
    local = json.loads(capsys.readouterr().out)
    for arm in ("baseline", "candidate"):
        assert remote["inputs"][arm]["sha256"] == local["inputs"][arm]["sha256"]
    assert remote["analysis"] == local["analysis"]


def test_jsonl_runs_are_read_from_a_cached_copy(s3, capsys, remote_env, monkeypatch):
    monkeypatch.delenv("EVALTUI_NO_CACHE", raising=False)
    urls = ["s3://logs/demo/baseline.jsonl", "s3://logs/demo/candidate.jsonl"]
    assert main(["report", *urls]) in (0, 1)
    first = capsys.readouterr().out
    before = s3.counts()
    assert main(["report", *urls]) in (0, 1)
    assert capsys.readouterr().out == first
    requests = s3.counts()[0] - before[0]
    assert requests == 2  # one HEAD each: the ETag matches the cache entry, no GET
    assert len(list((remote_env / "remote").glob("*.data"))) >= 2


@pytest.mark.parametrize("bytes_from", [REMOTE_BYTES, 1], ids=["read-here", "candidate-elsewhere"])
def test_signoff_records_the_urls_and_verify_rereads_them(
    s3, tmp_path, capsys, monkeypatch, bytes_from, asked
):
    monkeypatch.setattr(inspect_elsewhere, "REMOTE_BYTES", bytes_from)
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    prefix = tmp_path / "signoff"
    code = main(["signoff", B, C, "--decision", "block", "--rationale", "remote pair",
                 "--reviewer", "r", "--output", str(prefix)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    record = json.loads((tmp_path / "signoff.json").read_text())
    paths = [record["inputs"][arm]["path"] for arm in ("baseline", "candidate")]
    assert paths == [B, C]
    capsys.readouterr()
    before = s3.counts()
    assert main(["verify", str(tmp_path / "signoff.json"), B, C, "--no-cache"]) == 0
    assert s3.counts()[0] > before[0]  # read again from the bucket, not from memory
    before = s3.counts()
    assert main(["verify", str(tmp_path / "signoff.json"), "--record-only"]) == 0
    assert s3.counts()[0] == before[0]  # the record alone: no request
    # no files named: the runs read again from the URLs the record names
    assert main(["verify", str(tmp_path / "signoff.json"), "--no-cache"]) == 0
    assert s3.counts()[0] > before[0]
    assert "read again from the URLs the record names" in capsys.readouterr().out
    # and from local copies the user names: the hashes are of the same bytes
    assert main(["verify", str(tmp_path / "signoff.json"), str(BASE), str(CAND)]) == 0
    # the signoff and both verifies from the URLs: each read the candidate by the child
    assert len(asked) == (3 if bytes_from == 1 else 0) and None not in asked


def test_an_item_opens_by_reading_its_sample_member_only(s3):
    run = load_run(B)
    before = s3.counts()
    transcript = run.transcripts.read(0)
    requests, received = s3.counts()[0] - before[0], s3.counts()[1] - before[1]
    assert transcript.input
    assert requests <= 1 and received <= BASE.stat().st_size


def test_a_log_directory_is_listed_from_headers_alone(s3):
    client = s3.client()
    big = padded(BASE, 6 << 20)
    for k in range(3):
        client.put_object(Bucket="logs", Key=f"big/run{k}.eval", Body=big)
    client.put_object(Bucket="logs", Key="big/notes.txt", Body=b"not a log")
    before = s3.counts()
    listing = list_runs("s3://logs/big/")  # type: ignore[arg-type]
    requests, received = s3.counts()[0] - before[0], s3.counts()[1] - before[1]
    assert [e.items for e in listing.runs] == [10, 10, 10]
    assert {e.status for e in listing.runs} == {"success"}
    assert listing.other_files == 1
    # a listing, then per log the tail block (central directory, header, summaries): never
    # the 6 MiB in front of them
    assert requests <= 2 + 3 * 2
    assert received < 3 * (2 << 20) < 3 * len(big)


def test_a_log_directory_opens_with_its_default_pair(s3, capsys):
    code = main(["report", "s3://logs/inspect/"])
    out = capsys.readouterr().out
    assert code == 4
    assert "s3://logs/inspect/" in out


def test_a_missing_bucket_is_one_line(s3, capsys):
    line = one_line_exit_2(["report", "s3://no-such-bucket/a.eval", C], capsys)
    assert "s3://no-such-bucket/a.eval" in line and "bucket does not exist" in line


def test_a_missing_object_is_one_line(s3, capsys):
    line = one_line_exit_2(["report", "s3://logs/inspect/nope.eval", C], capsys)
    assert "s3://logs/inspect/nope.eval: no such object" in line


@pytest.mark.parametrize(
    ("lone", "said"),
    [
        ("s3://logs/no-such-folder/", "s3://logs/no-such-folder: no such object"),
        ("s3://no-such-bucket/logs/", "s3://no-such-bucket/logs: the bucket does not exist"),
    ],
)
def test_a_lone_url_naming_nothing_says_so_not_give_two_runs(s3, capsys, lone, said):
    """`evaltui report URL` with a mistyped folder: the store's own answer, not "give two runs
    (BASE CAND), or a log directory" as if it named one run."""
    line = one_line_exit_2(["report", lone], capsys)
    assert line.startswith(f"evaltui: error: {said}")


def test_a_lone_url_naming_one_run_is_told_to_give_two(s3, capsys):
    line = one_line_exit_2(["report", B], capsys)
    assert line == "evaltui: error: give two runs (BASE CAND), or a log directory"


def test_a_denied_read_is_one_line(s3, capsys):
    s3.deny("/logs/inspect/")
    try:
        line = one_line_exit_2(["report", B, C, "--no-cache"], capsys)
    finally:
        s3.deny()
    assert B in line and "access denied" in line


def test_throttling_is_retried_with_backoff(s3, capsys):
    s3.throttle_next(2)
    before = s3.counts()[0]
    assert main(["report", B, C, "--no-cache"]) == 4
    assert s3.counts()[0] - before >= 2 + 4  # the two refusals were retried


def test_throttling_that_does_not_stop_is_bounded(s3, capsys):
    s3.throttle_next(50)
    try:
        line = one_line_exit_2(["report", B, C, "--no-cache"], capsys)
    finally:
        s3.throttle_next(0)
    assert "slow down" in line and "after 3 tries" in line


def test_an_object_replaced_while_it_is_read_fails_the_read(s3, monkeypatch):
    client = s3.client()
    client.put_object(
        Bucket="logs", Key="moving/run.eval", Body=padded(BASE, (1 << 20) + 1, between=True)
    )
    run = load_run("s3://logs/moving/run.eval", wait_for_hash=False)
    client.upload_file(str(CAND), "logs", "moving/run.eval")  # the writer replaces it
    with pytest.raises(RemoteError) as caught:
        run.transcripts.read(3)
    assert caught.value.kind == "changed"
    assert "changed while it was being read" in str(caught.value)
    assert str(caught.value).startswith("s3://logs/moving/run.eval: ")


def test_a_stopped_server_is_one_line(s3, capsys, monkeypatch):
    body = padded(BASE, (1 << 20) + 1, between=True)
    s3.client().put_object(Bucket="logs", Key="moving/still.eval", Body=body)
    proxy = _Proxy(s3.proxy.upstream_port)
    import threading

    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{proxy.server_address[1]}")
    stores.forget()
    try:
        run = load_run("s3://logs/moving/still.eval", wait_for_hash=False)
        proxy.stopped = True  # the endpoint goes away mid-session
        proxy.shutdown()
        proxy.server_close()
        with pytest.raises(RemoteError) as caught:
            run.transcripts.read(5)
        assert caught.value.kind == "unreachable"
        assert str(caught.value) == (
            "s3://logs/moving/still.eval: cannot reach the store (timed out or refused; check "
            "the endpoint, the network or AWS_ENDPOINT_URL) (after 3 tries)"
        )
    finally:
        stores.forget()


def test_a_missing_extra_is_named(s3, capsys, monkeypatch):
    import importlib

    real = importlib.import_module

    def without_s3fs(name, *args):
        if name == "s3fs":
            raise ImportError("No module named 's3fs'")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", without_s3fs)
    line = one_line_exit_2(["report", B, C], capsys)
    assert "pip install 'evaltui[s3]'" in line


@pytest.mark.parametrize("bytes_from", [REMOTE_BYTES, 1], ids=["read-here", "candidate-elsewhere"])
async def test_the_app_opens_a_pair_from_the_bucket_an_item_and_signs_off(
    s3, tmp_path, monkeypatch, bytes_from, asked
):
    """Also with the candidate read by a second process (as a large log's is): its item read
    here through the pinned blob, its sha256 from the bucket."""
    import hashlib

    monkeypatch.setattr(inspect_elsewhere, "REMOTE_BYTES", bytes_from)

    from evaltui.ui.app import AppConfig, create_app
    from evaltui.ui.screens.item import ItemScreen
    from tests.ui.helpers import settle
    from tests.ui.test_scan_cache_app import sign_off

    app = create_app(AppConfig.for_pair(B, C, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        paired = app.loaded.analysis.paired
        assert (paired.baseline.source.path, paired.candidate.source.path) == (B, C)
        assert app.state.confirmed_paths == {B, C}  # hashed from the bucket after the screen
        await pilot.press("i")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        await pilot.press("escape")
        await settle(app, pilot)
        await sign_off(app, pilot, tmp_path / "so")
    assert len(asked) == (bytes_from == 1) and None not in asked
    record = json.loads((tmp_path / "so.json").read_text())
    for arm, local in (("baseline", BASE), ("candidate", CAND)):
        assert record["inputs"][arm]["sha256"] == hashlib.sha256(local.read_bytes()).hexdigest()


def test_five_hundred_logs_list_from_headers_alone(s3):
    """The issue's directory: 500 real logs; one listing and one request per log (each is under
    the one-request size), and the bytes read are the logs' bytes, nothing twice."""
    from concurrent.futures import ThreadPoolExecutor

    client = s3.client()
    sources = [(BASE, CAND, OTHER)[k % 3] for k in range(500)]
    bodies = {source: source.read_bytes() for source in set(sources)}

    def put(k: int) -> None:
        key = f"many/{k:03d}/{sources[k].name}"
        client.put_object(Bucket="logs", Key=key, Body=bodies[sources[k]])

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(put, range(500)))
    sizes = [source.stat().st_size for source in sources]
    before = s3.counts()
    listing = list_runs("s3://logs/many/")  # type: ignore[arg-type]
    requests, received = s3.counts()[0] - before[0], s3.counts()[1] - before[1]
    assert len(listing.runs) == 500
    assert all(entry.status != "unreadable" for entry in listing.runs)
    assert requests <= 500 + 2  # the listing (one page of 1000 keys) and a GET per log
    assert sum(sizes) <= received < sum(sizes) + 500 * 2000  # + the listing's XML


def test_the_installed_command_opens_the_pair_from_the_bucket_in_a_terminal(s3, tmp_path):
    """The installed `evaltui` in tmux on two s3:// URLs (credentials and endpoint from the
    standard AWS variables only): the decision line, an item's two transcripts, quit with 0."""
    import shlex
    import subprocess
    import sys
    import uuid
    from pathlib import Path

    from tests.core.read.remote.servers import environment
    from tests.ui.test_real_terminal import _once_sized, _stop, _tmux, _wait_for

    tmux = _tmux()
    script = Path(sys.executable).parent / "evaltui"
    assert script.exists(), "the evaltui console script is not installed"
    session = f"evaltui-{uuid.uuid4().hex[:8]}"
    variables = dict(environment(s3), EVALTUI_STATE_DIR=str(tmp_path / "state"),
                     EVALTUI_CACHE_DIR=str(tmp_path / "cache"), TERM="xterm-256color")  # fmt: skip
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in variables.items())
    command = _once_sized(f"{assignments} {script} {B} {C}; echo EXIT=$?; sleep 30", 120, 36)
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "120", "-y", "36", command], check=True
    )
    try:
        screen = _wait_for(tmux, session, "NOT ENOUGH DATA", "Improvements (1)")
        assert "DECIDING" not in screen and "BASELINE" not in screen
        subprocess.run([*tmux, "send-keys", "-t", session, "i"], check=True)
        subprocess.run([*tmux, "send-keys", "-t", session, "Enter"], check=True)
        _wait_for(tmux, session, "BASELINE", "CANDIDATE")  # its sample members, by range
        subprocess.run([*tmux, "send-keys", "-t", session, "Escape"], check=True)
        _wait_for(tmux, session, "Regressions (0)")  # the list again (Escape and q
        # sent at once read as Alt+q)
        subprocess.run([*tmux, "send-keys", "-t", session, "q"], check=True)
        _wait_for(tmux, session, "EXIT=0")
    finally:
        _stop(tmux)
