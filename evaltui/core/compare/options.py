"""The analysis options of a comparison: the statistical choices a spec records.

They belong to the comparison (the spec serialises them into every report and record, and verify
replays them), so they live here, below the analysis that reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.compare.direction import check_direction
from evaltui.core.errors import UsageError
from evaltui.core.stats.paired_delta import CI_METHODS, DEFAULT_CI_METHOD

BOOTSTRAP_METHODS = ("bca", "percentile")


@dataclass(frozen=True)
class AnalysisOptions:
    """The statistical choices; recorded in every report so a reader knows what was done."""

    ci_method: str = DEFAULT_CI_METHOD
    confidence: float = 0.95
    alpha: float = 0.05
    metric: str | None = None  # "passed", "score" or "score:<name>"; None: passed, else score
    pass_threshold: float | None = None  # a graded metric >= this counts as a pass
    threshold_metric: str | None = None  # the score column the threshold was applied to
    tolerance: float = 0.0  # graded: an item regresses when its delta < -tolerance
    resamples: int = 10_000
    seed: int = 0
    bootstrap: str = "bca"
    # Which way is better for a graded metric ("higher", "lower"; None: the log's word, else
    # the metric's name: compare.direction). Left out of the spec's JSON when None, so records
    # written before it existed keep their exact content.
    direction: str | None = None
    # The release policy's `[metrics]` directions, (metric name, "higher"|"lower") sorted: the
    # policy's word where `--direction` is not given. Left out of the spec's JSON when empty.
    policy_directions: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.ci_method not in CI_METHODS:
            raise UsageError(
                f"--ci-method must be one of {', '.join(CI_METHODS)}, got {self.ci_method!r}"
            )
        if not 0.0 < self.confidence < 1.0:
            raise UsageError(f"--confidence must be between 0 and 1, got {self.confidence}")
        if not 0.0 < self.alpha < 1.0:
            raise UsageError(f"--alpha must be between 0 and 1, got {self.alpha}")
        if self.tolerance < 0:
            raise UsageError(f"--tolerance must be 0 or more, got {self.tolerance}")
        if self.resamples < 100:
            raise UsageError(f"--resamples must be at least 100, got {self.resamples}")
        check_direction(self.direction)
        pairs = tuple(sorted((str(name), str(word)) for name, word in self.policy_directions))
        for _, word in pairs:
            check_direction(word)
        object.__setattr__(self, "policy_directions", pairs)  # (a record's JSON has lists)
        if self.bootstrap not in BOOTSTRAP_METHODS:
            raise UsageError(
                f"--bootstrap must be one of {', '.join(BOOTSTRAP_METHODS)}, got {self.bootstrap!r}"
            )
