"""What the command line needs of the `promptfoo` format (promptfoo's eval output): its name and the
options only it takes, each with the flag that offers it. Kept apart from `promptfoo.py` (which
imports polars) so that building the parser stays light (see `contract.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.read.formats.contract import option

NAME = "promptfoo"


@dataclass(frozen=True)
class Options:
    """promptfoo's own option: which arm (provider and prompt) of the file is the run."""

    arm: str | None = option(
        "promptfoo: the provider/prompt of both runs",
        per_arm=("promptfoo: the baseline's arm", "promptfoo: the candidate's arm"),
    )
