"""The core must stay usable headless: importing it must not pull in the UI toolkit."""

import subprocess
import sys


def test_core_imports_neither_textual_nor_rich():
    code = (
        "import sys\n"
        "import evaltui.core.analysis.pair, evaltui.core.report.pair\n"
        "import evaltui.core.compare.pairing, evaltui.core.read.formats\n"
        "import evaltui.core.read.formats.jsonl, evaltui.core.read.formats.csv\n"
        "import evaltui.core.read.formats.parquet, evaltui.core.stats.binary\n"
        "import pkgutil, importlib, evaltui.core\n"
        "for m in pkgutil.walk_packages(evaltui.core.__path__, 'evaltui.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"evaltui.core pulled in: {out.stdout.strip()}"


def test_core_does_not_import_scipy_stats_at_import_time():
    """scipy.stats costs ~2 s of start-up; the product uses scipy.special only."""
    code = (
        "import sys, evaltui.core.analysis.pair, evaltui.core.report.pair\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
