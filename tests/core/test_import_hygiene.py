"""The core must stay usable headless: importing it must not pull in the UI toolkit."""

import os
import subprocess
import sys

import pytest


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


@pytest.fixture(scope="module")
def app_imported() -> list[str]:
    """What one interpreter holds after importing the CLI, the app and the pipeline (as every
    open does before its first screen), then after a statistic's first use: one line each,
    from one subprocess shared by the tests below (each is ~0.5 s of a fresh interpreter)."""
    code = (
        "import sys, evaltui.cli.main, evaltui.ui.app, evaltui.core.analysis.pipeline\n"
        "later = ('item', 'matrix', 'independent', 'signoff')\n"
        "print(sorted(m for m in later if 'evaltui.ui.screens.' + m in sys.modules))\n"
        "print(sorted(m for m in ('scipy.special', 'scipy.fft') if m in sys.modules))\n"
        "from evaltui.core.stats import special\n"
        "from evaltui.core.stats.interval import two_sided_z\n"
        "z = two_sided_z(0.95)\n"
        "import scipy.special as sp\n"
        "print(special.ndtri is sp.ndtri, z == float(sp.ndtri(0.975)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()


def test_the_app_imports_no_screen_a_pairs_first_screen_does_not_show(app_imported):
    """The item screen (imported right after the first screen is drawn), the matrix, the
    independent samples' screen and the sign-off dialogs are imported when one opens, not
    on every open's way to its first screen (25 ms of CPU on the main thread, before the
    item screen's)."""
    assert app_imported[0] == "[]"


def test_the_app_and_the_pipeline_import_scipy_only_when_a_statistic_needs_it(app_imported):
    """scipy.special and scipy.fft cost 0.1-0.3 s; importing them before the app could draw put
    that on the main thread. A statistic's first use (or the pipeline's prefetch) imports them."""
    assert app_imported[1:] == ["[]", "True True"]


def test_prefetch_imports_scipy_special_in_a_thread_and_not_scipy_fft():
    """scipy.fft (0.017 s) is left out: the exact bootstrap reads its CDF in closed form
    (`exact_cdf`) and imports it only on its rare FFT route."""
    code = (
        "import sys, threading\n"
        "from evaltui.core.stats import special\n"
        "special.prefetch()\n"
        "for t in threading.enumerate():\n"
        "    if t.name == 'evaltui-import-scipy': t.join()\n"
        "print('scipy.special' in sys.modules, 'scipy.fft' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True False"


def test_a_whole_analysis_and_decision_of_a_scored_pair_never_imports_scipy_stats(tmp_path):
    """Not only the imports: reading a pass/score pair, pairing it, every metric's analysis, the
    breakdowns and the report's decision use scipy.special and scipy.fft only, so a reopen that
    skips the analysis has no scipy.stats (0.4-0.6 s) to pay either."""
    import random

    rng = random.Random(28)
    for name, shift in (("baseline", 0.0), ("candidate", 0.05)):
        lines = []
        for i in range(300):
            score = min(1.0, max(0.0, rng.random() + shift))
            passed = "true" if score > 0.5 else "false"
            lines.append(
                f'{{"item_id": "i{i}", "passed": {passed}, "score": {score:.3f}, '
                f'"slice": "s{i % 3}"}}'
            )
        (tmp_path / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    code = (
        "import io, sys, contextlib\n"
        "import evaltui.ui.app\n"
        "from evaltui.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    code = main(['report', sys.argv[1], sys.argv[2], '--format', 'json'])\n"
        "bad = [m for m in ('scipy.stats', 'scipy.optimize') if m in sys.modules]\n"
        "print(code, 'scipy.special' in sys.modules, '\"decision\"' in out.getvalue(), bad)\n"
    )
    env = {**os.environ, "EVALTUI_NO_CACHE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "baseline.jsonl"),
         str(tmp_path / "candidate.jsonl")],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    assert done.stdout.strip().splitlines()[-1].split(" ", 3)[1:] == ["True", "True", "[]"]


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_a_reopen_from_the_analysis_cache_imports_no_scipy_stats(tmp_path):
    """A pair reopened from the analysis cache (`core/analysis/analysis_cache.py`) rebuilds its
    result objects from data and decides: nothing on that path imports scipy (not even the
    read's prefetch of scipy.special: `probably_kept` saw the entry before the read)."""
    code = (
        "import sys\n"
        "import evaltui.ui.app\n"
        "from evaltui.core.analysis.pipeline import compare, keep_analysis\n"
        "from evaltui.core.compare.spec import CompareSpec\n"
        "from evaltui.core.report.pair import report_dict\n"
        "from evaltui.core.analysis import analysis_cache\n"
        "analysis_cache.MIN_ITEMS = 0\n"
        "spec = CompareSpec.create(sys.argv[1], sys.argv[2])\n"
        "if sys.argv[3] == 'keep':\n"
        "    keep_analysis(compare(spec, cached=True))\n"
        "else:\n"
        "    again = compare(spec, cached=True, complete=False)\n"
        "    decision = report_dict(again)['decision']['line']\n"
        "    heavy = ('scipy.stats', 'scipy.optimize', 'scipy.special', 'scipy.fft')\n"
        "    bad = [m for m in heavy if m in sys.modules]\n"
        "    print(again.breakdowns_pending, bool(decision), bad)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pair = [os.path.join(root, "sample_runs", f"{arm}.jsonl") for arm in ("baseline", "candidate")]
    env = {**os.environ, "EVALTUI_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("EVALTUI_NO_CACHE", None)
    for step in ("keep", "reopen"):
        done = subprocess.run(
            [sys.executable, "-c", code, *pair, step],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
    assert done.stdout.strip() == "False True []"
