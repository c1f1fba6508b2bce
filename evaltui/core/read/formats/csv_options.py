"""What the command line needs of the native `csv` format (CSV): its name and options
(the column options every native format shares), kept apart from `csv.py` so building the
parser imports no polars (see `contract.py`)."""

from evaltui.core.read.formats.column_options import ColumnOptions

NAME = "csv"
Options = ColumnOptions
