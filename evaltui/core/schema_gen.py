"""The published JSON Schemas (docs/schema/*.json), generated from the declarations.

The report, the run-set report, the preference report and the two sign-off records are declared
once, as msgspec Structs (``core/report/shape.py``, ``shape_results.py``, ``run_set_shape.py``,
``preference_shape.py``, ``core/record/shape.py``); this module writes their Draft 2020-12
schemas with ``msgspec.json.schema_components``, so a schema can no longer drift from what the
code declares. Run it after changing a declaration::

    python -m evaltui.core.schema_gen          # write docs/schema/*.json
    python -m evaltui.core.schema_gen --check  # exit 1 naming each schema that is out of date

(tests/test_schemas.py runs the check too.)
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from evaltui.core.record.shape import (
    PolicyFileUsed,
    PolicyOptionsUsed,
    RunSetSignOffRecord,
    SignOffRecord,
)
from evaltui.core.report.preference_shape import PreferenceReport
from evaltui.core.report.run_set_shape import RunSetReport
from evaltui.core.report.shape import DESIGN_SHAPES, Report
from evaltui.core.report.shape_results import ANALYSIS_SHAPES, BinaryArm, GradedArm

__all__ = ["REFERRED", "SCHEMAS", "DRAFT", "Published", "check", "main", "schema", "text", "write"]

MODULE = "evaltui.core.schema_gen"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
DEFAULT_FOLDER = Path(__file__).resolve().parents[2] / "docs" / "schema"


@dataclass(frozen=True)
class Published:
    """One published schema: its top-level declaration, its title, and the JSON Schema its
    keys' types cannot say (``allOf``)."""

    declaration: type[msgspec.Struct]
    title: str
    all_of: list[dict[str, Any]] = field(default_factory=list)


REFERRED: dict[str, type[msgspec.Struct]] = {
    declaration.__name__: declaration
    for declaration in (BinaryArm, GradedArm, PolicyFileUsed, PolicyOptionsUsed)
}
"""Declarations only a declaration's own JSON Schema (``extra_json_schema``) refers to, by the
name it refers to them with: a schema that refers to one holds it in its ``$defs``."""


SCHEMAS: dict[str, Published] = {
    "report": Published(
        Report, "evaltui report (evaltui.report/2)", [*ANALYSIS_SHAPES, *DESIGN_SHAPES]
    ),
    "signoff": Published(SignOffRecord, "evaltui sign-off record (evaltui.signoff/2)"),
    "report-runset": Published(RunSetReport, "evaltui run-set report (evaltui.report-runset/1)"),
    "signoff-runset": Published(
        RunSetSignOffRecord, "evaltui run-set sign-off record (evaltui.signoff-runset/1)"
    ),
    "prefer": Published(PreferenceReport, "evaltui preference report (evaltui.prefer/1)"),
}
"""Each schema by its file's name: docs/schema/NAME.schema.json."""


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema ``name`` (a key of :data:`SCHEMAS`), as a dict."""
    published = SCHEMAS[name]
    extra: dict[str, Any] = {"allOf": published.all_of} if published.all_of else {}
    # Annotated built at run time from a declaration held in a value: mypy only reads type
    # expressions written out, so it cannot name the Struct here.
    top = Annotated[
        published.declaration,  # type: ignore[name-defined]
        Meta(title=published.title, extra_json_schema=extra),
    ]
    referred: list[Any] = []
    while True:
        (root, *_), components = msgspec.json.schema_components(
            (top, *referred), ref_template="#/$defs/{name}"
        )
        document = {"$schema": DRAFT, **root, "$defs": dict(sorted(components.items()))}
        missing = sorted(_refs(document) - set(components))
        if not missing:
            return document
        referred += [REFERRED[name] for name in missing]


def _refs(node: Any) -> set[str]:
    """The names of the ``$defs`` a JSON Schema refers to."""
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(value) for value in node))
    return set()


def text(name: str) -> str:
    """The schema as the committed file holds it: indented JSON, one trailing newline."""
    return json.dumps(schema(name), indent=2, ensure_ascii=False) + "\n"


def write(folder: Path = DEFAULT_FOLDER) -> list[Path]:
    """Write every schema into ``folder``; return the files written."""
    written = []
    for name in SCHEMAS:
        path = folder / f"{name}.schema.json"
        path.write_text(text(name), encoding="utf-8")
        written.append(path)
    return written


def check(folder: Path = DEFAULT_FOLDER) -> list[str]:
    """The schemas whose file in ``folder`` differs from what the declarations generate."""
    stale = []
    for name in SCHEMAS:
        path = folder / f"{name}.schema.json"
        if not path.is_file() or path.read_text(encoding="utf-8") != text(name):
            stale.append(name)
    return stale


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--check"]:
        stale = check()
        for name in stale:
            print(f"docs/schema/{name}.schema.json is out of date: run python -m {MODULE}")
        return 1 if stale else 0
    if args:
        print(f"usage: python -m {MODULE} [--check]", file=sys.stderr)
        return 2
    for path in write():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
