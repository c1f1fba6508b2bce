"""What went wrong with a remote read, in one line that names the URL and what to do.

Store libraries raise a zoo of exceptions (botocore's ClientError inside an OSError, aiohttp's
ClientResponseError, the Azure SDK's HttpResponseError with its `error_code` and `status_code`,
FileNotFoundError, fsspec's FileExpired, socket timeouts). `classify` turns any of them into a
`Failure`: a kind, whether a retry may help (throttling, a dropped connection, a timeout, a
5xx), and the sentence the user reads, which names the store's own way to fix credentials and
endpoints (`remote_error`: the URL's scheme says which store). `RemoteError` is an
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
    "ServerBusy",  # Azure
    "OperationTimedOut",
)
CREDENTIALS = ("ExpiredToken", "ExpiredTokenException", "InvalidAccessKeyId",
               "SignatureDoesNotMatch", "InvalidToken", "TokenRefreshRequired",
               "AuthenticationFailed", "InvalidAuthenticationInfo")  # fmt: skip
# Exceptions that say no credentials could be found or used (boto, Azure's identity chain).
NO_CREDENTIALS = frozenset({"NoCredentialsError", "PartialCredentialsError", "TokenRetrievalError",
                            "CredentialRetrievalError", "UnauthorizedSSOTokenError",
                            "CredentialUnavailableError", "ClientAuthenticationError"})  # fmt: skip
# adlfs's words when the environment names no Azure account or connection string
AZURE_NO_ACCOUNT = "Must provide either a connection_string or account_name"
# How each store's user fixes credentials, and which setting names its endpoint.
CREDENTIAL_WAYS = {
    "s3": "environment, config file, `aws sso login`, instance role",
    "gs": "GOOGLE_APPLICATION_CREDENTIALS, `gcloud auth application-default login`, the "
    "instance's service account",
    "az": "AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_ACCOUNT_NAME with a key or SAS "
    "token, `az login`",
    "hf": "HF_TOKEN, `hf auth login`",
}
ENDPOINT_SETTINGS = {
    "s3": "AWS_ENDPOINT_URL",
    "gs": "STORAGE_EMULATOR_HOST",
    "az": "the connection string's BlobEndpoint",
    "hf": "HF_ENDPOINT",
}
STORE_OF_SCHEME = {"gcs": "gs", "abfs": "az", "abfss": "az"}
NO_BUCKET = "the bucket does not exist (check its name and the endpoint)"
NO_CONTAINER = "the container does not exist (check its name and the storage account)"
# gcsfs answers a 403 with a bare OSError("Forbidden: <url>\n<body>"), no status kept
GCSFS_FORBIDDEN = "Forbidden: "


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
    code = getattr(exc, "error_code", None)  # Azure's (a StorageErrorCode, a str enum)
    if isinstance(code, str) and code:
        return str(getattr(code, "value", code))
    return None


def _status(exc: BaseException) -> int | None:
    for name in ("status", "status_code", "code"):  # (aiohttp's, the Azure SDK's, gcsfs's)
        status = getattr(exc, name, None)
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
        or codes & {"PreconditionFailed", "ConditionNotMet"}
        or (isinstance(exc, OSError) and exc.errno == errno.EINVAL and "pre-condition" in text)
    ):
        return Failure(
            "changed",
            False,
            "the object changed while it was being read (its ETag moved); nothing was kept: "
            "open it again once the writer has finished",
        )
    if codes & set(CREDENTIALS) or names & NO_CREDENTIALS or AZURE_NO_ACCOUNT in text:
        return Failure(
            "credentials",
            False,
            "the store's credentials are missing, invalid or expired: refresh them in the "
            "store's own way ({ways})",
        )
    if codes & {"NoSuchBucket", "ContainerNotFound"} or "bucket does not exist" in text.lower():
        return Failure("bucket", False, NO_BUCKET)
    if (
        codes
        & {
            "AccessDenied",
            "Forbidden",
            "AllAccessDisabled",
            "AuthorizationFailure",
            "AuthorizationPermissionMismatch",
        }
        or statuses & {401, 403}
        or any(isinstance(e, PermissionError) for e in chain)
        or any(isinstance(e, OSError) and str(e).startswith(GCSFS_FORBIDDEN) for e in chain)
    ):
        return Failure(
            "denied",
            False,
            "access denied: the credentials in use may not read this object (check the "
            "bucket policy or the token's scopes)",
        )
    if (
        codes & {"NoSuchKey", "NotFound", "404", "BlobNotFound", "ResourceNotFound"}
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
                           "ClientOSError", "ServiceRequestError",
                           "ServiceResponseError"} or any(
        isinstance(e, ConnectionError) for e in chain
    ):  # fmt: skip
        return Failure(
            "unreachable",
            True,
            "cannot reach the store (timed out or refused; check the endpoint, the network "
            "or {endpoint})",
        )
    first = " ".join(str(exc).split())[:160] or type(exc).__name__
    return Failure("other", False, f"cannot be read: {first}")


def remote_error(url: str, exc: BaseException, tries: int = 1) -> RemoteError:
    failure = classify(exc)
    suffix = f" (after {tries} tries)" if tries > 1 else ""
    return RemoteError(url, _for_store(failure, url) + suffix, failure.kind)


def _for_store(failure: Failure, url: str) -> str:
    """The advice with the store's own ways to fix credentials and its endpoint setting (only
    those two kinds' words are templates: another's may quote the store's own text), and a
    missing bucket in the store's own word."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    store = STORE_OF_SCHEME.get(scheme, scheme)
    if failure.kind == "bucket" and store == "az":
        return NO_CONTAINER
    if failure.kind not in ("credentials", "unreachable"):
        return failure.advice
    ways = CREDENTIAL_WAYS.get(store, "environment, config file")
    endpoint = ENDPOINT_SETTINGS.get(store, "the URL")
    return failure.advice.format(ways=ways, endpoint=endpoint)
