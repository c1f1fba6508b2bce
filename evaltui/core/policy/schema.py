"""Reading a release policy file: its declared schema, the one checker that walks it, the lines.

Every setting and every gate kind's keys are declared once below (:data:`SETTINGS`,
:data:`GATE_KINDS_SCHEMA`): name, type, required or default, allowed values and a one-line
meaning. One generic checker, :func:`check_table`, walks a declaration over a TOML table, so a
new key is one line here rather than a new hand-written check, and every key is checked the same
way: an unknown key, a missing required one or a value of the wrong type or range is an
InputError naming the file, the line, the gate and what was expected. A typo in a safety gate
must never turn it into a gate that always passes.

``tomllib`` reports no positions, so :class:`Layout` finds them in the text: the line of a
top-level key (``alpha = ...``, or a ``[key]`` table header), and the line of each gate (its
``[[gates]]`` header, or the line its ``{...}`` opens on when the gates are written inline as
``gates = [{...}, ...]``). A line it cannot single out is left out rather than guessed.

Two fingerprints. ``Policy.sha256`` is the sha256 of the file's bytes: it proves which file was
read. ``Policy.hash`` is the sha256 of the policy's canonical JSON (every setting with its
default filled in, gates in file order, sorted keys, no whitespace): it identifies the rules
themselves. The sign-off record cites ``hash`` as "the policy used", because two files that state
the same rules (one with comments, reordered keys, or a default spelt out) are the same decision
rule, while any change to a threshold, slice or gate changes it; ``sha256`` is recorded beside
it so the exact file can still be matched on disk.
"""

from __future__ import annotations

import hashlib
import math
import re
import tomllib
from bisect import bisect_right
from dataclasses import dataclass
from numbers import Real
from pathlib import Path
from typing import Any, Protocol

from evaltui.core.canonical import canonical_sha256
from evaltui.core.errors import InputError
from evaltui.core.policy.tags import DEFAULT_MEANINGS, MEANINGS, TagMeanings
from evaltui.core.read.runs import PASSED
from evaltui.core.stats.paired_delta import CI_METHODS

__all__ = [
    "ARMS",
    "GATE_KINDS",
    "GATE_KINDS_SCHEMA",
    "MULTIPLICITY_METHODS",
    "POLICY_SCHEMA",
    "SETTINGS",
    "Choice",
    "Gate",
    "GateKind",
    "Key",
    "MARGIN_KEYS",
    "KeyProblem",
    "Layout",
    "Mismatch",
    "Number",
    "Policy",
    "Table",
    "Tables",
    "Text",
    "Texts",
    "check_table",
    "load_policy",
    "loads_policy",
    "percent",
]

POLICY_SCHEMA = "evaltui.policy/1"
"""Written into the canonical JSON, so a future change of meaning changes every hash."""

MULTIPLICITY_METHODS: tuple[str, ...] = ("holm", "bh", "bonferroni")
ARMS: tuple[str, ...] = ("candidate", "baseline")


# --------------------------------------------------------------------------------------------
# Value types: what a key's value must be, and the words that say so in an error
# --------------------------------------------------------------------------------------------


class Mismatch(Exception):
    """A value is not what its key declares; ``expected`` says what it should be, in words."""

    def __init__(self, expected: str) -> None:
        super().__init__(expected)
        self.expected = expected


class ValueType(Protocol):
    """A declared value type: ``convert`` returns the checked value or raises :class:`Mismatch`."""

    def convert(self, value: object) -> Any: ...


@dataclass(frozen=True)
class Text:
    """A non-empty string (blank names and slices would match nothing, silently)."""

    def convert(self, value: object) -> str:
        if not isinstance(value, str) or not value.strip():
            raise Mismatch("a non-empty string")
        return value


