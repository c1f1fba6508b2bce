"""The import-layer contracts in pyproject.toml ([tool.importlinter]) hold: the core never
imports the UI or the command line, the app never imports the command line, and the core's
stages import only downward (stats < read < policy < compare < analysis < decide < report <
record < verify < designs).

`lint-imports` is the console script installed beside the interpreter the tests run in (the
`test` extra installs it), so the suite checks the contracts wherever it runs; its own report
(which contract, which import, which line) is the failure message.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def test_the_import_layer_contracts_in_pyproject_hold():
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
