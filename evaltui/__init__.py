"""evaltui: paired review of two eval runs in the terminal."""

__version__ = "0.1.0"