@dataclass(frozen=True)
class Number:
    """A real number (never a boolean or NaN) in ``[low, high]``, or ``(low, high)`` if
    ``strict``. Integers become floats, so ``min_effect = 0`` and ``0.0`` hash the same."""

    low: float
    high: float
    strict: bool
    in_range: str  # what is expected when the number is out of range, in words
    a_number: str = "a number"  # what is expected when the value is no number at all

    def convert(self, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, Real):
            raise Mismatch(self.a_number)
        try:
            number = float(value)
        except OverflowError:  # TOML integers are unbounded in tomllib; floats are not
            raise Mismatch(self.in_range) from None
        if math.isnan(number):
            raise Mismatch(self.a_number)
        inside = self.low < number < self.high if self.strict else self.low <= number <= self.high
        if not inside:
            raise Mismatch(self.in_range)
        return number


@dataclass(frozen=True)
class Choice:
    """One of a fixed set of strings (case matters: 'BH' is not 'bh')."""

    choices: tuple[str, ...]

    def convert(self, value: object) -> str:
        if not isinstance(value, str) or value not in self.choices:
            quoted = [repr(choice) for choice in self.choices]
            if len(quoted) == 2:
                raise Mismatch(" or ".join(quoted))
            raise Mismatch("one of " + ", ".join(quoted))
        return value


@dataclass(frozen=True)
class Texts:
    """A list of strings, kept as a tuple so the policy stays hashable."""

    what: str  # e.g. "a list of metric names"

    def convert(self, value: object) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise Mismatch(self.what)
        return tuple(value)


@dataclass(frozen=True)
class Tables:
    """An array of tables (``[[name]]`` entries, or ``name = [{...}, ...]``)."""

    what: str  # e.g. "[[gates]] tables (an array of tables)"

    def convert(self, value: object) -> tuple[dict[str, Any], ...]:
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise Mismatch(self.what)
        return tuple(value)


@dataclass(frozen=True)
class TagTable:
    """The ``[tags]`` table: for each meaning (see ``core/tags.py``), a list of tag names."""

    def convert(self, value: object) -> TagMeanings:
        if not isinstance(value, dict):
            raise Mismatch("a table of tag lists (confirmed, grader_error, open)")
        unknown = sorted(set(value) - set(MEANINGS))
        if unknown:
            raise Mismatch(
                f"a table with the keys {', '.join(MEANINGS)} (not {', '.join(unknown)})"
            )
        lists = {}
        for meaning, tags in value.items():
            if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
                raise Mismatch(f"tags.{meaning} as a list of tag names")
            lists[meaning] = tuple(tags)
        try:
            return TagMeanings(**lists)  # a meaning not given keeps its default tags
        except ValueError as exc:
            raise Mismatch(str(exc)) from None


# --------------------------------------------------------------------------------------------
# The declaration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """One key of a table: its name, type, whether it is required, its default, its meaning."""

    name: str
    type: ValueType
    meaning: str
    required: bool = False
    default: Any = None  # None: left unset (a derived default is filled in by the caller)


@dataclass(frozen=True)
class Table:
    """The declared keys of one TOML table, and how its errors are worded.

    ``unknown`` and ``missing`` are formatted with ``key`` (the key at fault) and ``keys`` (the
    declared names, in order).
    """

    keys: tuple[Key, ...]
    unknown: str
    missing: str = "needs {key!r}"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(key.name for key in self.keys)


@dataclass(frozen=True)
class GateKind:
    """A gate kind: its keys beyond ``kind`` and ``name``, and what it checks."""

    kind: str
    meaning: str
    keys: tuple[Key, ...]

    @property
    def table(self) -> Table:
        """The gate's whole table: ``kind`` and ``name``, then the kind's own keys."""
        return Table(
            keys=(GATE_KIND, GATE_NAME, *self.keys),
            unknown=self.kind + " gates take no {key!r}; expected one of {keys}",
            missing=self.kind + " gates need {key!r}",
        )


_PROBABILITY = "a number strictly between 0 and 1"
_MARGIN = "a positive number in the metric's units (0.01 = 1 point of pass rate)"
MARGIN_KEYS: tuple[str, ...] = ("non_inferiority_margin", "equivalence_margin")
"""The margin settings: each enters the rules' hash only when the file states it."""

