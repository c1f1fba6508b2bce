"""Runs and log directories in an Azure Blob Storage container (Azurite, Microsoft's emulator, on
the loopback; adlfs reaches it by AZURE_STORAGE_CONNECTION_STRING, as the Azure SDK reaches any
account): the report is the local report, the sign-off verifies from the URLs, a directory
lists from headers, an item opens by range, a blob replaced between two reads is refused by its
ETag, and every failure (a missing blob or container, a wrong key, no account named, a denied
request, throttling, a stopped server) is one line with exit 2, in seconds, not minutes."""

from __future__ import annotations

import json

import pytest

from evaltui.cli.main import main
from evaltui.core.read.formats import LoadOptions, load_run
from evaltui.core.read.logdir import list_runs
from evaltui.core.read.remote import stores
from evaltui.core.read.remote.failures import RemoteError
from tests.core.read.remote.conftest import BASE, CAND, OTHER, one_line_exit_2, padded

# Azurite is a Node process (a second or two to start) and adlfs imports the Azure SDK: with
# -m slow, as the S3 and GCS tests are.
pytestmark = pytest.mark.slow

B = f"az://logs/inspect/{BASE.name}"
C = f"az://logs/inspect/{CAND.name}"


def test_the_report_of_a_container_pair_is_the_local_report(azurite, capsys):
    assert main(["report", B, C, "--format", "json", "--no-cache"]) == 4  # (ten items)
    remote = json.loads(capsys.readouterr().out)
    main(["report", str(BASE), str(CAND), "--format", "json"])
    local = json.loads(capsys.readouterr().out)
    for arm, url in (("baseline", B), ("candidate", C)):
        assert remote["inputs"][arm]["path"] == url
        assert remote["inputs"][arm]["sha256"] == local["inputs"][arm]["sha256"]
        assert remote["spec"][arm] == url  # whole, as typed (not `az:/logs/...`)
    assert remote["analysis"] == local["analysis"]


def test_the_other_spellings_of_an_azure_url_read_the_same_blob(azurite, capsys):
    main(["report", B, C, "--format", "json"])
    first = json.loads(capsys.readouterr().out)["analysis"]
    for scheme in ("abfs", "abfss"):
        urls = [url.replace("az://", f"{scheme}://") for url in (B, C)]
        main(["report", *urls, "--format", "json"])
        assert json.loads(capsys.readouterr().out)["analysis"] == first


def test_jsonl_runs_in_the_container_are_read(azurite, capsys):
    from tests.core.read.remote.conftest import SAMPLE_RUNS

    urls = ["az://logs/demo/baseline.jsonl", "az://logs/demo/candidate.jsonl"]
    code = main(["report", *urls, "--format", "json"])
    remote = json.loads(capsys.readouterr().out)
    local_code = main(["report", *(str(SAMPLE_RUNS / u.rsplit("/", 1)[1]) for u in urls),
                       "--format", "json"])  # fmt: skip
    local = json.loads(capsys.readouterr().out)
    assert code == local_code and remote["analysis"] == local["analysis"]


