"""An Azure Blob Storage container (Azurite, Microsoft's emulator, on the loopback; adlfs
reaches it by AZURE_STORAGE_CONNECTION_STRING, as the Azure SDK reaches any account): the
URL's three spellings, a blob replaced between two reads refused by its ETag, and every failure
(a missing blob or container, a wrong key, no account named, a denied request, throttling, a
stopped server) one line with exit 2, in seconds, not minutes. The flows every store passes
(the report, signoff and verify from the URLs, an item, a listing) are test_store_flows.py's."""

from __future__ import annotations

import json

import pytest

from evaltui.cli.main import main
from evaltui.core.read.formats import LoadOptions, load_run
from evaltui.core.read.remote import stores
from evaltui.core.read.remote.failures import RemoteError
from tests.core.read.remote.conftest import (
    BASE,
    CAND,
    OTHER,
    one_line_exit_2,
    one_line_with,
    padded,
)
from tests.core.read.remote.servers import closed_port

# Azurite is a Node process (a second or two to start) and adlfs imports the Azure SDK: with
# -m slow, as the S3 and GCS tests are.
pytestmark = pytest.mark.slow

B = f"az://logs/inspect/{BASE.name}"
C = f"az://logs/inspect/{CAND.name}"


def test_the_other_spellings_of_an_azure_url_read_the_same_blob(azurite, capsys):
    main(["report", B, C, "--format", "json"])
    first = json.loads(capsys.readouterr().out)["analysis"]
    for scheme in ("abfs", "abfss"):
        urls = [url.replace("az://", f"{scheme}://") for url in (B, C)]
        main(["report", *urls, "--format", "json"])
        assert json.loads(capsys.readouterr().out)["analysis"] == first


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


def test_a_missing_blob_is_one_line(azurite, capsys):
    line = one_line_exit_2(["report", "az://logs/inspect/nope.eval", C], capsys)
    assert line == "evaltui: error: az://logs/inspect/nope.eval: no such object (check the URL)"


def test_a_missing_container_is_one_line_saying_the_container_is_missing(azurite, capsys):
    line = one_line_exit_2(["report", "az://no-such-container/a.eval", C, "--no-cache"], capsys)
    assert line == (
        "evaltui: error: az://no-such-container/a.eval: the container does not exist (check "
        "its name and the storage account)"
    )


def test_a_wrong_account_key_is_one_line(azurite, capsys, monkeypatch):
    wrong = "d3Jvbmc=" * 11  # (valid base64, not the account's key)
    env = {"AZURE_STORAGE_CONNECTION_STRING": azurite.connection_string(key=wrong)}
    line = one_line_with(env, ["report", B, C, "--no-cache"], capsys, monkeypatch)
    assert line.startswith(f"evaltui: error: {B}: access denied")


def test_no_account_named_is_one_line_saying_how_to_name_one(azurite, capsys, monkeypatch):
    env = {"AZURE_STORAGE_CONNECTION_STRING": None}
    line = one_line_with(env, ["report", B, C, "--no-cache"], capsys, monkeypatch)
    assert line.startswith(f"evaltui: error: {B}: the store's credentials are missing")
    assert "AZURE_STORAGE_CONNECTION_STRING" in line and "`az login`" in line


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


def test_a_stopped_server_is_one_line(azurite, capsys, monkeypatch):
    endpoint = f"http://127.0.0.1:{closed_port()}/devstoreaccount1"
    env = {
        "AZURE_STORAGE_CONNECTION_STRING": azurite.connection_string().replace(
            azurite.url, endpoint
        )
    }
    line = one_line_with(env, ["report", B, C, "--no-cache"], capsys, monkeypatch)
    assert line.startswith(f"evaltui: error: {B}: cannot reach the store")
    assert line.endswith("or the connection string's BlobEndpoint) (after 3 tries)")
