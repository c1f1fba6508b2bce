"""What the command line needs of the `lm_eval` format (lm-eval's per-sample logs): its name and the
options only it takes, each with the flag that offers it. Kept apart from `lm_eval.py` (which
imports polars) so that building the parser stays light (see `contract.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.read.formats.contract import option, parse_bool

NAME = "lm_eval"
# `--metric` names one of the log's scorers or metrics: the loader picks it (or refuses it).
CHOOSES_SCORER = True


@dataclass(frozen=True)
class Options:
    """lm-eval's own options: which filter's lines are the run (default: the first seen), and
    whether a non-finite value is an errored item rather than an error."""

    filter: str | None = option(
        "lm-eval: which filter's lines to use when a task has several (default: the first)"
    )
    # A record whose metric value is NaN or infinite becomes an errored item instead of
    # refusing the file (`--exclude-nonfinite`); how errors count is then --on-error's choice.
    exclude_nonfinite: bool | None = option(  # None: not given (refused)
        "lm-eval: a record whose metric is NaN or infinite becomes an errored item "
        "(counted; --on-error decides) instead of refusing the file",
        switch=True,
    )
    # Whether more of the metric is better (`--higher-is-better true|false`), for runs whose
    # results file does not say (None: the results file's word, else higher).
    higher_is_better: bool | None = option(
        "lm-eval: whether more of the metric is better, when the results file beside the "
        "samples does not say (false: a rise is a regression)",
        choices=("true", "false"),
        parse=parse_bool,
    )