SETTINGS = Table(
    keys=(
        Key("primary_metric", Text(), "the metric the decision rests on", default=PASSED),
        Key(
            "alpha",
            Number(0.0, 1.0, strict=True, in_range=_PROBABILITY),
            "two-sided significance level of the tests",
            default=0.05,
        ),
        Key(
            "ci_method",
            Choice(CI_METHODS),
            "interval method for the paired difference in pass rate",
            default="newcombe",
        ),
        Key(
            "confidence",
            Number(0.0, 1.0, strict=True, in_range=_PROBABILITY),
            "level of the delta interval; 1 - alpha when not given",
        ),
        Key(
            "multiplicity",
            Choice(MULTIPLICITY_METHODS),
            "correction of the slices' p-values for reading them all at once",
            default="holm",
        ),
        Key(
            "min_effect",
            Number(
                -1.0,
                1.0,
                strict=True,
                in_range="a rate difference between -1 and 1 (0.02 = 2 points)",
            ),
            "smallest gain worth shipping in rate units; negative: a non-inferiority margin",
        ),
        Key(
            "non_inferiority_margin",
            Number(0.0, math.inf, strict=True, in_range=_MARGIN),
            "how much worse the candidate may be, in the metric's units (0.01 = 1 point)",
        ),
        Key(
            "equivalence_margin",
            Number(0.0, math.inf, strict=True, in_range=_MARGIN),
            "the band +-margin the candidate must stay within, in the metric's units",
        ),
        Key(
            "monitor",
            Texts("a list of metric names"),
            "metrics shown but kept out of the multiplicity family",
            default=(),
        ),
        Key(
            "gates",
            Tables("[[gates]] tables (an array of tables)"),
            "the rules, evaluated in file order",
            default=(),
        ),
        Key(
            "tags",
            TagTable(),
            "what the review's tags mean: confirmed regressions, grader errors, still open",
        ),
    ),
    unknown="unknown setting; expected one of {keys}",
)
"""The top-level keys of a policy file, all optional."""

GATE_KIND = Key("kind", Text(), "which rule the gate is (one of GATE_KINDS)", required=True)
GATE_NAME = Key("name", Text(), "the gate's name in reports; made from its settings if not given")
_SLICE = Key("slice", Text(), "the slice the gate applies to; all items when not given")

GATE_KINDS_SCHEMA: tuple[GateKind, ...] = (
    GateKind(
        "no_regressions",
        "fails when any item regressed (baseline passed, candidate failed)",
        (_SLICE,),
    ),
    GateKind(
        "min_pass_rate",
        "fails when that arm's pass rate is below rate",
        (
            _SLICE,
            Key("arm", Choice(ARMS), "the run whose pass rate is checked", default="candidate"),
            Key(
                "rate",
                Number(
                    0.0,
                    1.0,
                    strict=False,
                    in_range="a pass rate between 0 and 1 (0.9 = 90%)",
                    a_number="a pass rate between 0 and 1 (0.9 = 90%)",
                ),
                "the lowest acceptable pass rate",
                required=True,
            ),
        ),
    ),
    GateKind(
        "no_tag",
        "fails when a regression carries the tag; pending without a review session",
        (_SLICE, Key("tag", Text(), "the review tag no regression may carry", required=True)),
    ),
    GateKind(
        "all_triaged",
        "pending while any regression is untagged, passed once all are",
        (_SLICE,),
    ),
    GateKind(
        "min_effect",
        "fails unless the delta interval's lower bound is at least the min_effect setting",
        (_SLICE,),
    ),
)
_BY_KIND = {gate_kind.kind: gate_kind for gate_kind in GATE_KINDS_SCHEMA}
GATE_KINDS: tuple[str, ...] = tuple(_BY_KIND)


def _shown(value: object) -> str:
    """A value as an error quotes it: its repr, or just 'list'/'dict' for a whole structure."""
    return type(value).__name__ if isinstance(value, dict | list) else repr(value)


