"""The flows every object store must pass, run on each store that has a server here
(gcp-storage-emulator for `gs://`, Azurite for `az://`; S3's are in test_s3.py with its own
extras): the report is the local report, `signoff` records the URLs and `verify` reads them
again, an item opens by its member's block, a directory lists from its logs' tails."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evaltui.cli.main import main
from evaltui.core.read.formats import LoadOptions, load_run
from evaltui.core.read.logdir import list_runs
from tests.core.read.remote.conftest import BASE, CAND, SAMPLE_RUNS, padded

# the stores' libraries import their SDKs and the servers start (a second or more each): with
# -m slow, as the S3 tests are (the default run covers the remote path with test_http.py)
pytestmark = pytest.mark.slow

Counts = Callable[[], tuple[int, int]]
Put = Callable[[str, bytes], object]  # (the key under the bucket or container, the bytes)


@dataclass(frozen=True)
class Store:
    """A store with a server here: its URLs' start (`gs://logs/`), how a test writes an
    object under it, and the server's counts (requests and bytes as its proxy saw them)."""

    root: str
    put: Put
    counts: Counts
    server: Any  # (its proxy answers 403 on demand: `deny`)
    denied_path: str  # the request path of `root`'s inspect/ folder, as the proxy sees it


def _gcs(server) -> Store:
    import gcsfs

    fs = gcsfs.GCSFileSystem(token="anon", endpoint_url=server.direct)
    put = lambda key, data: fs.pipe_file(f"logs/{key}", data)  # noqa: E731
    return Store("gs://logs/", put, server.counts, server, "/download/storage/v1/b/logs/o/inspect")


def _azure(server) -> Store:
    container = server.container("logs")
    put = lambda key, data: container.upload_blob(key, data, overwrite=True)  # noqa: E731
    return Store("az://logs/", put, server.counts, server, "/devstoreaccount1/logs/inspect/")


@pytest.fixture(params=["gcs", "azurite"])
def store(request) -> Store:
    server = request.getfixturevalue(request.param)  # (module-scoped: started once a module)
    return {"gcs": _gcs, "azurite": _azure}[request.param](server)


def _pair(store: Store) -> tuple[str, str]:
    return (f"{store.root}inspect/{BASE.name}", f"{store.root}inspect/{CAND.name}")


def test_the_report_of_a_pair_in_the_store_is_the_local_report(store, capsys):
    urls = _pair(store)
    assert main(["report", *urls, "--format", "json", "--no-cache"]) == 4  # (ten items)
    remote = json.loads(capsys.readouterr().out)
    main(["report", str(BASE), str(CAND), "--format", "json"])
    local = json.loads(capsys.readouterr().out)
    for arm, url in zip(("baseline", "candidate"), urls, strict=True):
        assert remote["inputs"][arm]["path"] == url
        assert remote["inputs"][arm]["sha256"] == local["inputs"][arm]["sha256"]
        assert remote["spec"][arm] == url  # (not folded by Path into `gs:/...`)
    assert remote["analysis"] == local["analysis"]


def test_jsonl_runs_in_the_store_are_read(store, capsys):
    names = ("baseline.jsonl", "candidate.jsonl")
    argv = ["report", *(f"{store.root}demo/{name}" for name in names), "--format", "json"]
    code = main(argv)
    remote = json.loads(capsys.readouterr().out)
    local_code = main(["report", *(str(SAMPLE_RUNS / name) for name in names), "--format", "json"])
    local = json.loads(capsys.readouterr().out)
    assert code == local_code and remote["analysis"] == local["analysis"]


def test_signoff_records_the_urls_and_verify_rereads_them(
    store, tmp_path: Path, capsys, monkeypatch
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    urls = _pair(store)
    code = main(["signoff", *urls, "--decision", "block", "--rationale", "a pair in a store",
                 "--reviewer", "r", "--output", str(tmp_path / "signoff")])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    record = json.loads((tmp_path / "signoff.json").read_text())
    assert tuple(record["inputs"][arm]["path"] for arm in ("baseline", "candidate")) == urls
    capsys.readouterr()
    before = store.counts()
    assert main(["verify", str(tmp_path / "signoff.json"), "--no-cache"]) == 0
    assert store.counts()[0] > before[0]  # read again from the store
    assert "read again from the URLs the record names" in capsys.readouterr().out
    assert main(["verify", str(tmp_path / "signoff.json"), str(BASE), str(CAND)]) == 0


def test_an_item_opens_by_reading_its_sample_member_only(store):
    store.put("big/run.eval", padded(BASE, 8 << 20))  # (a log past one request: by ranges)
    before = store.counts()
    # (its sha256 deferred, as the app defers it: the hash reads the whole object)
    run = load_run(f"{store.root}big/run.eval", None, LoadOptions(defer_hash_check=True))
    opened = store.counts()
    transcript = run.transcripts.read(0)
    after = store.counts()
    assert transcript.input
    # the open: a look, the tail with the directory, header and summaries (at least 2 MiB
    # taken with it), never the 8 MiB in front; the item: its member's block
    assert opened[1] - before[1] < 3 << 20
    assert after[0] - opened[0] <= 1 and after[1] - opened[1] < 2 << 20


def test_a_log_directory_is_listed_from_headers_alone(store):
    big = padded(BASE, 4 << 20)
    for k in range(3):
        store.put(f"listed/run{k}.eval", big)
    store.put("listed/notes.txt", b"not a log")
    before = store.counts()
    listing = list_runs(f"{store.root}listed/")  # type: ignore[arg-type]
    received = store.counts()[1] - before[1]
    assert [e.items for e in listing.runs] == [10, 10, 10]
    assert {e.status for e in listing.runs} == {"success"}
    assert listing.other_files == 1
    assert received < 3 * (2 << 20) < 3 * len(big)  # never the padding in front


def test_a_folder_without_eval_logs_is_one_line_naming_its_url(store, capsys):
    from tests.core.read.remote.conftest import one_line_exit_2

    line = one_line_exit_2(["report", f"{store.root}demo/"], capsys)
    assert line.startswith(f"evaltui: error: {store.root}demo holds no Inspect .eval log (2 ")


def test_the_app_takes_a_folder_in_the_store_for_its_picker(store):
    """`evaltui s3://b/logs/` stands the folder in for both runs until the picker chooses; the
    check that refuses one file given twice let only a local folder through, so the app said
    "az:/logs/inspect is given as both the baseline and the candidate"."""
    from evaltui.cli.main import _log_directory
    from evaltui.cli.parser import app_parser, spec_from_args
    from evaltui.core.read.remote.urls import as_typed

    args = app_parser().parse_args([f"{store.root}inspect/"])
    directory = _log_directory(args, pick_now=False)
    assert directory is not None and as_typed(directory) == f"{store.root}inspect"
    spec = spec_from_args(args)  # (the picker's stand-in, both arms the folder)
    assert as_typed(spec.baseline) == as_typed(spec.candidate)


def test_a_denied_request_is_one_line(store, capsys):
    """A 403 (a bucket policy, a role without read access) is "access denied", in every store's
    exceptions (gcsfs raises a bare OSError("Forbidden: ...") for it)."""
    from tests.core.read.remote.conftest import one_line_exit_2

    base = _pair(store)[0]
    store.server.deny(store.denied_path)
    try:
        line = one_line_exit_2(["report", *_pair(store), "--no-cache"], capsys)
    finally:
        store.server.deny()
    assert line.startswith(f"evaltui: error: {base}: access denied")
