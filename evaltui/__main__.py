"""Allow `python -m evaltui`."""

from evaltui.cli.main import main

raise SystemExit(main())