def check_table(table: Table, data: dict[str, Any]) -> dict[str, Any]:
    """Walk ``table``'s declaration over ``data``: refuse unknown keys, then missing required
    ones, then check each value's type; return every declared key's value, defaults filled in.

    A problem raises :class:`KeyProblem` naming the key; the caller turns it into an
    InputError with the file, the line and the gate, which only it knows.
    """
    names = ", ".join(table.names)
    for key in data:
        if key not in table.names:
            raise KeyProblem(key, table.unknown.format(key=key, keys=names))
    for key in table.keys:
        if key.required and key.name not in data:
            raise KeyProblem(key.name, table.missing.format(key=key.name, keys=names))
    values: dict[str, Any] = {}
    for key in table.keys:
        if key.name not in data:
            values[key.name] = key.default
            continue
        try:
            values[key.name] = key.type.convert(data[key.name])
        except Mismatch as exc:
            problem = f"expected {exc.expected}, got {_shown(data[key.name])}"
            raise KeyProblem(key.name, problem) from exc
    return values


class KeyProblem(Exception):
    """What :func:`check_table` found wrong, and with which key (the InputError's field)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(problem)
        self.key = key
        self.problem = problem


# --------------------------------------------------------------------------------------------
# The parsed policy
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gate:
    """One rule of the policy. ``index`` is its 1-based position among the gates and ``line``
    the line of its ``[[gates]]`` header (or of its inline ``{`` when that line holds no other
    gate), None when the text does not single it out."""

    kind: str
    name: str
    slice: str | None = None
    arm: str | None = None
    rate: float | None = None
    tag: str | None = None
    index: int = 0
    line: int | None = None

    def canonical(self) -> dict[str, Any]:
        """The gate's settings for the policy hash: kind, name and its kind's declared keys
        (its position is implied by the list)."""
        out: dict[str, Any] = {"kind": self.kind, "name": self.name}
        for key in _BY_KIND[self.kind].keys:
            out[key.name] = getattr(self, key.name)
        return out


@dataclass(frozen=True)
class Policy:
    """A parsed, checked policy file. See the module docstring for ``sha256`` versus ``hash``."""

    primary_metric: str
    alpha: float
    ci_method: str
    confidence: float
    multiplicity: str
    min_effect: float | None
    gates: tuple[Gate, ...]
    source_path: str
    sha256: str
    hash: str
    monitor: tuple[str, ...] = ()  # metrics shown but kept out of the multiplicity family
    tags: TagMeanings | None = None  # the file's [tags] table; None: the defaults hold
    non_inferiority_margin: float | None = None  # at most this much worse (metric units)
    equivalence_margin: float | None = None  # within +-this (metric units)

    @property
    def tag_meanings(self) -> TagMeanings:
        return self.tags if self.tags is not None else DEFAULT_MEANINGS

    @property
    def margin(self) -> tuple[str, float] | None:
        """The margin question the policy asks, ("non_inferiority" | "equivalence", margin),
        or None: a policy states at most one (see ``_check_margins``)."""
        if self.non_inferiority_margin is not None:
            return ("non_inferiority", self.non_inferiority_margin)
        if self.equivalence_margin is not None:
            return ("equivalence", self.equivalence_margin)
        return None

    def canonical(self) -> dict[str, Any]:
        """Everything that defines the decision rule, as plain JSON values."""
        return _canonical(
            self.primary_metric,
            self.alpha,
            self.ci_method,
            self.confidence,
            self.multiplicity,
            self.min_effect,
            self.gates,
            self.monitor,
            self.tags,
            self.non_inferiority_margin,
            self.equivalence_margin,
        )


def _canonical(
    primary_metric: str,
    alpha: float,
    ci_method: str,
    confidence: float,
    multiplicity: str,
    min_effect: float | None,
    gates: tuple[Gate, ...],
    monitor: tuple[str, ...],
    tags: TagMeanings | None = None,
    non_inferiority_margin: float | None = None,
    equivalence_margin: float | None = None,
) -> dict[str, Any]:
    # This form is what Policy.hash fingerprints: changing it changes every sign-off's citation.
    # `tags` and the margins enter only when the file states them, so every policy written
    # before they existed keeps the hash its records cite.
    out = {
        "monitor": sorted(monitor),
        "schema": POLICY_SCHEMA,
        "primary_metric": primary_metric,
        "alpha": alpha,
        "ci_method": ci_method,
        "confidence": confidence,
        "multiplicity": multiplicity,
        "min_effect": min_effect,
        "gates": [gate.canonical() for gate in gates],
    }
    if tags is not None:
        out["tags"] = tags.canonical()
    for key, value in zip(MARGIN_KEYS, (non_inferiority_margin, equivalence_margin), strict=True):
        if value is not None:
            out[key] = value
    return out


# --------------------------------------------------------------------------------------------
# Reading the file
# --------------------------------------------------------------------------------------------


def load_policy(path: str | Path) -> Policy:
    """Read and check a policy file; every problem is an InputError naming the file and place.

    Slice names and tags are checked later, by ``evaluate_gates``, against the pair and the
    review session they are applied to.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file; expected a release policy in TOML")
    if not path.is_file():
        raise InputError(path, "is not a regular file; expected a release policy in TOML")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot be read: {exc.strerror or exc}") from exc
    return _parse_bytes(raw, str(path))


def loads_policy(text: str, source_path: str = "<policy>") -> Policy:
    """Parse a policy from TOML text (tests, or a policy embedded elsewhere)."""
    return _parse_bytes(text.encode("utf-8"), source_path)


def _parse_bytes(raw: bytes, path: str) -> Policy:
    sha256 = hashlib.sha256(raw).hexdigest()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, "is not UTF-8 text; TOML files must be UTF-8", line=line) from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(path, text, exc) from exc
    return _parse(data, path, Layout.of(text), sha256)


