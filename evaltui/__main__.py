"""Allow `python -m evaltui`."""

from evaltui.cli import main

raise SystemExit(main())
