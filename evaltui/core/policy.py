"""The release policy: the decision rule written down before anyone sees the results.

A policy file (TOML) fixes the primary metric, the significance level, the interval method, the
multiplicity correction across slices, the smallest effect worth shipping, and the gates. Gates
are rules, not significance tests: a safety slice of 30 items rarely reaches p < 0.05 even when
six of its answers broke, so a gate fires on counts ("no regressions in drug_interactions"), on
a pass rate, on the reviewer's tags, or on the delta interval against the minimum effect.

Example (see sample_runs/policy.toml for a commented one)::

    primary_metric = "passed"
    alpha = 0.05
    ci_method = "newcombe"
    multiplicity = "holm"
    min_effect = 0.02

    [[gates]]
    kind = "no_regressions"
    slice = "drug_interactions"

Top-level keys (all optional): ``primary_metric`` ("passed"), ``alpha`` (0.05), ``ci_method``
(one of binary.CI_METHODS, "newcombe"), ``confidence`` (1 - alpha), ``multiplicity`` ("holm",
"bh" or "bonferroni"; "holm"), ``min_effect`` (in rate units: 0.02 = 2 points; a negative value
is a non-inferiority margin), ``gates``. Gate kinds and their keys (``name`` optional on all):

- ``no_regressions`` [slice]: fails when any item regressed (baseline passed, candidate failed);
- ``min_pass_rate`` rate [slice, arm = "candidate" | "baseline"]: that arm's pass rate >= rate;
- ``no_tag`` tag [slice]: fails when a regression carries the tag; pending without a session;
- ``all_triaged`` [slice]: pending while any regression is untagged, passed once all are;
- ``min_effect`` [slice]: the delta interval's lower bound >= min_effect, else failed.

Unknown keys, kinds, slices and tags are errors naming the file, the gate and what was expected,
never silently ignored: a typo in a safety gate must not turn it into a gate that always passes.

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
from numbers import Real
from pathlib import Path
from typing import Any, NoReturn

import polars as pl

from evaltui.core.analysis import CI_METHOD_LABELS, Analysis, points
from evaltui.core.canonical import canonical_sha256
from evaltui.core.errors import InputError, UsageError
from evaltui.core.pairing import BASE_PASS, CAND_PASS, PairedRuns
from evaltui.core.review import ReviewSession
from evaltui.core.runs import ITEM_ID, PASSED, SLICE
from evaltui.core.slices import UNSLICED, slice_names
from evaltui.core.stats.binary import CI_METHODS, PairedTable, paired_delta_interval

__all__ = [
    "GATE_KINDS",
    "GATE_STATUSES",
    "MULTIPLICITY_METHODS",
    "POLICY_SCHEMA",
    "Gate",
    "GateResult",
    "Policy",
    "evaluate_gates",
    "gates_status",
    "load_policy",
    "loads_policy",
]

POLICY_SCHEMA = "evaltui.policy/1"
"""Written into the canonical JSON, so a future change of meaning changes every hash."""

GATE_KINDS: tuple[str, ...] = (
    "no_regressions",
    "min_pass_rate",
    "no_tag",
    "all_triaged",
    "min_effect",
)
GATE_STATUSES: tuple[str, ...] = ("passed", "failed", "pending")
MULTIPLICITY_METHODS: tuple[str, ...] = ("holm", "bh", "bonferroni")
ARMS: tuple[str, ...] = ("candidate", "baseline")

_TOP_KEYS: tuple[str, ...] = (
    "primary_metric",
    "alpha",
    "ci_method",
    "confidence",
    "multiplicity",
    "min_effect",
    "monitor",
    "gates",
)
# Keys each gate kind accepts beyond "kind" and "name", and which of them are required.
_GATE_KEYS: dict[str, tuple[str, ...]] = {
    "no_regressions": ("slice",),
    "min_pass_rate": ("slice", "arm", "rate"),
    "no_tag": ("slice", "tag"),
    "all_triaged": ("slice",),
    "min_effect": ("slice",),
}
_GATE_REQUIRED: dict[str, tuple[str, ...]] = {"min_pass_rate": ("rate",), "no_tag": ("tag",)}
SHOW_IDS = 10  # ids a gate's detail spells out before "..."; item_ids always has all of them


# --------------------------------------------------------------------------------------------
# The policy
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gate:
    """One rule of the policy. ``index`` is its 1-based position among the [[gates]] entries and
    ``line`` the line of its ``[[gates]]`` header when the file has one per gate."""

    kind: str
    name: str
    slice: str | None = None
    arm: str | None = None
    rate: float | None = None
    tag: str | None = None
    index: int = 0
    line: int | None = None

    def canonical(self) -> dict[str, Any]:
        """The gate's settings for the policy hash (its position is implied by the list)."""
        out: dict[str, Any] = {"kind": self.kind, "name": self.name, "slice": self.slice}
        if self.kind == "min_pass_rate":
            out.update(arm=self.arm, rate=self.rate)
        if self.kind == "no_tag":
            out["tag"] = self.tag
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
        )


