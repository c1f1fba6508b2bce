"""Record the printed bootstrap intervals of a fixed set of inputs (not a test).

Run once BEFORE a change to the bootstrap engine (issue 28, item 1) so that the change can be
tested against what the code printed before it, on the same seeds:

    cd tests/data/bootstrap_printed && ../../../.venv/bin/python make_fixture.py > before.json

The inputs are rebuilt from their numpy seeds by ``cases.py`` (shared with the test); only the
printed strings (``words.estimate_and_interval``, the precision every surface uses) and the raw
floats are stored. Recorded at commit 64bc0a3 (before issue 28's changes).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases import clustered_cases, graded_case, graded_names  # noqa: E402

from evaltui.core.stats.clusters import clustered_delta  # noqa: E402
from evaltui.core.stats.graded import paired_bootstrap  # noqa: E402
from evaltui.core.words import estimate_and_interval  # noqa: E402


def printed(est: float, ci: tuple[float, float], in_points: bool) -> str:
    value, interval = estimate_and_interval(est, ci[0], ci[1], in_points)
    return f"{value} {interval}"


def main() -> None:
    out: dict[str, dict] = {}
    for name, slow in graded_names().items():
        deltas, in_points = graded_case(name)
        g = paired_bootstrap(deltas, seed=0)
        out[name] = {
            "slow": slow,
            "n": int(deltas.size),
            "n_distinct": int(np.unique(deltas).size),
            "percentile": printed(g.mean_delta, g.percentile_ci, in_points),
            "bca": printed(g.mean_delta, g.bca_ci, in_points),
            "percentile_ci": list(g.percentile_ci),
            "bca_ci": list(g.bca_ci),
            "flags": list(g.flags),
        }
    for name, (deltas, codes, slow) in clustered_cases().items():
        c = clustered_delta(deltas, codes, seed=0)
        out[name] = {
            "slow": slow,
            "n": int(deltas.size),
            "cluster": printed(c.mean_delta, c.ci, False),
            "ci": list(c.ci),
        }
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
