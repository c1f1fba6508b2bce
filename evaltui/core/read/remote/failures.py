"""What went wrong with a remote read, in one line that names the URL and what to do.

Store libraries raise a zoo of exceptions (botocore's ClientError inside an OSError, aiohttp's
ClientResponseError, FileNotFoundError, fsspec's FileExpired, socket timeouts). `classify`
turns any of them into a `Failure`: a kind, whether a retry may help (throttling, a dropped
connection, a timeout, a 5xx), and the sentence the user reads. `RemoteError` is an
`InputError`, so every command prints it as one line and exits 2.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from dataclasses import dataclass

from evaltui.core.errors import InputError

TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})
THROTTLING = (
    "SlowDown",
    "Throttling",
    "ThrottlingException",
    "RequestLimitExceeded",
    "TooManyRequests",
    "ServiceUnavailable",
    "InternalError",
    "RequestTimeout",
)
CREDENTIALS = ("ExpiredToken", "ExpiredTokenException", "InvalidAccessKeyId",
               "SignatureDoesNotMatch", "InvalidToken", "TokenRefreshRequired",
               "AuthenticationFailed", "InvalidAuthenticationInfo")  # fmt: skip


class RemoteError(InputError):
    """A URL that cannot be read; the message says why and what to do."""

    def __init__(self, url: str, problem: str, kind: str = "other") -> None:
        super().__init__(url, problem)
        self.kind = kind


@dataclass(frozen=True)
class Failure:
    kind: str  # missing, bucket, denied, credentials, changed, throttled, unreachable, other
    transient: bool
    advice: str


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _code(exc: BaseException) -> str | None:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        error = response.get("Error")
        if isinstance(error, dict) and error.get("Code"):
            return str(error["Code"])
    return None


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status", None)
    if isinstance(status, int):
        return status
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        meta = response.get("ResponseMetadata")
        if isinstance(meta, dict) and isinstance(meta.get("HTTPStatusCode"), int):
            return int(meta["HTTPStatusCode"])
    return None


def classify(exc: BaseException) -> Failure:
    """What `exc` means for the user (the whole cause chain is read)."""
    chain = list(_chain(exc))
    codes = {c for e in chain if (c := _code(e))}
    statuses = {s for e in chain if (s := _status(e)) is not None}
    names = {type(e).__name__ for e in chain}
    text = " ".join(str(e) for e in chain)
    if (
        "FileExpired" in names
        or 412 in statuses
        or "PreconditionFailed" in codes
        or (isinstance(exc, OSError) and exc.errno == errno.EINVAL and "pre-condition" in text)
    ):
        return Failure(
            "changed",
            False,
            "the object changed while it was being read (its ETag moved); nothing was kept: "
            "open it again once the writer has finished",
        )
    if codes & set(CREDENTIALS) or names & {"NoCredentialsError", "PartialCredentialsError",
                                             "TokenRetrievalError", "CredentialRetrievalError",
                                             "UnauthorizedSSOTokenError"}:  # fmt: skip
        return Failure(
            "credentials",
            False,
            "the store's credentials are missing, invalid or expired: refresh them in the "
            "store's own way (environment, config file, `aws sso login`, instance role)",
        )
    if "NoSuchBucket" in codes or "bucket does not exist" in text.lower():
        return Failure(
            "bucket", False, "the bucket does not exist (check its name and the endpoint)"
        )
    if (
        codes & {"AccessDenied", "Forbidden", "AllAccessDisabled"}
        or statuses & {401, 403}
        or any(isinstance(e, PermissionError) for e in chain)
    ):
        return Failure(
            "denied",
            False,
            "access denied: the credentials in use may not read this object (check the "
            "bucket policy or the token's scopes)",
        )
    if (
        codes & {"NoSuchKey", "NotFound", "404"}
        or 404 in statuses
        or any(isinstance(e, FileNotFoundError) for e in chain)
    ):
        return Failure("missing", False, "no such object (check the URL)")
    if codes & set(THROTTLING) or statuses & TRANSIENT_STATUS:
        return Failure(
            "throttled", True, "the store kept refusing with 'slow down' or a server error"
        )
    timeout = any(isinstance(e, TimeoutError) for e in chain) or "Timeout" in " ".join(names)
    if timeout or names & {"EndpointConnectionError", "ConnectTimeoutError", "ReadTimeoutError",
                           "ClientConnectorError", "ServerDisconnectedError",
                           "ClientPayloadError", "ConnectionClosedError",
                           "ClientOSError"} or any(
        isinstance(e, ConnectionError) for e in chain
    ):  # fmt: skip
        return Failure(
            "unreachable",
            True,
            "cannot reach the store (timed out or refused; check the endpoint, the network "
            "or AWS_ENDPOINT_URL)",
        )
    first = " ".join(str(exc).split())[:160] or type(exc).__name__
    return Failure("other", False, f"cannot be read: {first}")


def remote_error(url: str, exc: BaseException, tries: int = 1) -> RemoteError:
    failure = classify(exc)
    suffix = f" (after {tries} tries)" if tries > 1 else ""
    return RemoteError(url, failure.advice + suffix, failure.kind)
