"""Reading a release policy file: the parsed policy, its rules' hash, the checks across keys.

Every setting and every gate kind's keys are declared once, as msgspec Structs, in
:mod:`.declaration` (name, type, required or default, allowed values, a one-line meaning), and
checked against it there: an unknown key, a missing required one or a value of the wrong type or
range is an InputError naming the file, the line (:mod:`.layout` finds it in the text), the gate
and what was expected. What no single key's type can say is checked here: the margins against
each other and ``alpha``, and a ``min_effect`` gate needing the ``min_effect`` setting.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaltui.core.canonical import canonical_sha256
from evaltui.core.errors import InputError
from evaltui.core.policy.checking import KeyProblem, convert
from evaltui.core.policy.declaration import (
    ARMS,
    GATE_KINDS,
    MARGIN_EXPECTED,
    MARGIN_KEYS,
    MULTIPLICITY_METHODS,
    Settings,
    declared_keys,
    gate_declaration,
    gate_keys,
)
from evaltui.core.policy.layout import Layout
from evaltui.core.policy.reviewers import review_canonical, review_table
from evaltui.core.policy.tags import DEFAULT_MEANINGS, TagMeanings
from evaltui.core.read.runs import PASSED

__all__ = [
    "ARMS",
    "GATE_KINDS",
    "MARGIN_KEYS",
    "MULTIPLICITY_METHODS",
    "POLICY_SCHEMA",
    "Gate",
    "Layout",
    "Policy",
    "load_policy",
    "loads_policy",
    "percent",
]

POLICY_SCHEMA = "evaltui.policy/1"
"""Written into the canonical JSON, so a future change of meaning changes every hash."""


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
    figure: str | None = None
    growth: float | None = None
    index: int = 0
    line: int | None = None

    def canonical(self) -> dict[str, Any]:
        """The gate's settings for the policy hash: kind, name and its kind's declared keys
        (its position is implied by the list)."""
        out: dict[str, Any] = {"kind": self.kind, "name": self.name}
        for key in gate_keys(self.kind):
            out[key] = getattr(self, key)
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
    # Metrics in the family whose regression is reported but does not block (the rest block).
    secondary: tuple[str, ...] = ()
    # The `[metrics]` tables' directions, (metric name, "higher"|"lower") sorted.
    directions: tuple[tuple[str, str], ...] = ()
    # The `[review]` table (`policy/reviewers.py`): the team the regressions are split among,
    # who settles a dispute and by which rule; `review` is its canonical form (None: the file
    # states none).
    reviewers: tuple[str, ...] = ()
    reviews_per_item: int | None = None
    adjudicators: tuple[str, ...] = ()
    dispute_rule: str = "adjudicator"
    review: dict[str, Any] | None = None

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
            self.secondary,
            self.directions,
            self.review,
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
    secondary: tuple[str, ...] = (),
    directions: tuple[tuple[str, str], ...] = (),
    review: dict[str, Any] | None = None,
) -> dict[str, Any]:
    # This form is what Policy.hash fingerprints: changing it changes every sign-off's citation.
    # `tags`, the margins, `secondary` and `metrics` enter only when the file states them, so
    # every policy written before they existed keeps the hash its records cite.
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
    if secondary:
        out["secondary"] = sorted(secondary)
    if directions:  # (as `secondary`: only when stated)
        out["metrics"] = {name: {"direction": word} for name, word in sorted(directions)}
    if review is not None:  # (as `metrics`: only when the file has a [review] table)
        out["review"] = review
    return out


# --------------------------------------------------------------------------------------------
# Reading the file
# --------------------------------------------------------------------------------------------


def load_policy(path: str | Path) -> Policy:
    """Read and check a policy file; every problem is an InputError naming the file and place.

    Slice names and tags are checked later, by ``evaluate_gates``, against the pair and the
    review session they are applied to. A URL is read where it lives (docs/remote.md).
    """
    from evaltui.core.read.remote.urls import url_of

    if (url := url_of(path)) is not None:
        from evaltui.core.read.remote.download import local_copy
        from evaltui.core.read.remote.registry import blob_for

        local, _ = local_copy(blob_for(url))
        return _parse_bytes(local.read_bytes(), url)
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


_UNKNOWN_SETTING = "unknown setting; expected one of {keys}"
_GATE_TABLES = "[[gates]] tables (an array of tables)"


def _parse(data: dict[str, Any], path: str, layout: Layout, sha256: str) -> Policy:
    try:
        unknown = next((key for key in data if key not in declared_keys(Settings)), None)
        if unknown is not None:  # before any value, whichever table it is in
            raise KeyProblem(
                unknown, _UNKNOWN_SETTING.format(keys=", ".join(declared_keys(Settings)))
            )
        _check_metric_tables(data.get("metrics", {}))  # (a message naming the table)
        review = review_table(data.get("review"))  # (a message naming the table's key)
        # The gates are checked one by one below, each placed at its own line.
        settings = convert(
            Settings,
            {k: v for k, v in data.items() if k not in ("gates", "review")},
            _UNKNOWN_SETTING,
            "",
        )
        entries = _gate_tables(data.get("gates", []))
        tags = _tag_meanings(settings)
    except KeyProblem as exc:
        line = layout.top_key_line(exc.key)
        raise InputError(path, exc.problem, line=line, field=exc.key) from exc
    alpha = settings.alpha
    confidence = settings.confidence
    if confidence is None:
        confidence = round(1.0 - alpha, 12)  # the interval matches the test's level
    _check_margins(path, layout, settings)
    directions = tuple(sorted((name, m.direction) for name, m in settings.metrics.items()))
    lines = layout.gate_lines(len(entries))
    gates = tuple(
        _parse_gate(path, index, entry, lines[index - 1], layout, settings.min_effect)
        for index, entry in enumerate(entries, start=1)
    )
    rules = _canonical(
        settings.primary_metric,
        alpha,
        settings.ci_method,
        confidence,
        settings.multiplicity,
        settings.min_effect,
        gates,
        settings.monitor,
        tags,
        settings.non_inferiority_margin,
        settings.equivalence_margin,
        settings.secondary,
        directions,
        review_canonical(review),
    )
    return Policy(
        primary_metric=settings.primary_metric,
        alpha=alpha,
        ci_method=settings.ci_method,
        confidence=confidence,
        multiplicity=settings.multiplicity,
        min_effect=settings.min_effect,
        gates=gates,
        source_path=path,
        sha256=sha256,
        hash=canonical_sha256(rules),
        monitor=settings.monitor,
        tags=tags,
        non_inferiority_margin=settings.non_inferiority_margin,
        equivalence_margin=settings.equivalence_margin,
        secondary=settings.secondary,
        directions=directions,
        reviewers=review.reviewers if review is not None else (),
        reviews_per_item=review.reviews_per_item if review is not None else None,
        adjudicators=review.adjudicators if review is not None else (),
        dispute_rule=(review.dispute_rule if review is not None else None) or "adjudicator",
        review=review_canonical(review),
    )


def _check_metric_tables(value: object) -> None:
    """`[metrics.NAME]` tables, each with `direction = "higher"|"lower"` and nothing else: a
    problem names the table and the value (msgspec's own message would name only `metrics`)."""
    if not isinstance(value, dict):
        raise KeyProblem("metrics", f"expected [metrics.NAME] tables, got {_shown(value)}")
    for name, entry in value.items():
        where = f"[metrics.{name}]"
        if not isinstance(entry, dict):
            raise KeyProblem("metrics", f"{where}: expected a table, got {_shown(entry)}")
        unknown = sorted(set(entry) - {"direction"})
        if unknown:
            raise KeyProblem("metrics", f"{where}: unknown key {unknown[0]!r}; expected direction")
        direction = entry.get("direction")
        if direction not in ("higher", "lower"):
            raise KeyProblem(
                "metrics",
                f'{where} direction: expected "higher" or "lower", got {_shown(direction)}',
            )


def _gate_tables(value: object) -> list[dict[str, Any]]:
    """The ``gates`` value as its tables (``[[gates]]`` entries, or ``gates = [{...}, ...]``)."""
    if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
        raise KeyProblem("gates", f"expected {_GATE_TABLES}, got {_shown(value)}")
    return value


def _tag_meanings(settings: Settings) -> TagMeanings | None:
    """The ``[tags]`` table as meanings; a tag given two meanings is refused."""
    if settings.tags is None:
        return None
    lists = settings.tags
    try:
        return TagMeanings(lists.confirmed, lists.grader_error, lists.open)
    except ValueError as exc:
        raise KeyProblem("tags", f"expected {exc}, got dict") from None


def _shown(value: object) -> str:
    return type(value).__name__ if isinstance(value, dict | list) else repr(value)


def _check_margins(path: str, layout: Layout, settings: Settings) -> None:
    """How the margins relate to each other and to ``min_effect``, checked with the file's
    lines: one margin question per policy (an asymmetric band cannot be had by stating both:
    each asks its own question, and two answers to one release would contradict); a negative
    ``min_effect`` (the older way to say non-inferiority) beside a margin says the same thing
    twice, perhaps with two numbers, so it is refused; a positive ``min_effect`` stays the
    superiority bar of its gate. On the pass rate a margin must be below 1 (100 points)."""
    ni, eq = settings.non_inferiority_margin, settings.equivalence_margin

    def fail(key: str, problem: str) -> InputError:
        return InputError(path, problem, line=layout.top_key_line(key), field=key)

    for key, value in zip(MARGIN_KEYS, (ni, eq), strict=True):
        if value is not None and not math.isfinite(value):  # msgspec bounds are finite
            raise fail(key, f"expected {MARGIN_EXPECTED}, got {value!r}")
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
    if settings.alpha >= 0.5:
        raise fail(
            "alpha",
            f"alpha = {settings.alpha:g} leaves no interval at 1 - 2 alpha for the margin; "
            "expected alpha below 0.5 (0.05: a 90% interval, one-sided tests at 5%)",
        )
    minimum = settings.min_effect
    if minimum is not None and minimum < 0:
        raise fail(
            "min_effect",
            f"a negative min_effect ({minimum:g}) is a non-inferiority margin, and {key} states "
            "one already; expected min_effect >= 0 (the superiority bar) or no min_effect",
        )
    if settings.primary_metric == PASSED and margin >= 1.0:
        raise fail(
            key,
            f"{margin:g} is no margin on a pass rate; expected a number below 1 (0.01 = 1 point)",
        )


def _parse_gate(
    path: str,
    index: int,
    entry: dict[str, Any],
    line: int | None,
    layout: Layout,
    min_effect: float | None,
) -> Gate:
    where = f"[[gates]] entry {index}"

    def fail(key: str, problem: str) -> InputError:
        # The key's own line when the gate's table writes it, else the gate's header.
        at = layout.gate_key_line(line, key) or line
        return InputError(path, f"{where}: {problem}", line=at, field=key)

    kinds = ", ".join(GATE_KINDS)
    if "kind" not in entry:
        raise fail("kind", f"has no 'kind'; expected one of {kinds}")
    kind = entry["kind"]
    declaration = gate_declaration(kind) if isinstance(kind, str) else None
    if declaration is None:
        raise fail("kind", f"unknown gate kind {kind!r}; expected one of {kinds}")
    try:
        values = convert(
            declaration,
            entry,
            unknown=kind + " gates take no {key!r}; expected one of {keys}",
            missing=kind + " gates need {key!r}",
        )
    except KeyProblem as exc:
        raise fail(exc.key, exc.problem) from exc
    if kind in ("max_cost_growth", "max_limit_hits_growth") and values.slice is not None:
        raise fail("slice", f"{kind} gates compare the whole runs; remove 'slice'")
    if kind == "min_effect" and min_effect is None:
        raise fail(
            "min_effect",
            "min_effect gates need the top-level 'min_effect' setting (e.g. min_effect = 0.02)",
        )
    settings = {key: getattr(values, key) for key in gate_keys(kind)}
    name = values.name or _default_name(kind, min_effect, **settings)
    return Gate(kind=kind, name=name, index=index, line=line, **settings)


def _default_name(
    kind: str,
    min_effect: float | None,
    slice: str | None = None,
    arm: str | None = None,
    rate: float | None = None,
    tag: str | None = None,
    figure: str | None = None,
    growth: float | None = None,
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
    if kind == "max_cost_growth":
        return f"{(figure or '').replace('_', ' ')} growth <= {round((growth or 0) * 100, 10):+g}%"
    if kind == "max_limit_hits_growth":
        return f"limit hits growth <= {round((growth or 0) * 100, 10):+g}%"
    return f"effect{on} >= {round((min_effect or 0.0) * 100, 10):+g} pts"


def percent(rate: float) -> str:
    """A rate as the policy states it, without invented digits: 0.75 -> '75%', 0.815 -> '81.5%'."""
    return f"{round(rate * 100, 10):g}%"
