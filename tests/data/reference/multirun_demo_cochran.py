"""Cochran's Q of the three demo runs (sample_runs/{baseline,candidate,candidate2}.jsonl) with
statsmodels, the reference for tests/core/analysis/test_run_set.py. Run with a Python that has
statsmodels (not a dependency of evaltui): statsmodels 0.15.0 printed
13.0 0.0015034391929775717 2."""

import json
from pathlib import Path

import numpy as np
from statsmodels.stats.contingency_tables import cochrans_q

ROOT = Path(__file__).resolve().parents[3] / "sample_runs"
columns = []
for name in ("baseline", "candidate", "candidate2"):
    with (ROOT / f"{name}.jsonl").open(encoding="utf-8") as handle:
        columns.append({r["item_id"]: r["passed"] for r in map(json.loads, handle)})
ids = sorted(columns[0])
matrix = np.array([[c[i] for c in columns] for i in ids]).astype(int)
result = cochrans_q(matrix)
print(float(result.statistic), float(result.pvalue), int(result.df))
