"""An Inspect `.eval` archive's members, read under the archive limits: the central directory
(one read), the member listing (duplicates and overlaps refused), a member's bytes (capped by
its declared size before a byte is inflated and by what comes out) and its JSON (duplicate keys
refused, placed at their line). Every failure is one `InputError` naming the file and the
member: the reader (`inspect_eval.py`) never sees a zip, zlib or JSON exception.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.archive_limits import DEFAULT_LIMITS, Budget, LimitExceeded
from evaltui.core.read.formats.jsontext import (
    DuplicateKey,
    duplicate_problem,
    loads,
    locate_duplicate,
)
from evaltui.core.read.formats.zip_members import MemberError, checked_members, read_member
from evaltui.core.read.remote.blob import RemoteBlob
from evaltui.core.read.zip_directory import ZipDirectory, ZipEntry, behind, read_directory

Source = Path | RemoteBlob  # a local log, or one read by byte ranges where it lives

MAX_MEMBER_BYTES = DEFAULT_LIMITS.member_bytes  # refuse a member declaring or inflating more


def open_archive(path: Source) -> ZipDirectory:
    """The archive's central directory (`zip_directory`: one read, one struct pass); a
    remote log's with the summaries and header written before it, in the same request."""
    try:
        with path.open("rb") as handle:
            return read_directory(handle, behind if isinstance(path, RemoteBlob) else None)
    # NotImplementedError: a central directory naming a zip version zipfile does not read
    except (
        zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
        NotImplementedError,
    ) as exc:  # fmt: skip
        raise InputError(
            path,
            f"not a readable Inspect .eval archive: {exc} (is the file truncated, or still being "
            "written?)",
        ) from None


def members(path: Source, archive: ZipDirectory) -> Mapping[str, ZipEntry]:
    """The file members by name; a listing with duplicate or overlapping entries is refused."""
    try:
        return checked_members(archive)
    except LimitExceeded as exc:
        raise InputError(path, str(exc), record=exc.member) from None


def read_json(
    path: Source, archive: ZipDirectory, info: ZipEntry, budget: Budget | None = None
) -> Any:
    return parse_member(path, info, member_bytes(path, archive, info, budget))


def member_bytes(
    path: Source, archive: ZipDirectory, info: ZipEntry, budget: Budget | None = None
) -> bytes:
    cap = MAX_MEMBER_BYTES
    if info.file_size > cap:
        raise InputError(
            path,
            f"the member declares {info.file_size} bytes uncompressed, over the {cap}-byte limit "
            "for one member; refusing to inflate it",
            record=info.filename,
        )
    try:
        data = read_member(archive, info, path, cap, DEFAULT_LIMITS, budget)
    except LimitExceeded as exc:
        raise InputError(path, str(exc), record=info.filename) from None
    except MemberError as exc:
        raise InputError(
            path, f"cannot read the member from the archive: {exc}", record=info.filename
        ) from None
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        NotImplementedError,
        RuntimeError,
        ValueError,
        struct.error,
    ) as exc:
        raise InputError(
            path, f"cannot read the member from the archive: {exc}", record=info.filename
        ) from None
    if len(data) > cap:
        raise InputError(
            path,
            f"the member inflates to more than the {cap}-byte limit for one member",
            record=info.filename,
        )
    return data


def parse_member(path: Source, info: ZipEntry, data: bytes) -> Any:
    try:
        return loads(data)
    except DuplicateKey as exc:
        found = locate_duplicate(data)
        field, line = found if found is not None else (exc.key, None)
        raise InputError(
            path, duplicate_problem(exc), line=line, record=info.filename, field=field
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(
            path, f"the member is not UTF-8 JSON: {exc}", record=info.filename
        ) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(
            path, f"the member is not valid JSON: {exc}", record=info.filename
        ) from None
