"""What a run is, in the words a reviewer needs to know what was compared (`RunDescription`).

Every surface that says a verdict must say what it is a verdict about: the task, the model,
the scorer(s), the dataset, the harness and its version, and when the run was made. Each format
reads these from the log's own header into `Run.metadata` under shared keys (`task`, `model`,
`scorer`/`scorers`, `dataset`, `harness`, `harness_version`, `created`); this module reads
them back into one frozen description, so the app's header, the reports and the sign-off
Markdown cannot word them differently. A key the log does not carry is "unknown", said, never
guessed.

Times are given in UTC and say so. A time without an offset (lm-eval's date id, written in the
machine's local time) is shown as written and says that its zone is not recorded: converting
it would invent a zone.

Paths: anything meant for a pull request shows a file relative to where the command ran when it
lies under it, else its file name (`display_path`); an absolute local path says nothing to a
reader of the PR and leaks the reviewer's directory layout. The JSON report and the record keep
the path as given: `verify` opens the file from it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from evaltui.core.read.remote.urls import url_of

if TYPE_CHECKING:
    from evaltui.core.read.runs import Run

UNKNOWN = "unknown"
UTC_SUFFIX = " UTC"
NO_ZONE = " (time zone not recorded)"
# The metadata keys the formats use for the run's date, most specific first.
DATE_KEYS = ("created", "created_at", "date", "evaluation_created", "date_id")
# What each harness is called on screen (the metadata's `harness` is the format's own name).
HARNESS_NAMES = {
    "inspect_ai": "Inspect AI",
    "lm_eval": "lm-evaluation-harness",
    "helm": "HELM",
    "promptfoo": "promptfoo",
    "openai_evals": "OpenAI evals",
}


@dataclass(frozen=True)
class RunDescription:
    """One run as the surfaces name it; every value is text from the log (or "unknown")."""

    task: str
    model: str
    scorers: str  # comma-separated, in the log's order
    dataset: str
    harness: str  # with its version when the log records it: "Inspect AI 0.3.285"
    date: str  # "2025-09-15 19:04:34 UTC", or as written plus NO_ZONE, or "unknown"
    file: str  # relative to the working directory, else the file name (display_path)

    def to_dict(self) -> dict[str, str]:
        return {
            "task": self.task,
            "model": self.model,
            "scorers": self.scorers,
            "dataset": self.dataset,
            "harness": self.harness,
            "date": self.date,
            "file": self.file,
        }

    @property
    def short(self) -> str:
        """Task, model and scorer(s) on one line: the folded header's words for a run."""
        return f"{self.task} · {self.model} · {self.scorers}"

    @property
    def long(self) -> str:
        """Every field on one line (the full header, the text report)."""
        return (
            f"task {self.task} · model {self.model} · scorer {self.scorers} · dataset "
            f"{self.dataset} · {self.harness} · {self.date} · {self.file}"
        )


def describe(run: Run, cwd: Path | None = None) -> RunDescription:
    """The run's description from its metadata (see the module docstring)."""
    return describe_metadata(run.metadata, run.source.path, run.source.format, cwd)


def describe_metadata(
    meta: Mapping[str, str], path: str, format_name: str, cwd: Path | None = None
) -> RunDescription:
    """`describe` from the parts a record keeps (its inputs' metadata, path and format)."""
    return RunDescription(
        task=_first(meta, "task", "eval_name", "scenario"),
        model=_first(meta, "model"),
        scorers=_first(meta, "scorers", "scorer", "metric"),
        dataset=_first(meta, "dataset", "dataset_path", "dataset_name"),
        harness=_harness(meta, format_name),
        date=run_date(meta),
        file=display_path(path, cwd),
    )


def _first(meta: Mapping[str, str], *keys: str) -> str:
    for key in keys:
        value = meta.get(key)
        if value:
            return " ".join(str(value).split())  # one line: a header value is untrusted text
    return UNKNOWN


def _harness(meta: Mapping[str, str], format_name: str) -> str:
    own = meta.get("harness")
    if not own:
        return f"{format_name} file (no harness recorded)"
    name = HARNESS_NAMES.get(own, own)
    version = meta.get("harness_version")
    return f"{name} {version}" if version else f"{name} (version {UNKNOWN})"


def run_date(meta: Mapping[str, str]) -> str:
    """The run's date in UTC ("... UTC"), or as written when the log gives no zone."""
    for key in DATE_KEYS:
        value = meta.get(key)
        if value:
            return format_date(str(value))
    return UNKNOWN


def format_date(value: str) -> str:
    """An ISO 8601 time (or lm-eval's `2026-10-01T23-15-32.942677` date id, or a Unix time)
    in UTC when it carries a zone; as written with NO_ZONE when it does not."""
    text = value.strip()
    parsed = _parse(text)
    if parsed is None:
        return " ".join(text.split()) + NO_ZONE
    if parsed.tzinfo is None:
        return parsed.strftime("%Y-%m-%d %H:%M:%S") + NO_ZONE
    return parsed.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S") + UTC_SUFFIX


def _parse(text: str) -> datetime | None:
    try:
        stamp = float(text)
    except ValueError:
        pass
    else:  # a Unix time (lm-eval's results `date`); in milliseconds past 1e11 (promptfoo)
        if stamp != stamp or abs(stamp) > 1e14:
            return None
        return datetime.fromtimestamp(stamp / 1000 if abs(stamp) > 1e11 else stamp, UTC)
    candidate = text.replace("Z", "+00:00") if text.endswith("Z") else text
    for attempt in (candidate, _from_date_id(candidate)):
        if attempt is None:
            continue
        try:
            return datetime.fromisoformat(attempt)
        except ValueError:
            continue
    return None


def _from_date_id(text: str) -> str | None:
    """lm-eval's date id, `YYYY-MM-DDTHH-MM-SS.ffffff`, as ISO 8601 (no zone: it is local)."""
    date, sep, time = text.partition("T")
    if not sep or time.count("-") != 2:
        return None
    return f"{date}T{time.replace('-', ':')}"


def display_path(path: str, cwd: Path | None = None) -> str:
    """`path` relative to `cwd` (default: the working directory) when it lies under it, else
    its file name: what a pull request may show of a local file. A URL (a remote run) is
    shown whole, its `//` restored (`Path` folds `s3://` into `s3:/`)."""
    url = url_of(path)
    if url is not None:
        return url
    given = Path(path)
    if not given.is_absolute():
        parts = given.parts
        if ".." not in parts:
            return given.as_posix()
    base = Path(cwd) if cwd is not None else Path(os.getcwd())
    try:
        return Path(os.path.abspath(given)).relative_to(os.path.abspath(base)).as_posix()
    except ValueError:
        return given.name