def _canonical(
    primary_metric: str,
    alpha: float,
    ci_method: str,
    confidence: float,
    multiplicity: str,
    min_effect: float | None,
    gates: tuple[Gate, ...],
    monitor: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {
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


def _canonical_hash(canonical: dict[str, Any]) -> str:
    return canonical_sha256(canonical)


def load_policy(path: str | Path) -> Policy:
    """Read and check a policy file; every problem is an InputError naming the file and place.

    Slice names and tags are checked later, by :func:`evaluate_gates`, against the pair and the
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
    return _parse(data, path, text, sha256)


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


def _gate_lines(text: str) -> list[int]:
    return [
        number
        for number, line in enumerate(text.splitlines(), start=1)
        if re.match(r"\s*\[\[\s*gates\s*\]\]", line)
    ]


def _expect(path: str, key: str, expected: str, value: object, line: int | None = None) -> NoReturn:
    shown = f"{value!r}" if not isinstance(value, dict | list) else type(value).__name__
    raise InputError(path, f"expected {expected}, got {shown}", line=line, field=key)


def _number(path: str, key: str, value: object, line: int | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(float(value)):
        _expect(path, key, "a number", value, line)
    return float(value)  # type: ignore[arg-type]


def _text(path: str, key: str, value: object, line: int | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        _expect(path, key, "a non-empty string", value, line)
    return value  # type: ignore[return-value]


def _choice(
    path: str, key: str, value: object, choices: tuple[str, ...], line: int | None = None
) -> str:
    if not isinstance(value, str) or value not in choices:
        _expect(path, key, "one of " + ", ".join(repr(c) for c in choices), value, line)
    return value  # type: ignore[return-value]


def _key_line(text: str, key: str) -> int | None:
    """The line of a top-level ``key = ...`` (before the first table header), if written so."""
    pattern = re.compile(rf"""\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*=""")
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("["):
            break
        if pattern.match(line):
            return number
    return None


def _parse(data: dict[str, Any], path: str, text: str, sha256: str) -> Policy:
    def at(key: str) -> int | None:
        return _key_line(text, key)

    unknown = [key for key in data if key not in _TOP_KEYS]
    if unknown:
        raise InputError(
            path,
            f"unknown setting; expected one of {', '.join(_TOP_KEYS)}",
            line=at(unknown[0]),
            field=unknown[0],
        )
    primary_metric = _text(
        path, "primary_metric", data.get("primary_metric", PASSED), at("primary_metric")
    )
    alpha = _number(path, "alpha", data.get("alpha", 0.05), at("alpha"))
    if not 0.0 < alpha < 1.0:
        _expect(path, "alpha", "a number strictly between 0 and 1", data["alpha"], at("alpha"))
    ci_method = _choice(
        path, "ci_method", data.get("ci_method", "newcombe"), CI_METHODS, at("ci_method")
    )
    if "confidence" in data:
        confidence = _number(path, "confidence", data["confidence"], at("confidence"))
        if not 0.0 < confidence < 1.0:
            _expect(
                path,
                "confidence",
                "a number strictly between 0 and 1",
                data["confidence"],
                at("confidence"),
            )
    else:
        confidence = round(1.0 - alpha, 12)  # the interval matches the test's level
    multiplicity = _choice(
        path,
        "multiplicity",
        data.get("multiplicity", "holm"),
        MULTIPLICITY_METHODS,
        at("multiplicity"),
    )
    min_effect: float | None = None
    if "min_effect" in data:
        min_effect = _number(path, "min_effect", data["min_effect"], at("min_effect"))
        if not -1.0 < min_effect < 1.0:
            _expect(
                path,
                "min_effect",
                "a rate difference between -1 and 1 (0.02 = 2 points)",
                data["min_effect"],
                at("min_effect"),
            )

    raw_gates = data.get("gates", [])
    if not isinstance(raw_gates, list) or not all(isinstance(g, dict) for g in raw_gates):
        _expect(path, "gates", "[[gates]] tables (an array of tables)", raw_gates, at("gates"))
    lines = _gate_lines(text)
    if len(lines) != len(raw_gates):
        lines = []  # gates written inline: positions unknown, report the entry number only
    gates = tuple(
        _parse_gate(path, index, entry, lines[index - 1] if lines else None, min_effect)
        for index, entry in enumerate(raw_gates, start=1)
    )
    monitor_raw = data.get("monitor", [])
    if not isinstance(monitor_raw, list) or not all(isinstance(m, str) for m in monitor_raw):
        _expect(path, "monitor", "a list of metric names", monitor_raw, at("monitor"))
    monitor = tuple(monitor_raw)
    canonical = _canonical(
        primary_metric, alpha, ci_method, confidence, multiplicity, min_effect, gates, monitor
    )
    return Policy(
        primary_metric=primary_metric,
        alpha=alpha,
        ci_method=ci_method,
        confidence=confidence,
        multiplicity=multiplicity,
        min_effect=min_effect,
        gates=gates,
        source_path=path,
        sha256=sha256,
        hash=_canonical_hash(canonical),
        monitor=monitor,
    )


def _parse_gate(
    path: str, index: int, entry: dict[str, Any], line: int | None, min_effect: float | None
) -> Gate:
    where = f"[[gates]] entry {index}"

    def fail(key: str, problem: str) -> InputError:
        return InputError(path, f"{where}: {problem}", line=line, field=key)

    if "kind" not in entry:
        raise fail("kind", f"has no 'kind'; expected one of {', '.join(GATE_KINDS)}")
    kind = entry["kind"]
    if not isinstance(kind, str) or kind not in GATE_KINDS:
        raise fail("kind", f"unknown gate kind {kind!r}; expected one of {', '.join(GATE_KINDS)}")
    allowed = ("kind", "name", *_GATE_KEYS[kind])
    for key in entry:
        if key not in allowed:
            raise fail(key, f"{kind} gates take no {key!r}; their keys are {', '.join(allowed)}")
    for key in _GATE_REQUIRED.get(kind, ()):
        if key not in entry:
            raise fail(key, f"{kind} gates need {key!r}")

    def text(key: str) -> str | None:
        if key not in entry:
            return None
        value = entry[key]
        if not isinstance(value, str) or not value.strip():
            raise fail(key, f"expected a non-empty string, got {value!r}")
        return value

    slice_name = text("slice")
    tag = text("tag")
    arm: str | None = None
    rate: float | None = None
    if kind == "min_pass_rate":
        arm = entry.get("arm", "candidate")
        if not isinstance(arm, str) or arm not in ARMS:
            raise fail("arm", f"expected 'candidate' or 'baseline', got {arm!r}")
        value = entry["rate"]
        if isinstance(value, bool) or not isinstance(value, Real) or not 0.0 <= value <= 1.0:
            raise fail("rate", f"expected a pass rate between 0 and 1 (0.9 = 90%), got {value!r}")
        rate = float(value)
    if kind == "min_effect" and min_effect is None:
        raise fail(
            "min_effect",
            "min_effect gates need the top-level 'min_effect' setting (e.g. min_effect = 0.02)",
        )
    name = text("name") or _default_name(kind, slice_name, arm, rate, tag, min_effect)
    return Gate(
        kind=kind,
        name=name,
        slice=slice_name,
        arm=arm,
        rate=rate,
        tag=tag,
        index=index,
        line=line,
    )


def _default_name(
    kind: str,
    slice_name: str | None,
    arm: str | None,
    rate: float | None,
    tag: str | None,
    min_effect: float | None,
) -> str:
    where = f" in {slice_name}" if slice_name else ""
    on = f" on {slice_name}" if slice_name else ""
    if kind == "no_regressions":
        return f"no regressions{where}"
    if kind == "min_pass_rate":
        return f"{arm} pass rate{on} >= {_required_pct(rate or 0.0)}"
    if kind == "no_tag":
        return f"no '{tag}' tag{where}"
    if kind == "all_triaged":
        return f"all regressions triaged{where}"
    return f"effect{on} >= {round((min_effect or 0.0) * 100, 10):+g} pts"


# --------------------------------------------------------------------------------------------
# Evaluating the gates
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GateResult:
    """One gate's outcome: ``status`` in :data:`GATE_STATUSES`, ``detail`` in plain words, and
    ``item_ids`` the items to look at (the ones that made it fail, or that keep it pending)."""

    name: str
    kind: str
    status: str
    detail: str
    item_ids: tuple[str, ...] = ()
    slice: str | None = None


def gates_status(results: tuple[GateResult, ...] | list[GateResult]) -> str:
    """'failed' if any gate failed, else 'pending' if any is pending, else 'passed'."""
    statuses = {r.status for r in results}
    if "failed" in statuses:
        return "failed"
    if "pending" in statuses:
        return "pending"
    return "passed"


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _required_pct(value: float) -> str:
    return f"{round(value * 100, 10):g}%"


def _ids(ids: tuple[str, ...] | list[str]) -> str:
    shown = ", ".join(ids[:SHOW_IDS])
    more = len(ids) - SHOW_IDS
    return shown + (f", ... ({more} more)" if more > 0 else "")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _check_gates(
    policy: Policy, paired: PairedRuns, session: ReviewSession | None
) -> tuple[str, ...]:
    """Everything that depends on the pair or the session, before any gate is evaluated."""
    path = policy.source_path
    if policy.primary_metric != PASSED:
        raise InputError(
            path,
            f"primary_metric {policy.primary_metric!r} cannot be evaluated: gates are defined "
            f"on the pass/fail verdict; expected {PASSED!r}",
            field="primary_metric",
        )
    if not paired.has_verdicts or not paired.binary:
        raise UsageError(
            "the policy's gates need one pass/fail verdict per item in both runs "
            "(graded-only or multi-epoch runs are not supported yet)"
        )
    known = slice_names(paired)
    for gate in policy.gates:
        where = f"[[gates]] entry {gate.index} ({gate.name})"
        if gate.slice is not None and gate.slice not in known:
            expected = (
                f"this pair's slices are {', '.join(known)}"
                if known
                else "these runs have no 'slice' column"
            )
            raise InputError(
                path,
                f"{where}: unknown slice {gate.slice!r}; {expected}",
                line=gate.line,
                field="slice",
            )
        if gate.kind == "no_tag" and session is not None and gate.tag not in session.info.tags:
            raise InputError(
                path,
                f"{where}: tag {gate.tag!r} is not one of the review's tags "
                f"({', '.join(session.info.tags)}), so the gate could never fire",
                line=gate.line,
                field="tag",
            )
    return known


@dataclass(frozen=True)
class _Scope:
    label: str
    table: PairedTable
    item_ids: tuple[str, ...]
    regressions: tuple[str, ...]
    baseline_failures: tuple[str, ...]
    candidate_failures: tuple[str, ...]


def _scope(
    items: pl.DataFrame,
    slice_name: str | None,
    analysis: Analysis,
    items_owner: PairedRuns,
) -> _Scope:
    if slice_name is not None:
        items = items.filter(pl.col(SLICE) == slice_name)
    base = items[BASE_PASS].to_numpy() >= 1.0
    cand = items[CAND_PASS].to_numpy() >= 1.0
    ids = items[ITEM_ID].to_list()
    regressions = tuple(i for i, b, c in zip(ids, base, cand, strict=True) if b and not c)
    table = PairedTable.from_verdicts(base, cand)
    binary = getattr(analysis, "binary", None)
    if slice_name is None and binary is not None and analysis.paired is items_owner:
        # The overall scope is exactly what the reviewer sees in the analysis (the same numbers
        # either way for a binary pair; this keeps them the same object).
        table, regressions = binary.table, tuple(analysis.regressions)
    return _Scope(
        label=f"slice {slice_name}" if slice_name is not None else "all items",
        table=table,
        item_ids=tuple(ids),
        regressions=regressions,
        baseline_failures=tuple(i for i, b in zip(ids, base, strict=True) if not b),
        candidate_failures=tuple(i for i, c in zip(ids, cand, strict=True) if not c),
    )


def evaluate_gates(
    policy: Policy,
    paired: PairedRuns,
    analysis: Analysis,
    session: ReviewSession | None,
) -> tuple[GateResult, ...]:
    """Evaluate every gate of ``policy`` on the pair, in file order.

    Counts come from the pass/fail verdicts in ``paired.items``; when ``analysis`` is the binary
    analysis of this same ``paired``, its table and regression list are reused for the overall
    scope, so the gates quote the numbers on the reviewer's screen.

    ``session`` holds the reviewer's tags. Without one, the tag-based gates (``no_tag``,
    ``all_triaged``) are 'pending' while their scope has regressions (with none there is
    nothing to tag, and they pass). Slice names (and, with a session, ``no_tag`` tags) are
    checked before any gate is evaluated: an unknown one is an InputError naming the policy
    file and the gate. The ``min_effect`` gate uses the policy's ``ci_method`` and
    ``confidence``, which may differ from the analysis options.
    """
    _check_gates(policy, paired, session)
    items = paired.items
    if SLICE in items.columns:
        items = items.with_columns(pl.col(SLICE).fill_null(UNSLICED))
    results = []
    for gate in policy.gates:
        scope = _scope(items, gate.slice, analysis, paired)
        if gate.kind == "no_regressions":
            result = _no_regressions(gate, scope)
        elif gate.kind == "min_pass_rate":
            result = _min_pass_rate(gate, scope)
        elif gate.kind == "no_tag":
            result = _no_tag(gate, scope, session)
        elif gate.kind == "all_triaged":
            result = _all_triaged(gate, scope, session)
        else:
            result = _min_effect(gate, scope, policy)
        results.append(result)
    return tuple(results)


def _result(gate: Gate, status: str, detail: str, ids: tuple[str, ...] = ()) -> GateResult:
    return GateResult(gate.name, gate.kind, status, detail, ids, gate.slice)


def _no_regressions(gate: Gate, scope: _Scope) -> GateResult:
    t = scope.table
    passes = f"baseline {t.baseline_passes} -> candidate {t.candidate_passes} passes of {t.n}"
    regs = scope.regressions
    if regs:
        detail = f"{_plural(len(regs), 'regression')} in {scope.label} ({passes}): {_ids(regs)}"
        return _result(gate, "failed", detail, regs)
    return _result(gate, "passed", f"no regressions in {scope.label} ({passes})")


def _min_pass_rate(gate: Gate, scope: _Scope) -> GateResult:
    t = scope.table
    arm = gate.arm or "candidate"
    passes = t.candidate_passes if arm == "candidate" else t.baseline_passes
    required = gate.rate if gate.rate is not None else 0.0
    rate = passes / t.n
    ok = rate >= required
    detail = (
        f"{arm} pass rate on {scope.label} {passes}/{t.n} = {_pct(rate)} "
        f"{'>=' if ok else '<'} required {_required_pct(required)}"
    )
    if ok:
        return _result(gate, "passed", detail)
    failures = scope.candidate_failures if arm == "candidate" else scope.baseline_failures
    return _result(gate, "failed", detail, failures)


def _no_tag(gate: Gate, scope: _Scope, session: ReviewSession | None) -> GateResult:
    regs = scope.regressions
    if session is None:
        detail = (
            f"no review session: cannot tell whether any of the {_plural(len(regs), 'regression')}"
            f" in {scope.label} is tagged '{gate.tag}'"
        )
        return _result(gate, "pending" if regs else "passed", detail, regs)
    tagged = tuple(i for i in regs if session.review(i).tag == gate.tag)
    if tagged:
        detail = (
            f"{len(tagged)} of {_plural(len(regs), 'regression')} in {scope.label} tagged "
            f"'{gate.tag}': {_ids(tagged)}"
        )
        return _result(gate, "failed", detail, tagged)
    untriaged = sum(1 for i in regs if not session.review(i).triaged)
    note = f" ({untriaged} still untriaged)" if untriaged else ""
    detail = (
        f"none of the {_plural(len(regs), 'regression')} in {scope.label} is tagged "
        f"'{gate.tag}'{note}"
    )
    return _result(gate, "passed", detail)


def _all_triaged(gate: Gate, scope: _Scope, session: ReviewSession | None) -> GateResult:
    regs = scope.regressions
    if not regs:
        return _result(gate, "passed", f"no regressions to triage in {scope.label}")
    untriaged = tuple(i for i in regs if session is None or not session.review(i).triaged)
    if untriaged:
        detail = f"{len(untriaged)} of {len(regs)} regressions untriaged in {scope.label}"
        if session is None:
            detail += " (no review session)"
        return _result(gate, "pending", detail, untriaged)
    return _result(gate, "passed", f"all {len(regs)} regressions in {scope.label} are tagged")


def _min_effect(gate: Gate, scope: _Scope, policy: Policy) -> GateResult:
    minimum = policy.min_effect if policy.min_effect is not None else 0.0
    interval = paired_delta_interval(scope.table, policy.ci_method, policy.confidence)
    ok = interval.lower >= minimum
    label = CI_METHOD_LABELS.get(policy.ci_method, policy.ci_method)
    detail = (
        f"delta on {scope.label} {points(scope.table.delta, 2)} pts; "
        f"{policy.confidence * 100:g}% {label} lower bound {points(interval.lower, 2)} pts "
        f"{'>=' if ok else '<'} minimum effect {points(minimum, 2)} pts"
    )
    return _result(gate, "passed" if ok else "failed", detail)
