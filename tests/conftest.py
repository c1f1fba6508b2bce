"""Shared fixtures: small run files written on the fly, and the demo pair."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import is_hypothesis_test
from hypothesis import settings as hypothesis_settings

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_RUNS = ROOT / "sample_runs"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True, scope="session")
def _private_scan_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterable[None]:
    """Tests never write to the user's cache: children (CLI runs) inherit the variable."""
    previous = os.environ.get("EVALTUI_CACHE_DIR")
    os.environ["EVALTUI_CACHE_DIR"] = str(tmp_path_factory.mktemp("scan-cache"))
    yield
    if previous is None:
        os.environ.pop("EVALTUI_CACHE_DIR", None)
    else:
        os.environ["EVALTUI_CACHE_DIR"] = previous


# The variables that point a program at a user's own state, config, cache and data: the suite
# never reads nor writes the reviewer's (a tagged demo review in ~/.local/state/evaltui changed
# nine `report` results once). Children (CLI subprocesses, the tmux server and its panes)
# inherit the private values through os.environ.
USER_STATE_VARIABLES = (
    "HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
)
# Overrides of the folders above that a reviewer may have set in their shell: removed, so the
# private HOME and XDG folders decide.
USER_STATE_OVERRIDES = (
    "EVALTUI_STATE_DIR",
    "EVALTUI_REVIEWER",
    "EVALTUI_REVIEW_DIR",
    "EVALTUI_ADJUDICATORS",
)


