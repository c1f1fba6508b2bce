"""The comparison spec: one serialisable description of what was compared, and how.

Every choice that changes a number lives here once: the two inputs, the format (forced or
detected), every load option (metric, the format's own options, per-arm overrides such as
promptfoo's arms), the pairing options and the analysis options. The CLI and the app build a
spec; `compare.compare` runs one; the report and the sign-off record store `to_dict()`; and
`evaltui verify RECORD BASE CAND` replays `from_dict()` on the files it is given. A new option
is added here and nowhere else has to learn about it.

The analysis options held are the effective ones: when a policy file is named, its alpha, CI
method and confidence level are folded in when the spec is built (`CompareSpec.create`), so a
record replays with the numbers it was made with even where the policy file is gone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from evaltui.core.compare.choose_design import check_design
from evaltui.core.compare.options import AnalysisOptions
from evaltui.core.compare.pairing import OnError, PairingOptions
from evaltui.core.errors import UsageError
from evaltui.core.read.formats import LoadOptions
from evaltui.core.read.remote.urls import as_typed

SPEC_SCHEMA = "evaltui.spec/1"
ARMS = ("baseline", "candidate")
# The policy fixes these; a command-line value that contradicts it is refused.
POLICY_FIXED = ("ci_method", "confidence", "alpha")

Options = tuple[tuple[str, Any], ...]  # (name, value) pairs, sorted by name, no None values


def as_options(values: dict[str, Any] | None) -> Options:
    """Format options as sorted (name, value) pairs; None means "not given" and is dropped;
    lists become tuples so the spec stays hashable and compares by value."""
    if not values:
        return ()
    return tuple(
        sorted(
            (name, tuple(value) if isinstance(value, list) else value)
            for name, value in values.items()
            if value is not None
        )
    )


@dataclass(frozen=True)
class CompareSpec:
    """What to compare and how; see the module docstring."""

    baseline: Path
    candidate: Path
    input_format: str | None = None  # None: detected from each file's content
    format_options: Options = ()  # the format's own options, for both arms
    baseline_options: Options = ()  # per-arm overrides (promptfoo --baseline-arm)
    candidate_options: Options = ()
    pairing: PairingOptions = field(default_factory=PairingOptions)
    analysis: AnalysisOptions = field(default_factory=AnalysisOptions)
    policy: Path | None = None  # the release policy file, when one was given
    # The runs' metadata differ (task, dataset, scorer…) and the user says the comparison is
    # intended: the decision then reports the mismatch instead of refusing a verdict.
    accept_mismatch: bool = False
    # paired (the default), independent (two runs of different items) or auto (independent
    # when the runs cannot be paired): see compare.choose_design. A record without the key was
    # paired: `to_dict` leaves "paired" out, so those records keep their exact content.
    design: str = "paired"

    def __post_init__(self) -> None:
        check_design(self.design)
        object.__setattr__(self, "baseline", Path(self.baseline))
        object.__setattr__(self, "candidate", Path(self.candidate))
        if self.policy is not None:
            object.__setattr__(self, "policy", Path(self.policy))
        for name in ("format_options", "baseline_options", "candidate_options"):
            value = getattr(self, name)
            if isinstance(value, dict):
                object.__setattr__(self, name, as_options(value))

    @classmethod
    def create(
        cls,
        baseline: str | Path,
        candidate: str | Path,
        *,
        input_format: str | None = None,
        format_options: dict[str, Any] | None = None,
        baseline_options: dict[str, Any] | None = None,
        candidate_options: dict[str, Any] | None = None,
        allow_missing: bool = False,
        on_error: OnError = "fail",
        policy: str | Path | None = None,
        accept_mismatch: bool = False,
        design: str = "paired",
        **analysis: Any,
    ) -> CompareSpec:
        """A spec from the user's choices (None: not given). With a policy, its alpha, CI
        method and confidence level are used, and a given value that contradicts them is an
        error: the policy was written before the results were seen."""
        defaults = AnalysisOptions()
        unknown = sorted(set(analysis) - {f.name for f in fields(AnalysisOptions)})
        if unknown:
            raise TypeError(f"unknown analysis option(s): {', '.join(unknown)}")
        given = {name: value for name, value in analysis.items() if value is not None}
        if policy is not None:
            from evaltui.core.policy import load_policy

            rules = load_policy(policy)
            for name in POLICY_FIXED:
                mine = getattr(rules, name)
                if name in given and given[name] != mine:
                    flag = "--" + name.replace("_", "-")
                    raise UsageError(
                        f"{flag} {given[name]} contradicts the policy {policy} ({name} = "
                        f"{mine}); the policy was fixed before the results: drop the option "
                        "or edit the policy"
                    )
                given[name] = mine
            given["policy_directions"] = rules.directions
        return cls(
            baseline=Path(baseline),
            candidate=Path(candidate),
            input_format=input_format,
            format_options=as_options(format_options),
            baseline_options=as_options(baseline_options),
            candidate_options=as_options(candidate_options),
            pairing=PairingOptions(allow_missing=allow_missing, on_error=on_error),
            analysis=replace(defaults, **given),
            policy=Path(policy) if policy is not None else None,
            accept_mismatch=accept_mismatch,
            design=design,
        )

    def load_options(self, arm: str, *, defer_hash_check: bool = False) -> LoadOptions:
        """How to read one arm's file: the common options, then that arm's overrides."""
        if arm not in ARMS:
            raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")
        merged = dict(self.format_options)
        merged.update(dict(getattr(self, f"{arm}_options")))
        return LoadOptions.of(
            metric=self.analysis.metric, defer_hash_check=defer_hash_check, **merged
        )

    def with_inputs(self, baseline: str | Path, candidate: str | Path) -> CompareSpec:
        """The same comparison on other paths (`verify` replays a record on the files given)."""
        return replace(self, baseline=Path(baseline), candidate=Path(candidate))

    # -- serialisation ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: stored in reports and sign-off records, read back by `from_dict`."""
        analysis = {f.name: getattr(self.analysis, f.name) for f in fields(AnalysisOptions)}
        if analysis.get("direction") is None:  # as records written before it existed
            analysis.pop("direction", None)
        if not analysis.get("policy_directions"):  # (the same)
            analysis.pop("policy_directions", None)
        else:
            analysis["policy_directions"] = [list(pair) for pair in self.analysis.policy_directions]
        design = {} if self.design == "paired" else {"design": self.design}
        return {
            "schema": SPEC_SCHEMA,
            "baseline": as_typed(self.baseline),
            "candidate": as_typed(self.candidate),
            "input_format": self.input_format,
            "format_options": _options_dict(self.format_options),
            "baseline_options": _options_dict(self.baseline_options),
            "candidate_options": _options_dict(self.candidate_options),
            "pairing": {
                "allow_missing": self.pairing.allow_missing,
                "on_error": self.pairing.on_error,
            },
            "analysis": analysis,
            "policy": as_typed(self.policy) if self.policy is not None else None,
            "accept_mismatch": self.accept_mismatch,
            **design,
        }

    @classmethod
    def from_dict(cls, data: Any) -> CompareSpec:
        """The spec a record stored; a damaged one is a UsageError naming the key."""
        if not isinstance(data, dict) or data.get("schema") != SPEC_SCHEMA:
            raise UsageError(f"the comparison spec is not a {SPEC_SCHEMA} object")
        try:
            analysis = data["analysis"]
            known = {f.name for f in fields(AnalysisOptions)}
            unknown = sorted(set(analysis) - known)
            if unknown:
                raise UsageError(
                    f"the comparison spec has unknown analysis option(s) {', '.join(unknown)} "
                    "(written by a newer evaltui?)"
                )
            pairing = data["pairing"]
            options = {
                name: _options_from(data.get(name), name)
                for name in ("format_options", "baseline_options", "candidate_options")
            }
            return cls(
                baseline=Path(_text(data["baseline"], "baseline")),
                candidate=Path(_text(data["candidate"], "candidate")),
                input_format=data.get("input_format"),
                pairing=PairingOptions(
                    allow_missing=bool(pairing["allow_missing"]), on_error=pairing["on_error"]
                ),
                analysis=AnalysisOptions(**analysis),
                policy=Path(data["policy"]) if data.get("policy") else None,
                accept_mismatch=bool(data.get("accept_mismatch", False)),
                design=data.get("design", "paired"),
                **options,
            )
        except KeyError as exc:
            raise UsageError(f"the comparison spec lacks the key {exc.args[0]!r}") from None
        except (TypeError, AttributeError) as exc:
            raise UsageError(f"the comparison spec is malformed: {exc}") from None


def _options_dict(options: Options) -> dict[str, Any]:
    return {name: list(value) if isinstance(value, tuple) else value for name, value in options}


def _options_from(value: Any, where: str) -> Options:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise UsageError(f"the comparison spec's {where} must be an object")
    return as_options(value)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise UsageError(f"the comparison spec's {where} must be a path")
    return value
