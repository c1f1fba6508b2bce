"""Module-scoped servers for the remote tests: one moto S3 endpoint (behind a counting proxy)
and one Range-capable HTTP server per module, so the default run stays cheap."""

from __future__ import annotations

import io
import os
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from evaltui.core.read.formats import inspect_elsewhere
from evaltui.core.read.remote import retry, stores
from tests.core.read.remote.servers import (
    AZURITE_INSTALL,
    AzuriteBlob,
    GCSEmulator,
    RangeHTTPServer,
    S3Endpoint,
    azurite_command,
    environment,
)

DATA = Path(__file__).resolve().parents[3] / "data"
INSPECT = DATA / "inspect_ai"
BASE = INSPECT / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CAND = INSPECT / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"
OTHER = INSPECT / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
SAMPLE_RUNS = Path(__file__).resolve().parents[4] / "sample_runs"


@pytest.fixture(scope="module")
def remote_env(tmp_path_factory):
    """The environment every remote test runs in: a private cache folder, quick retries."""
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVALTUI_CACHE_DIR", str(cache))
        mp.setenv("EVALTUI_REMOTE_TRIES", "3")
        mp.delenv("EVALTUI_NO_CACHE", raising=False)
        mp.setattr(retry, "BASE_DELAY", 0.01)
        yield cache


@pytest.fixture(scope="module")
def s3(remote_env):
    """moto's S3 server on a free loopback port, the AWS variables pointing at it, and a
    bucket `logs` holding real Inspect logs and the demo runs."""
    endpoint = S3Endpoint()
    with pytest.MonkeyPatch.context() as mp:
        for name, value in environment(endpoint).items():
            mp.setenv(name, value)
        stores.forget()
        client = endpoint.client()
        client.create_bucket(Bucket="logs")
        for path in (BASE, CAND, OTHER):
            client.upload_file(str(path), "logs", f"inspect/{path.name}")
        for name in ("baseline.jsonl", "candidate.jsonl"):
            client.upload_file(str(SAMPLE_RUNS / name), "logs", f"demo/{name}")
        yield endpoint
        stores.forget()
    endpoint.stop()


@pytest.fixture(scope="module")
def azurite(remote_env):
    """Azurite's blob service on a free loopback port, AZURE_STORAGE_CONNECTION_STRING pointing
    at it (the Azure SDK's own variable, which adlfs reads), and a container `logs` holding
    the same real Inspect logs and demo runs as the S3 bucket. Azurite is an npm package:
    `.ci/run` installs it and sets EVALTUI_REQUIRE_AZURITE, so CI fails rather than skips."""
    command = azurite_command()
    if command is None:
        if os.environ.get("EVALTUI_REQUIRE_AZURITE"):
            pytest.fail(f"Azurite is required here but not found ({AZURITE_INSTALL})")
        pytest.skip(f"Azurite not installed ({AZURITE_INSTALL}; .ci/run does it)")
    endpoint = AzuriteBlob(command)
    try:
        with pytest.MonkeyPatch.context() as mp:
            for name in ("ACCOUNT_NAME", "KEY", "SAS_TOKEN"):  # (adlfs reads these too)
                mp.delenv(f"AZURE_STORAGE_{name}", raising=False)
            mp.setenv("AZURE_STORAGE_CONNECTION_STRING", endpoint.connection_string())
            stores.forget()
            container = endpoint.container("logs")
            container.create_container()
            for path in (BASE, CAND, OTHER):
                container.upload_blob(f"inspect/{path.name}", path.read_bytes())
            for name in ("baseline.jsonl", "candidate.jsonl"):
                container.upload_blob(f"demo/{name}", (SAMPLE_RUNS / name).read_bytes())
            yield endpoint
            stores.forget()
    finally:
        endpoint.stop()


@pytest.fixture(scope="module")
def gcs(remote_env):
    """gcp-storage-emulator on a free loopback port, gcsfs pointed at it the way Google's own
    libraries are (STORAGE_EMULATOR_HOST, no credentials), and a bucket `logs` holding the
    same real Inspect logs and demo runs as the S3 bucket. (gcsfs's experimental zonal-bucket
    probe, on by default since 2026.x, asks a gRPC endpoint the emulator does not serve and
    waits 60 s per bucket before falling back: turned off, as for any emulator.)"""
    endpoint = GCSEmulator()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STORAGE_EMULATOR_HOST", endpoint.url)
        mp.setenv("GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT", "false")  # (read when gcsfs is imported)
        stores.forget()
        import gcsfs

        client = gcsfs.GCSFileSystem(token="anon", endpoint_url=endpoint.direct)
        client.mkdir("logs")
        for path in (BASE, CAND, OTHER):
            client.put(str(path), f"logs/inspect/{path.name}")
        for name in ("baseline.jsonl", "candidate.jsonl"):
            client.put(str(SAMPLE_RUNS / name), f"logs/demo/{name}")
        yield endpoint
        stores.forget()
    endpoint.stop()


@pytest.fixture(scope="module")
def http_root(remote_env, tmp_path_factory):
    root = tmp_path_factory.mktemp("www")
    for path in (BASE, CAND):
        shutil.copy(path, root / path.name)
    for name in ("baseline.jsonl", "candidate.jsonl", "policy.toml", "preferences.jsonl"):
        shutil.copy(SAMPLE_RUNS / name, root / name)
    server = RangeHTTPServer(root)
    yield server, root
    server.stop()


def padded(log: Path, extra: int, *, between: bool = False) -> bytes:
    """The log with an `extra`-byte stored member written first (or, `between`, before every
    member), so it is big enough to show what a read leaves out."""
    out = io.BytesIO()
    with zipfile.ZipFile(log) as source, zipfile.ZipFile(out, "w") as target:
        target.writestr("_padding/0.bin", bytes(extra))
        for k, info in enumerate(source.infolist()):
            if between:
                target.writestr(f"_padding/{k + 1}.bin", bytes(extra))
            target.writestr(info, source.read(info.filename))
    return out.getvalue()


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What each `_ask_child` call gave (None: no answer, the log read here)."""
    answers: list[Any] = []
    ask = inspect_elsewhere._ask_child

    def counted(*args: Any, **kwargs: Any) -> Any:
        answers.append(run := ask(*args, **kwargs))
        return run

    monkeypatch.setattr(inspect_elsewhere, "_ask_child", counted)
    return answers


def one_line_with(
    env: dict[str, str | None],
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    """`one_line_exit_2` with these environment variables set (None: unset), the stores'
    filesystems built again for the command (they read the environment once) and after it."""
    for name, value in env.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    stores.forget()
    try:
        return one_line_exit_2(argv, capsys)
    finally:
        stores.forget()


def one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command; it must end with exit 2 and one line on stderr, which is returned."""
    from evaltui.cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]