def isolate_user_state(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Point HOME and every XDG folder at `home` (made here), and drop evaltui's own overrides."""
    for name in USER_STATE_VARIABLES:
        folder = home if name == "HOME" else home / name.lower()
        folder.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(name, str(folder))
    for name in USER_STATE_OVERRIDES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _private_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Every test runs with a HOME and XDG folders of its own (not its tmp_path, which tests
    list), so nothing the user has tagged, configured or cached reaches a result."""
    isolate_user_state(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture
def sample_pair() -> tuple[Path, Path]:
    return SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[[str, Iterable[dict]], Path]:
    def write(name: str, records: Iterable[dict]) -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return path

    return write


def verdict_records(verdicts: Iterable[bool], prefix: str = "q") -> list[dict]:
    return [{"item_id": f"{prefix}{i}", "passed": v} for i, v in enumerate(verdicts)]


def table_records(a: int, b: int, c: int, d: int) -> tuple[list[dict], list[dict]]:
    """Baseline and candidate records whose paired 2x2 is (a both pass, b reg, c imp, d fail)."""
    base = [True] * a + [True] * b + [False] * c + [False] * d
    cand = [True] * a + [False] * b + [True] * c + [False] * d
    return verdict_records(base), verdict_records(cand)


# --- every report and sign-off record a test produces matches its published JSON Schema ---

SCHEMAS = ROOT / "docs" / "schema"
# (module, function, schema): the producers whose return values are checked.
SCHEMA_CHECKED = (
    ("evaltui.core.report.pair", "report_dict", "report"),
    ("evaltui.core.report.independent", "independent_report_dict", "report"),
    ("evaltui.core.record.signoff", "build_record", "signoff"),
    ("evaltui.core.report.run_set", "run_set_report_dict", "report-runset"),
    ("evaltui.core.record.run_set_signoff", "build_run_set_record", "signoff-runset"),
    ("evaltui.core.report.preference", "preference_report_dict", "prefer"),
)
_violations: list[str] | None = None  # the running test's, while the fixture below is active


@functools.cache
def schema_validator(name: str) -> Any:
    """The Draft 2020-12 validator of docs/schema/NAME.schema.json (the schema is checked too)."""
    from jsonschema import Draft202012Validator

    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _refuse_constant(token: str) -> None:
    raise ValueError(f"{token} is not JSON")


def schema_errors(name: str, document: Any) -> list[str]:
    """Why `document` (a dict, or JSON text) is not a valid NAME document: [] when it is.

    The document is checked as the JSON a reader gets: NaN, infinities and values json cannot
    write (numpy scalars) are errors here even though a Python float NaN is a "number"."""
    try:
        text = document if isinstance(document, str) else json.dumps(document, allow_nan=False)
        strict = json.loads(text, parse_constant=_refuse_constant)
    except (TypeError, ValueError) as exc:
        return [f"not strict JSON: {exc}"]
    errors = sorted(schema_validator(name).iter_errors(strict), key=lambda e: list(e.path))
    return [f"{e.json_path}: {e.message[:300]}" for e in errors] + declaration_errors(name, strict)


def declaration_errors(name: str, document: Any) -> list[str]:
    """Why the declaration NAME's schema is generated from (evaltui.core.schema_gen) refuses
    `document` as `msgspec.convert` reads it: verify reads records so, and a record it refused
    would not verify although the JSON Schema accepts it."""
    import msgspec

    from evaltui.core.schema_gen import SCHEMAS as DECLARED

    try:
        msgspec.convert(document, DECLARED[name].declaration, strict=True)
    except msgspec.ValidationError as exc:
        message, _, path = str(exc).partition(" - at `")
        where = path.rstrip("`") or "$"
        return [f"{where}: {message} (declaration {DECLARED[name].declaration.__name__})"]
    return []


def _record(name: str, where: str, document: Any) -> None:
    errors = schema_errors(name, document)
    if errors and _violations is not None:
        shown = "\n  ".join(errors[:10])
        _violations.append(f"{where} does not match docs/schema/{name}.schema.json:\n  {shown}")


def _checked(original: Callable, name: str) -> Callable:
    @functools.wraps(original)
    def produce(*args: Any, **kwargs: Any) -> Any:
        document = original(*args, **kwargs)
        _record(name, f"{original.__module__}.{original.__name__}()", document)
        return document

    return produce


def _checked_write_record(original: Callable) -> Callable:
    """The record as written to PREFIX.json, read back: what `evaltui verify` will read."""

    @functools.wraps(original)
    def write(*args: Any, **kwargs: Any) -> Any:
        json_path, md_path = original(*args, **kwargs)
        _record("signoff", str(json_path), Path(json_path).read_text(encoding="utf-8"))
        return json_path, md_path

    return write


@functools.cache
def _schema_wrappers() -> dict[int, Callable]:
    """id(original function) -> its checking wrapper, made once per session, so a module that
    binds a wrapper while it is patched (one imported mid-test) keeps a working one after."""
    import importlib

    wrappers: dict[int, Callable] = {}
    for module_name, func_name, schema in SCHEMA_CHECKED:
        original = getattr(importlib.import_module(module_name), func_name)
        wrappers[id(original)] = _checked(original, schema)
    write_record = importlib.import_module("evaltui.core.record.signoff").write_record
    wrappers[id(write_record)] = _checked_write_record(write_record)
    return wrappers


def _own_modules() -> Iterable[Any]:
    """The product's and the tests' loaded modules (never third-party ones)."""
    for name, module in list(sys.modules.items()):
        if module is not None and name.split(".")[0] in ("evaltui", "tests", "bench"):
            yield module


# module name -> (the module, its names bound to a checked producer when first seen). A module's
# bindings are made at import, so each module is scanned once, not before every test (the scan
# of every name of every module was a few ms per test, seconds over the suite).
_bindings: dict[str, tuple[Any, tuple[str, ...]]] = {}


def _bound_producers(wrappers: dict[int, Callable]) -> Iterable[tuple[Any, str]]:
    """(module, name) for every name of our modules bound to a checked producer."""
    for module in _own_modules():
        known = _bindings.get(module.__name__)
        if known is None or known[0] is not module:
            names = tuple(
                attr
                for attr, value in list(vars(module).items())
                if callable(value) and id(value) in wrappers
            )
            known = _bindings[module.__name__] = (module, names)
        for attr in known[1]:
            yield module, attr


@pytest.fixture(autouse=True)
def _reports_and_records_match_their_schemas(monkeypatch: pytest.MonkeyPatch) -> Iterable[None]:
    """Wrap report_dict, build_record and write_record wherever a module bound them (the
    defining modules, `from ... import` in evaltui and in the tests), so every report and record
    made in this process is validated; the test fails at teardown on a violation. Reports made
    by a child process (a subprocess or tmux run of the CLI) are not seen."""
    global _violations
    wrappers = _schema_wrappers()
    for module, attr in _bound_producers(wrappers):
        value = getattr(module, attr, None)
        if id(value) in wrappers:
            monkeypatch.setattr(module, attr, wrappers[id(value)])
    _violations = found = []
    try:
        yield
    finally:
        _violations = None
    if found:
        pytest.fail("\n".join(found), pytrace=False)


# Property tests (hypothesis) draw a tenth of their examples in the default run, the README's
# quick check that must stay under 3 CPU-minutes, and every one of them in .ci/run's second
# stage, which sets EVALTUI_ALL_EXAMPLES=1 and selects `slow or properties`. A test states the
# count CI draws (`max_examples=examples(300)`); one without a count draws hypothesis' 100.
ALL_EXAMPLES = os.environ.get("EVALTUI_ALL_EXAMPLES") == "1"


def examples(count: int) -> int:
    """How many examples a property test draws in this run: `count` in CI's thorough stage, a
    tenth of it (at least 10, at most `count`) in the default run."""
    return count if ALL_EXAMPLES else min(count, max(10, count // 10))


hypothesis_settings.register_profile("evaltui", max_examples=examples(100))
hypothesis_settings.load_profile("evaltui")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every property test `properties` (the marker .ci/run's thorough stage selects), and
    refuse a snapshot test whose parameters are part slow, part default.

    The snapshot plugin matches a snapshot file to a test by function name, parameters stripped:
    when `-m 'not slow'` deselects one parameter of a function whose other parameter runs, the
    deselected one's snapshot counts as unused and the plugin fails the run (exit 1 after every
    test passed, which is how CI failed once). A slow size is a function of its own instead.
    """
    for item in items:
        if is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.properties)
    speeds: dict[tuple[str, str], set[bool]] = {}
    for item in items:
        if "snap_compare" in getattr(item, "fixturenames", ()):
            key = (str(item.path), getattr(item, "originalname", item.name))
            speeds.setdefault(key, set()).add(item.get_closest_marker("slow") is not None)
    mixed = sorted(
        f"{Path(path).name}::{name}" for (path, name), kinds in speeds.items() if len(kinds) > 1
    )
    if mixed:
        raise pytest.UsageError(
            "snapshot tests mixing slow and default parameters (make the slow one its own "
            f"function): {', '.join(mixed)}"
        )
