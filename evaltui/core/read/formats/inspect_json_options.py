"""The `inspect_json` format's name and options (Inspect's JSON log) for the command line, kept
apart from `inspect_json.py` so that building the parser imports no polars (see `contract.py`)."""

from evaltui.core.read.formats.contract import NoOptions

NAME = "inspect_json"
# `--metric` names one of the log's scorers or metrics: the loader picks it (or refuses it).
CHOOSES_SCORER = True
Options = NoOptions  # no options of its own: only the common --metric
