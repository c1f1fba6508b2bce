"""Reference values for tests/core/stats/test_omnibus.py (Cochran's Q), from statsmodels.

Run with the reference venv, not the project's (statsmodels is not a dependency):

    /tmp/refvenv/bin/python tests/data/reference/cochran_q_statsmodels.py

It writes tests/data/reference/cochran_q_statsmodels.json: seeded random pass/fail matrices
(stored as '0'/'1' row strings, so the test does not depend on numpy's random streams) and
``statsmodels.stats.contingency_tables.cochrans_q(x)``'s statistic, p-value and df for each.
Rows get an item difficulty, so many are all-pass or all-fail, as in real evals. It also prints
statsmodels on the three published examples the test cites (NAG G08ALF, WaveMetrics Igor Pro).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import scipy
import statsmodels
from statsmodels.stats.contingency_tables import cochrans_q

OUT = Path(__file__).with_suffix(".json")

SHAPES = [(12, 3), (30, 3), (40, 4), (60, 5), (25, 8), (200, 3), (500, 4), (35, 2), (8, 6)]


def matrix(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """Item difficulty times system skill, so rows agree more often than chance."""
    difficulty = rng.uniform(0.05, 0.95, size=(n, 1))
    skill = rng.uniform(-0.15, 0.15, size=(1, k))
    return rng.random((n, k)) < np.clip(difficulty + skill, 0.0, 1.0)


def main() -> None:
    rng = np.random.default_rng(20240517)
    cases = []
    for n, k in SHAPES:
        x = matrix(rng, n, k)
        res = cochrans_q(x.astype(int))
        cases.append(
            {
                "rows": ["".join("1" if v else "0" for v in row) for row in x],
                "statistic": float(res.statistic),
                "p": float(res.pvalue),
                "df": int(res.df),
            }
        )
    doc = {
        "provenance": (
            f"statsmodels {statsmodels.__version__} (scipy {scipy.__version__}, numpy "
            f"{np.__version__}, Python {sys.version.split()[0]}): "
            "statsmodels.stats.contingency_tables.cochrans_q(x) on each matrix, "
            "rows = items, columns = systems; made by cochran_q_statsmodels.py"
        ),
        "cases": cases,
    }
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")

    published = {
        "NAG G08ALF example (Q = 2.8000, p = 0.2466)": [
            "111",
            "111",
            "010",
            "110",
            "000",
            "111",
            "111",
            "110",
            "001",
            "010",
            "111",
            "111",
        ],
        "Igor Pro wave1 (Q = 5.56522, p = 0.234056)": [
            "00001",
            "00001",
            "00011",
            "01011",
            "01010",
            "11010",
            "11000",
            "10000",
            "10000",
        ],
        "Igor Pro wave2 (Q = 10.3636, p = 0.0347281)": [
            "00001",
            "00001",
            "00011",
            "01011",
            "11011",
            "11011",
            "11010",
            "11000",
            "10000",
        ],
    }
    for name, rows in published.items():
        x = np.array([[int(c) for c in row] for row in rows])
        res = cochrans_q(x)
        print(f"{name}: statsmodels Q = {res.statistic!r}, p = {res.pvalue!r}, df = {res.df}")


if __name__ == "__main__":
    main()
