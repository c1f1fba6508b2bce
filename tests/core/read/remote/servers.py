"""Real servers on the loopback for the remote tests, started and stopped by the tests.

- `S3Endpoint`: moto's S3 server (moto[server], a test extra) on a free port, behind a small
  counting proxy that can also answer `503 SlowDown` for the next N requests, so the tests
  assert on requests and bytes as the server saw them, and provoke throttling for real.
- `AzuriteBlob`: Azurite, Microsoft's Azure Storage emulator (an npm package: `.ci/run`
  installs it), its blob service on a free port behind the same counting proxy.
- `RangeHTTPServer`: a plain HTTP server with Range and If-Match support for `https://` paths
  (served as http:// on the loopback: TLS is the transport's business, not evaltui's).
"""

from __future__ import annotations

import http.client
import http.server
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

SLOW_DOWN = (
    b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
    b"<Message>Please reduce your request rate.</Message></Error>"
)
ACCESS_DENIED = (
    b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code>'
    b"<Message>Access Denied</Message></Error>"
)
HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "host", "content-length"}


class _ProxyHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Proxy

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _forward(self) -> None:
        proxy = self.server
        if proxy.stopped:  # a stopped server: the open keep-alive connection drops too
            self.close_connection = True
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        with proxy.lock:
            proxy.requests += 1
            throttle = proxy.throttle > 0
            if throttle:
                proxy.throttle -= 1
        denied = any(self.path.startswith(p) for p in proxy.denied)
        if throttle or denied:
            status, body = (403, ACCESS_DENIED) if denied else (503, SLOW_DOWN)
            self.send_response(status)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
        headers["Host"] = self.headers.get("Host", "127.0.0.1")
        upstream.request(self.command, self.path, body=body, headers=headers)
        response = upstream.getresponse()
        data = response.read()
        with proxy.lock:
            proxy.bytes_out += len(data)
        self.send_response(response.status)
        for key, value in response.getheaders():
            if key.lower() not in HOP_HEADERS:
                self.send_header(key, value)
        length = response.getheader("Content-Length") if self.command == "HEAD" else None
        self.send_header("Content-Length", length or str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        upstream.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward


class _Proxy(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream_port: int) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.upstream_port = upstream_port
        self.lock = threading.Lock()
        self.requests = 0
        self.bytes_out = 0
        self.throttle = 0
        self.stopped = False
        self.denied: tuple[str, ...] = ()  # path prefixes answered 403 AccessDenied

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up before the whole answer is written (gcsfs closes a ranged
        download's connection once it has its bytes) is no server error: no traceback."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class _Proxied:
    """A server behind the counting proxy: requests and bytes as it saw them, and on demand
    503 answers (`throttle_next`), 403 answers under some paths (`deny`, the body S3's), or
    no answer at all (`stop_proxy`: a stopped server)."""

    proxy: _Proxy

    def _front(self, port: int) -> str:
        """Start the proxy in front of `port`; its URL."""
        self.proxy = _Proxy(port)
        self.thread = threading.Thread(target=self.proxy.serve_forever, daemon=True)
        self.thread.start()
        return f"http://127.0.0.1:{self.proxy.server_address[1]}"

    def counts(self) -> tuple[int, int]:
        with self.proxy.lock:
            return self.proxy.requests, self.proxy.bytes_out

    def throttle_next(self, n: int) -> None:
        with self.proxy.lock:
            self.proxy.throttle = n

    def deny(self, *prefixes: str) -> None:
        """Answer requests under these paths 403, as a bucket policy or a role without read
        access would (the emulators evaluate neither on reads)."""
        with self.proxy.lock:
            self.proxy.denied = prefixes

    def stop_proxy(self) -> None:
        if not self.proxy.stopped:
            self.proxy.stopped = True
            self.proxy.shutdown()
            self.proxy.server_close()


class S3Endpoint(_Proxied):
    """moto's S3 server and the counting proxy in front of it."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self.moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.moto.start()
        _, moto_port = self.moto.get_host_and_port()
        self.url = self._front(moto_port)
        self.direct = f"http://127.0.0.1:{moto_port}"

    def client(self, direct: bool = True):  # a boto3 client for setting up buckets
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.direct if direct else self.url,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def stop(self) -> None:
        self.stop_proxy()
        self.moto.stop()


class GCSEmulator(_Proxied):
    """gcp-storage-emulator's server (the JSON API gcsfs speaks, in this process, in memory)
    and the counting proxy in front of it; gcsfs reaches it through STORAGE_EMULATOR_HOST."""

    def __init__(self) -> None:
        from gcp_storage_emulator.server import create_server

        self.server = create_server("127.0.0.1", 0, in_memory=True)
        self.server.start()
        port = self.server._api._httpd.server_address[1]  # (bound to a free port)
        self.url = self._front(port)
        self.direct = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        self.stop_proxy()
        self.server.stop()


# Azurite's well-known development account (its documentation's, the same in every install).
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = (
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)
AZURITE_INSTALL = "npm install --prefix .ci azurite"  # (what .ci/run does)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed): a stopped server's."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def azurite_command() -> str | None:
    """Azurite's blob service: EVALTUI_AZURITE, else where `.ci/run` installs it, else PATH."""
    import shutil

    named = os.environ.get("EVALTUI_AZURITE")
    if named:
        return named
    installed = Path(__file__).resolve().parents[4] / ".ci" / "node_modules" / ".bin"
    if (installed / "azurite-blob").exists():
        return str(installed / "azurite-blob")
    return shutil.which("azurite-blob")


class AzuriteBlob(_Proxied):
    """Azurite's blob service in memory on a free loopback port (a child process, stopped by
    `stop`), and the counting proxy in front of it; the Azure SDK reaches it by a connection
    string (`connection_string`), as it reaches any account."""

    def __init__(self, command: str) -> None:
        import socket
        import subprocess
        import time

        port = closed_port()  # a free port (Azurite takes no port 0)
        self.process = subprocess.Popen(
            [command, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--inMemoryPersistence",
             "--disableTelemetry", "--silent", "--skipApiVersionCheck", "--loose"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:  # a barrier: the port answers (Node's start takes a second or two)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    error = self.process.stderr.read() if self.process.stderr else b""
                    self.process.kill()
                    raise RuntimeError(f"Azurite did not start: {error[-500:]!r}") from None
                time.sleep(0.05)
        self.url = f"{self._front(port)}/{AZURITE_ACCOUNT}"
        self.direct = f"http://127.0.0.1:{port}/{AZURITE_ACCOUNT}"

    def connection_string(self, direct: bool = False, key: str = AZURITE_KEY) -> str:
        endpoint = self.direct if direct else self.url
        return (f"DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};AccountKey={key};"
                f"BlobEndpoint={endpoint};")  # fmt: skip

    def container(self, name: str):  # an Azure SDK client for setting up a container
        from azure.storage.blob import BlobServiceClient

        service = BlobServiceClient.from_connection_string(self.connection_string(direct=True))
        return service.get_container_client(name)

    def stop(self) -> None:
        self.stop_proxy()
        self.process.terminate()
        try:
            self.process.wait(10)
        except Exception:  # noqa: BLE001 - (a Node that ignores SIGTERM)
            self.process.kill()
            self.process.wait()


def environment(endpoint: S3Endpoint) -> dict[str, str]:
    """The standard AWS variables that point any AWS client at the endpoint."""
    return {
        "AWS_ENDPOINT_URL": endpoint.url,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }


class _RangeHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: RangeHTTPServer

    def log_message(self, *args: object) -> None:
        pass

    def _file(self) -> Path | None:
        path = (self.server.root / self.path.lstrip("/").split("?", 1)[0]).resolve()
        return path if path.is_file() and self.server.root in path.parents else None

    def _etag(self, path: Path) -> str:
        stat = path.stat()
        return f'"{stat.st_size:x}-{stat.st_mtime_ns:x}"'

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(head=True)

    def do_GET(self) -> None:  # noqa: N802
        self._serve(head=False)

    def _serve(self, head: bool) -> None:
        with self.server.lock:
            self.server.requests += 1
        path = self._file()
        if path is None:
            self._empty(404)
            return
        etag = self._etag(path)
        wanted = self.headers.get("If-Match")
        if wanted is not None and wanted != etag:
            self._empty(412)
            return
        data = path.read_bytes()
        match = re.match(r"bytes=(\d+)-(\d*)$", self.headers.get("Range", ""))
        status = 200
        if match:
            start = int(match.group(1))
            end = int(match.group(2)) + 1 if match.group(2) else len(data)
            chunk = data[start:end]
            status = 206
        else:
            chunk = data
        self.send_response(status)
        self.send_header("ETag", etag)
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{start + len(chunk) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(chunk)))
        self.end_headers()
        if not head:
            self.wfile.write(chunk)

    def _empty(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


class RangeHTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root: Path) -> None:
        super().__init__(("127.0.0.1", 0), _RangeHandler)
        self.root = root.resolve()
        self.lock = threading.Lock()
        self.requests = 0
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server_address[1]}"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def unset(names: list[str]) -> None:
    for name in names:
        os.environ.pop(name, None)
