"""What the command line needs of the native `jsonl` format (JSON Lines): its name and options
(the column options every native format shares), kept apart from `jsonl.py` so building the
parser imports no polars (see `contract.py`)."""

from evaltui.core.read.formats.column_options import ColumnOptions

NAME = "jsonl"
Options = ColumnOptions