def _toml_error(path: str, text: str, exc: tomllib.TOMLDecodeError) -> InputError:
    """tomllib puts the place in the message: '(at line 3, column 9)' or '(at end of document)'."""
    message = str(exc)
    line = getattr(exc, "lineno", None)
    match = re.search(r"\s*\(at line (\d+), column (\d+)\)\s*$", message)
    if match:
        line = line or int(match.group(1))
        message = f"{message[: match.start()]} at column {match.group(2)}"
    elif message.endswith("(at end of document)"):
        line = line or max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
        message = message[: -len("(at end of document)")].rstrip() + " at the end of the file"
    return InputError(path, f"not valid TOML: {message}", line=line)


def _parse(data: dict[str, Any], path: str, layout: Layout, sha256: str) -> Policy:
    try:
        settings = check_table(SETTINGS, data)
    except KeyProblem as exc:
        line = layout.top_key_line(exc.key)
        raise InputError(path, exc.problem, line=line, field=exc.key) from exc
    alpha = settings["alpha"]
    confidence = settings["confidence"]
    if confidence is None:
        confidence = round(1.0 - alpha, 12)  # the interval matches the test's level
    _check_margins(path, layout, settings)
    entries = settings["gates"]
    lines = layout.gate_lines(len(entries))
    gates = tuple(
        _parse_gate(path, index, entry, lines[index - 1], settings["min_effect"])
        for index, entry in enumerate(entries, start=1)
    )
    rules = _canonical(
        settings["primary_metric"],
        alpha,
        settings["ci_method"],
        confidence,
        settings["multiplicity"],
        settings["min_effect"],
        gates,
        settings["monitor"],
        settings["tags"],
        settings["non_inferiority_margin"],
        settings["equivalence_margin"],
    )
    return Policy(
        primary_metric=settings["primary_metric"],
        alpha=alpha,
        ci_method=settings["ci_method"],
        confidence=confidence,
        multiplicity=settings["multiplicity"],
        min_effect=settings["min_effect"],
        gates=gates,
        source_path=path,
        sha256=sha256,
        hash=canonical_sha256(rules),
        monitor=settings["monitor"],
        tags=settings["tags"],
        non_inferiority_margin=settings["non_inferiority_margin"],
        equivalence_margin=settings["equivalence_margin"],
    )


