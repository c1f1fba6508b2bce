"""The `helm` format's name and options (HELM's runs) for the command line, kept
apart from `helm.py` so that building the parser imports no polars (see `contract.py`)."""

from evaltui.core.read.formats.contract import NoOptions

NAME = "helm"
# `--metric` names one of the log's scorers or metrics: the loader picks it (or refuses it).
CHOOSES_SCORER = True
Options = NoOptions  # no options of its own: only the common --metric
