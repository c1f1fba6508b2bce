"""The `openai_evals` format's name and options (OpenAI Evals' log) for the command line, kept
apart from `openai_evals.py` so that building the parser imports no polars (see `contract.py`)."""

from evaltui.core.read.formats.contract import NoOptions

NAME = "openai_evals"
# `--metric` names one of the log's scorers or metrics: the loader picks it (or refuses it).
CHOOSES_SCORER = True
Options = NoOptions  # no options of its own: only the common --metric
