"""The pieces under every remote read, without a server: which paths are URLs, what a store's
exception means, and the retry loop's bound and backoff."""

from __future__ import annotations

import enum
import errno
from pathlib import Path

import pytest

from evaltui.core.read.remote import retry
from evaltui.core.read.remote.failures import RemoteError, classify, remote_error
from evaltui.core.read.remote.urls import url_of


@pytest.mark.parametrize(
    ("given", "url"),
    [
        ("s3://bucket/logs/a.eval", "s3://bucket/logs/a.eval"),
        (Path("s3://bucket/logs/a.eval"), "s3://bucket/logs/a.eval"),  # Path folds the //
        (Path("https://host:8080/x/a.jsonl"), "https://host:8080/x/a.jsonl"),
        ("HF://datasets/o/n/a.jsonl", "hf://datasets/o/n/a.jsonl"),
        ("gs://b/k", "gs://b/k"),
        (
            "abfss://c@acct.dfs.core.windows.net/a.eval",
            "abfss://c@acct.dfs.core.windows.net/a.eval",
        ),
        ("runs/a.eval", None),
        (Path("/tmp/s3/a.eval"), None),
        ("ftp://host/a.eval", None),
    ],
)
def test_urls_are_recognised_in_either_spelling(given, url):
    assert url_of(given) == url


class _ClientError(Exception):
    def __init__(self, code: str, status: int) -> None:
        super().__init__(f"An error occurred ({code})")
        self.response = {"Error": {"Code": code}, "ResponseMetadata": {"HTTPStatusCode": status}}


# (str, Enum) as azure.storage.blob's is: its str() is "_StorageErrorCode.X", not the code
class _StorageErrorCode(str, enum.Enum):  # noqa: UP042
    AUTHENTICATION_FAILED = "AuthenticationFailed"
    AUTHORIZATION_FAILURE = "AuthorizationFailure"
    CONTAINER_NOT_FOUND = "ContainerNotFound"
    BLOB_NOT_FOUND = "BlobNotFound"
    CONDITION_NOT_MET = "ConditionNotMet"
    SERVER_BUSY = "ServerBusy"


class _Azure(Exception):
    """The shape of azure.core's HttpResponseError as the storage SDK raises it."""

    def __init__(self, code: str, status: int) -> None:
        super().__init__(f"Operation returned an invalid status ({code})")
        self.error_code = _StorageErrorCode(code)
        self.status_code = status


def _wrapped(inner: BaseException) -> OSError:
    outer = OSError(errno.EIO, str(inner))
    outer.__cause__ = inner  # as s3fs's translate_boto_error does
    return outer


@pytest.mark.parametrize(
    ("exc", "kind", "transient"),
    [
        (_wrapped(_ClientError("SlowDown", 503)), "throttled", True),
        (_wrapped(_ClientError("InternalError", 500)), "throttled", True),
        (_wrapped(_ClientError("ExpiredToken", 400)), "credentials", False),
        (PermissionError("Access Denied"), "denied", False),
        (FileNotFoundError("The specified bucket does not exist"), "bucket", False),
        (FileNotFoundError("a.eval"), "missing", False),
        (
            OSError(errno.EINVAL, "At least one of the pre-conditions you specified did not hold"),
            "changed",
            False,
        ),  # fmt: skip
        (ConnectionRefusedError(111, "refused"), "unreachable", True),
        (TimeoutError(), "unreachable", True),
        # the Azure SDK's errors: a code (a str enum) and a `status_code`, not boto's dict
        (_Azure("AuthenticationFailed", 403), "credentials", False),
        (_Azure("AuthorizationFailure", 403), "denied", False),
        (_Azure("ContainerNotFound", 404), "bucket", False),
        (_Azure("BlobNotFound", 404), "missing", False),
        (_Azure("ConditionNotMet", 412), "changed", False),
        (_Azure("ServerBusy", 503), "throttled", True),
        # gcsfs's 403: a bare OSError with the status only in its words
        (
            OSError("Forbidden: https://storage.googleapis.com/b/o?alt=media\n<xml/>"),
            "denied",
            False,
        ),  # fmt: skip
        (type("ServiceRequestError", (Exception,), {})("Cannot connect"), "unreachable", True),
        (
            ValueError(
                "unable to connect to account for Must provide either a connection_string "
                "or account_name with credentials!!"
            ),
            "credentials",
            False,
        ),  # fmt: skip
    ],
)
def test_store_errors_are_classified(exc, kind, transient):
    failure = classify(exc)
    assert (failure.kind, failure.transient) == (kind, transient)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("s3://b/k.eval", "or AWS_ENDPOINT_URL)"),
        ("gs://b/k.eval", "or STORAGE_EMULATOR_HOST)"),
        ("az://c/k.eval", "or the connection string's BlobEndpoint)"),
        ("abfs://c/k.eval", "or the connection string's BlobEndpoint)"),
        ("hf://datasets/o/r/k.eval", "or HF_ENDPOINT)"),
        ("https://h/k.eval", "or the URL)"),
    ],
)
def test_an_unreachable_store_is_told_by_its_own_endpoint_setting(url, said):
    assert remote_error(url, ConnectionRefusedError(111, "refused")).problem.endswith(said)


def test_missing_credentials_are_told_the_stores_own_way_to_fix_them():
    expired = _Azure("AuthenticationFailed", 403)
    assert "`az login`" in remote_error("az://c/k", expired).problem
    assert "`aws sso login`" in remote_error("s3://b/k", expired).problem
    assert "`gcloud auth application-default login`" in remote_error("gs://b/k", expired).problem


def test_transient_failures_are_retried_with_growing_waits_then_named(monkeypatch):
    monkeypatch.setenv("EVALTUI_REMOTE_TRIES", "4")
    waits: list[float] = []
    calls = []

    def throttled():
        calls.append(1)
        raise _wrapped(_ClientError("SlowDown", 503))

    with pytest.raises(RemoteError) as caught:
        retry.with_retries("s3://b/a.eval", throttled, sleep=waits.append)
    assert len(calls) == 4 and len(waits) == 3
    assert all(0.5 * retry.BASE_DELAY * 2**k <= w <= retry.BASE_DELAY * 2**k
               for k, w in enumerate(waits))  # fmt: skip
    assert str(caught.value).startswith("s3://b/a.eval: the store kept refusing")
    assert str(caught.value).endswith("(after 4 tries)")


def test_a_transient_failure_that_clears_is_not_an_error(monkeypatch):
    attempts = iter([TimeoutError(), TimeoutError(), None])

    def flaky():
        problem = next(attempts)
        if problem is not None:
            raise problem
        return "bytes"

    assert retry.with_retries("s3://b/a", flaky, sleep=lambda _: None) == "bytes"


def test_a_permanent_failure_is_not_retried():
    calls = []

    def denied():
        calls.append(1)
        raise PermissionError("Access Denied")

    with pytest.raises(RemoteError):
        retry.with_retries("s3://b/a", denied, sleep=lambda _: None)
    assert calls == [1]