def _check_margins(path: str, layout: Layout, settings: dict[str, Any]) -> None:
    """How the margins relate to each other and to ``min_effect``, checked with the file's
    lines: one margin question per policy (an asymmetric band cannot be had by stating both:
    each asks its own question, and two answers to one release would contradict); a negative
    ``min_effect`` (the older way to say non-inferiority) beside a margin says the same thing
    twice, perhaps with two numbers, so it is refused; a positive ``min_effect`` stays the
    superiority bar of its gate. On the pass rate a margin must be below 1 (100 points)."""
    ni, eq = settings["non_inferiority_margin"], settings["equivalence_margin"]

    def fail(key: str, problem: str) -> InputError:
        return InputError(path, problem, line=layout.top_key_line(key), field=key)

    if ni is not None and eq is not None:
        raise fail(
            "equivalence_margin",
            "states both non_inferiority_margin and equivalence_margin; expected one of them "
            "(non-inferiority: at most m worse; equivalence: within +-m)",
        )
    key = "non_inferiority_margin" if ni is not None else "equivalence_margin"
    margin = ni if ni is not None else eq
    if margin is None:
        return
    if settings["alpha"] >= 0.5:
        raise fail(
            "alpha",
            f"alpha = {settings['alpha']:g} leaves no interval at 1 - 2 alpha for the margin; "
            "expected alpha below 0.5 (0.05: a 90% interval, one-sided tests at 5%)",
        )
    minimum = settings["min_effect"]
    if minimum is not None and minimum < 0:
        raise fail(
            "min_effect",
            f"a negative min_effect ({minimum:g}) is a non-inferiority margin, and {key} states "
            "one already; expected min_effect >= 0 (the superiority bar) or no min_effect",
        )
    if settings["primary_metric"] == PASSED and margin >= 1.0:
        raise fail(
            key,
            f"{margin:g} is no margin on a pass rate; expected a number below 1 (0.01 = 1 point)",
        )


def _parse_gate(
    path: str, index: int, entry: dict[str, Any], line: int | None, min_effect: float | None
) -> Gate:
    where = f"[[gates]] entry {index}"

    def fail(key: str, problem: str) -> InputError:
        return InputError(path, f"{where}: {problem}", line=line, field=key)

    kinds = ", ".join(GATE_KINDS)
    if "kind" not in entry:
        raise fail("kind", f"has no 'kind'; expected one of {kinds}")
    kind = entry["kind"]
    if not isinstance(kind, str) or kind not in _BY_KIND:
        raise fail("kind", f"unknown gate kind {kind!r}; expected one of {kinds}")
    try:
        values = check_table(_BY_KIND[kind].table, entry)
    except KeyProblem as exc:
        raise fail(exc.key, exc.problem) from exc
    if kind == "min_effect" and min_effect is None:
        raise fail(
            "min_effect",
            "min_effect gates need the top-level 'min_effect' setting (e.g. min_effect = 0.02)",
        )
    settings = {key: value for key, value in values.items() if key not in ("kind", "name")}
    name = values["name"] or _default_name(kind, min_effect, **settings)
    return Gate(kind=kind, name=name, index=index, line=line, **settings)


def _default_name(
    kind: str,
    min_effect: float | None,
    slice: str | None = None,
    arm: str | None = None,
    rate: float | None = None,
    tag: str | None = None,
) -> str:
    where = f" in {slice}" if slice else ""
    on = f" on {slice}" if slice else ""
    if kind == "no_regressions":
        return f"no regressions{where}"
    if kind == "min_pass_rate":
        return f"{arm} pass rate{on} >= {percent(rate or 0.0)}"
    if kind == "no_tag":
        return f"no '{tag}' tag{where}"
    if kind == "all_triaged":
        return f"all regressions triaged{where}"
    return f"effect{on} >= {round((min_effect or 0.0) * 100, 10):+g} pts"


def percent(rate: float) -> str:
    """A rate as the policy states it, without invented digits: 0.75 -> '75%', 0.815 -> '81.5%'."""
    return f"{round(rate * 100, 10):g}%"