def test_signoff_records_the_urls_and_verify_rereads_them(azurite, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    code = main(["signoff", B, C, "--decision", "block", "--rationale", "container pair",
                 "--reviewer", "r", "--output", str(tmp_path / "signoff")])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    record = json.loads((tmp_path / "signoff.json").read_text())
    assert [record["inputs"][arm]["path"] for arm in ("baseline", "candidate")] == [B, C]
    capsys.readouterr()
    before = azurite.counts()
    assert main(["verify", str(tmp_path / "signoff.json"), "--no-cache"]) == 0
    assert azurite.counts()[0] > before[0]  # read again from the container
    assert "read again from the URLs the record names" in capsys.readouterr().out
    assert main(["verify", str(tmp_path / "signoff.json"), str(BASE), str(CAND)]) == 0


def test_an_item_opens_by_reading_its_sample_member_only(azurite):
    big = padded(BASE, 8 << 20)  # (a log past one request: read by ranges)
    azurite.container("logs").upload_blob("big/run.eval", big, overwrite=True)
    before = azurite.counts()
    # (its sha256 deferred, as the app defers it: the hash reads the whole object)
    run = load_run("az://logs/big/run.eval", None, LoadOptions(defer_hash_check=True))
    opened = azurite.counts()
    transcript = run.transcripts.read(0)
    after = azurite.counts()
    assert transcript.input
    # the open: a look, the tail with the directory, header and summaries, never the 8 MiB in
    # front; the item: its member's block
    assert opened[1] - before[1] < 3 << 20
    assert after[0] - opened[0] <= 1 and after[1] - opened[1] < 2 << 20


def test_a_blob_replaced_after_the_open_is_refused_by_its_etag(azurite):
    container = azurite.container("logs")
    container.upload_blob("moving/run.eval", padded(BASE, (1 << 20) + 1, between=True))
    run = load_run("az://logs/moving/run.eval", None, LoadOptions(defer_hash_check=True))
    container.upload_blob("moving/run.eval", padded(OTHER, (1 << 20) + 1, between=True),
                          overwrite=True)  # fmt: skip
    with pytest.raises(RemoteError) as caught:
        run.transcripts.read(4)  # (its member past the blocks the open read)
    assert caught.value.kind == "changed"
    assert "changed while it was being read" in str(caught.value)


def test_a_log_directory_is_listed_from_headers_alone(azurite):
    big = padded(BASE, 4 << 20)
    container = azurite.container("logs")
    for k in range(3):
        container.upload_blob(f"listed/run{k}.eval", big, overwrite=True)
    container.upload_blob("listed/notes.txt", b"not a log", overwrite=True)
    before = azurite.counts()
    listing = list_runs("az://logs/listed/")  # type: ignore[arg-type]
    received = azurite.counts()[1] - before[1]
    assert [e.items for e in listing.runs] == [10, 10, 10]
    assert {e.status for e in listing.runs} == {"success"}
    assert listing.other_files == 1
    assert received < 3 * (2 << 20) < 3 * len(big)  # never the padding in front


def test_a_missing_blob_is_one_line(azurite, capsys):
    line = one_line_exit_2(["report", "az://logs/inspect/nope.eval", C], capsys)
    assert line == "evaltui: error: az://logs/inspect/nope.eval: no such object (check the URL)"


def test_a_missing_container_is_one_line(azurite, capsys):
    line = one_line_exit_2(["report", "az://no-such-container/a.eval", C, "--no-cache"], capsys)
    assert line.startswith("evaltui: error: az://no-such-container/a.eval: ")


def test_a_wrong_account_key_is_one_line(azurite, capsys, monkeypatch):
    wrong = "d3Jvbmc=" * 11  # (valid base64, not the account's key)
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", azurite.connection_string(key=wrong))
    stores.forget()
    try:
        line = one_line_exit_2(["report", B, C, "--no-cache"], capsys)
    finally:
        stores.forget()
    assert line.startswith(f"evaltui: error: {B}: access denied")


def test_no_account_named_is_one_line_saying_how_to_name_one(azurite, capsys, monkeypatch):
    monkeypatch.delenv("AZURE_STORAGE_CONNECTION_STRING")
    stores.forget()
    try:
        line = one_line_exit_2(["report", B, C, "--no-cache"], capsys)
    finally:
        stores.forget()
    assert line.startswith(f"evaltui: error: {B}: the store's credentials are missing")
    assert "AZURE_STORAGE_CONNECTION_STRING" in line and "`az login`" in line


def test_a_denied_request_is_one_line(azurite, capsys):
    azurite.deny("/devstoreaccount1/logs/inspect/")
    try:
        line = one_line_exit_2(["report", B, C, "--no-cache"], capsys)
    finally:
        azurite.deny()
    assert line.startswith(f"evaltui: error: {B}: access denied")


def test_throttling_is_retried_then_said_with_the_tries(azurite, capsys):
    azurite.throttle_next(2)  # two 503s, then answers: retried through (3 tries here)
    assert main(["report", B, C, "--format", "json", "--no-cache"]) == 4
    capsys.readouterr()
    azurite.throttle_next(100)
    try:
        line = one_line_exit_2(["report", B, C, "--no-cache"], capsys)
    finally:
        azurite.throttle_next(0)
    assert line.endswith("kept refusing with 'slow down' or a server error (after 3 tries)")


def test_the_azure_sdk_makes_one_try_and_retry_py_the_rest(azurite):
    """The Azure SDK's own retries (4 tries, waits of 15 s and more, under `retry.py`'s) kept
    a stopped endpoint's `report` waiting minutes: every retry policy of the client adlfs
    built, which its blob clients share, allows none."""
    fs, _ = stores.filesystem(B)
    built = fs.service_client._pipeline._impl_policies
    policies = [p for p in built if hasattr(p, "total_retries")]
    assert policies
    for policy in policies:
        counts = (policy.total_retries, policy.connect_retries, policy.read_retries)
        assert counts + (policy.status_retries,) == (0, 0, 0, 0)
    blob = fs.service_client.get_blob_client(container="logs", blob="x")
    assert any(p in policies for p in blob._pipeline._impl_policies)


def test_a_stopped_server_is_one_line(azurite, capsys):
    """(Last in the module: the endpoint does not come back.)"""
    azurite.stop_proxy()
    line = one_line_exit_2(["report", B, C, "--no-cache"], capsys)
    assert line.startswith(f"evaltui: error: {B}: cannot reach the store")
    assert line.endswith("or the connection string's BlobEndpoint) (after 3 tries)")
