"""What the app is opened with: the comparison spec and the review's own choices.

Kept apart from the app so the review state and the screens can read it without importing
the app (the UI imports one way: app -> screens -> widgets -> state).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaltui.core.compare.spec import CompareSpec

if TYPE_CHECKING:
    from evaltui.core.analysis.early_read import EarlyRead
    from evaltui.core.analysis.run_set import RunSetSpec


@dataclass(frozen=True)
class AppConfig:
    """Everything the app needs to open a pair: the comparison spec and the review's own
    choices. The CLI builds it from the command line; tests use `for_pair`."""

    spec: CompareSpec
    tags: tuple[str, ...] | None = None
    fresh: bool = False
    state_root: Path | None = None  # where session journals live (None: the default place)
    log_directory: Path | None = None  # `evaltui DIR`: the picker chooses the pair first
    reviewer: str | None = None  # None: workflow.reviewer_identity finds who is at the keys
    # `evaltui BASE CAND CAND2 ...`: the matrix of every pair first, each pair reviewed from it
    run_set: RunSetSpec | None = None
    # `--reviewers A,B,C` and `--reviews-per-item K` (None: the policy's [review], if any)
    team: tuple[str | None, int | None] = (None, None)
    # The two runs' read, started by the CLI before the app was imported (`early_read.py`);
    # the loading worker takes it for `spec` (not for a pair picked later).
    reading: EarlyRead | None = None

    @classmethod
    def for_pair(
        cls,
        baseline: str | Path,
        candidate: str | Path,
        *,
        tags: tuple[str, ...] | None = None,
        fresh: bool = False,
        state_root: Path | None = None,
        reviewer: str | None = None,
        team: tuple[str | None, int | None] = (None, None),
        **choices: Any,
    ) -> AppConfig:
        """A config for two files and the comparison choices `CompareSpec.create` takes."""
        spec = CompareSpec.create(baseline, candidate, **choices)
        return cls(
            spec=spec, tags=tags, fresh=fresh, state_root=state_root, reviewer=reviewer, team=team
        )
