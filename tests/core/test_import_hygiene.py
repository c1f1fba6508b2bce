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


def test_the_app_and_the_pipeline_import_scipy_only_when_a_statistic_needs_it():
    """scipy.special and scipy.fft cost 0.1-0.3 s; importing them before the app could draw put
    that on the main thread. A statistic's first use (or the pipeline's prefetch) imports them."""
    code = (
        "import sys, evaltui.ui.app, evaltui.core.analysis.pipeline, evaltui.cli.main\n"
        "before = sorted(m for m in ('scipy.special', 'scipy.fft') if m in sys.modules)\n"
        "from evaltui.core.stats import special\n"
        "from evaltui.core.stats.interval import two_sided_z\n"
        "z = two_sided_z(0.95)\n"
        "import scipy.special as sp\n"
        "print(before, special.ndtri is sp.ndtri, z == float(sp.ndtri(0.975)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] True True"


def test_prefetch_imports_scipy_special_in_a_thread():
    code = (
        "import sys, threading\n"
        "from evaltui.core.stats import special\n"
        "special.prefetch()\n"
        "for t in threading.enumerate():\n"
        "    if t.name == 'evaltui-import-scipy': t.join()\n"
        "print('scipy.special' in sys.modules, 'scipy.fft' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True True"