# --------------------------------------------------------------------------------------------
# Where things are in the text
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Lines of a valid TOML text, for pointing errors at a place tomllib does not report.

    ``masked`` holds the lines with the insides of strings and comments blanked, so a
    ``[[gates]]`` inside a multi-line string or a comment is never taken for a header.
    ``statements`` are the (1-based) lines that start a statement: outside any string or bracket.
    """

    lines: tuple[str, ...]
    masked: tuple[str, ...]
    statements: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> Layout:
        masked, strings = _mask(text)
        masked_lines = masked.split("\n")
        statements = []
        depth = offset = 0
        for number, line in enumerate(masked_lines, start=1):
            if depth == 0 and not _within(strings, offset):
                statements.append(number)
            depth += line.count("[") + line.count("{") - line.count("]") - line.count("}")
            offset += len(line) + 1
        return cls(tuple(text.split("\n")), tuple(masked_lines), tuple(statements))

    def _is_header(self, number: int) -> bool:
        return self.masked[number - 1].lstrip().startswith("[")

    def top_key_line(self, key: str) -> int | None:
        """The line defining top-level ``key``: ``key = ...`` (or a dotted ``key.x = ...``)
        before the first table header, else a ``[key]``, ``[key.x]`` or ``[[key]]`` header."""
        name = _key_pattern(key)
        assignment = re.compile(rf"\s*{name}\s*[=.]")
        header = re.compile(rf"\s*\[\[?\s*{name}\s*[\].]")
        root = True
        for number in self.statements:
            if self._is_header(number):
                root = False
                if header.match(self.lines[number - 1]):
                    return number
            elif root and assignment.match(self.lines[number - 1]):
                return number
        return None

    def gate_lines(self, count: int) -> tuple[int | None, ...]:
        """The line of each of the ``count`` gates, None where the text does not single one
        out: a line holding several inline gates, or a layout that does not add up to count."""
        header = re.compile(rf"\s*\[\[\s*{_key_pattern('gates')}\s*\]\]")
        headers = [n for n in self.statements if header.match(self.lines[n - 1])]
        if len(headers) == count:
            return tuple(headers)
        opened = self._inline_gate_lines()
        if len(opened) != count:
            return (None,) * count
        return tuple(n if opened.count(n) == 1 else None for n in opened)

    def _inline_gate_lines(self) -> list[int]:
        """The line each table of ``gates = [{...}, ...]`` opens on, in order."""
        assignment = re.compile(rf"\s*{_key_pattern('gates')}\s*=")
        for number in self.statements:
            if self._is_header(number):
                return []  # past the root table, where gates = [...] would have to be
            match = assignment.match(self.lines[number - 1])
            if match:
                return self._tables_in_array(number, match.end())
        return []

    def _tables_in_array(self, number: int, column: int) -> list[int]:
        """Lines of the ``{`` directly inside the array value that starts at (number, column)."""
        opened: list[int] = []
        depth = 0
        for line in range(number, len(self.masked) + 1):
            for ch in self.masked[line - 1][column if line == number else 0 :]:
                if ch in "[{":
                    depth += 1
                    if ch == "{" and depth == 2:
                        opened.append(line)
                elif ch in "]}":
                    depth -= 1
                    if depth == 0:
                        return opened
                elif depth == 0 and not ch.isspace():
                    return []  # the value is no array
        return opened


def _key_pattern(key: str) -> str:
    """A TOML key as written: bare, "double-quoted" or 'single-quoted'."""
    bare = re.escape(key)
    return rf"""(?:{bare}|"{bare}"|'{bare}')"""


def _within(spans: list[tuple[int, int]], offset: int) -> bool:
    """Whether ``offset`` lies strictly inside one of the sorted, disjoint ``spans``."""
    at = bisect_right(spans, (offset, math.inf)) - 1
    return at >= 0 and spans[at][0] < offset < spans[at][1]


def _mask(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with string contents and comments blanked, and the (start, end) of each string.

    Only ever run on text tomllib has accepted, so strings are known to be terminated.
    """
    out = list(text)
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)

    def blank(start: int, end: int) -> None:
        for j in range(start, end):
            if out[j] != "\n":
                out[j] = " "

    while i < n:
        ch = text[i]
        if ch == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
            continue
        if ch not in "\"'":
            i += 1
            continue
        quote = ch * 3 if text.startswith(ch * 3, i) else ch
        j = i + len(quote)
        while j < n and not text.startswith(quote, j):
            j += 2 if ch == '"' and text[j] == "\\" else 1
        end = min(n, j + len(quote))
        while len(quote) == 3 and end < n and text[end] == ch and end - j < 5:
            end += 1  # up to two quotes may end a multi-line string: """a""""
        blank(i + len(quote), end - len(quote))
        spans.append((i, end))
        i = end
    return "".join(out), spans
