"""Which paths are URLs, and which optional extra reads each kind.

The spec and the command line hold inputs as `pathlib.Path`, which folds `s3://b/k` into
`s3:/b/k`. Rather than retype every path in the program, a URL is recognised in either spelling
at the few places that read bytes (`url_of`), and restored to `scheme://`. A local folder named
`s3:` (or `https:`) would be taken for a URL; `./s3:/x` cannot be told apart, so such a folder
must be renamed: a price judged worth paying against threading a second path type everywhere.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePath

# scheme -> the extra that installs its store package (pip install 'evaltui[EXTRA]')
EXTRAS: dict[str, str] = {
    "s3": "s3",
    "gs": "gcs",
    "gcs": "gcs",
    "az": "azure",
    "abfs": "azure",
    "abfss": "azure",
    "hf": "hf",
    "http": "http",
    "https": "http",
}
# the module each extra brings, imported to tell whether the extra is installed
STORE_MODULES: dict[str, str] = {
    "s3": "s3fs",
    "gcs": "gcsfs",
    "azure": "adlfs",
    "hf": "huggingface_hub",
    "http": "aiohttp",
}
_SCHEMES = "|".join(sorted(EXTRAS, key=len, reverse=True))
_WHOLE = re.compile(rf"^({_SCHEMES})://(.+)$", re.IGNORECASE)
_FOLDED = re.compile(rf"^({_SCHEMES}):/(?!/)(.+)$", re.IGNORECASE)


def url_of(path: str | os.PathLike[str] | None) -> str | None:
    """The URL `path` names (`scheme://...`), or None for a local path."""
    if path is None:
        return None
    text = path if isinstance(path, str) else os.fspath(path)
    if isinstance(path, PurePath) or not _WHOLE.match(text):
        match = _FOLDED.match(text)
        if match is not None:
            return f"{match.group(1).lower()}://{match.group(2)}"
    match = _WHOLE.match(text)
    if match is not None:
        return f"{match.group(1).lower()}://{match.group(2)}"
    return None


def as_typed(path: str | os.PathLike[str]) -> str:
    """A path as the reviewer typed it, for what evaltui writes and says: a URL whole
    (`s3://b/k`, which `Path` folds into `s3:/b/k`, read as a typo), else the path."""
    return url_of(path) or os.fspath(path)


def is_url(path: str | os.PathLike[str] | None) -> bool:
    return url_of(path) is not None


def scheme_of(url: str) -> str:
    return url.split("://", 1)[0].lower()


def extra_for(url: str) -> str:
    return EXTRAS[scheme_of(url)]


def base_name(url: str) -> str:
    """The object's name: the last segment of the URL's path, without a query."""
    return url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
