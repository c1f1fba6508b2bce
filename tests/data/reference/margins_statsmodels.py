"""Reference values for tests/core/stats/test_margins.py: statsmodels' paired TOST.

Run with a Python that has statsmodels (not a dependency of evaltui):
    /tmp/refvenv/bin/python tests/data/reference/margins_statsmodels.py
Used: statsmodels 0.15, numpy 2. ``ttost_paired(x1, x2, low, upp)`` tests x1 - x2 inside
(low, upp); x1 is the per-item deltas and x2 zeros, so the pairs' differences are the deltas.
"""

import numpy as np
import statsmodels
from statsmodels.stats.weightstats import ttost_paired

D = [0.05, 0.4, -0.35, 0.0, 0.35, -0.4, -0.05, 0.65, -0.1, 0.25, -0.5, -0.15, 0.2, -0.55,
     0.15, 0.5, -0.25, 0.1, 0.45, -0.3, 0.05, -0.35, 0.0, 0.35, -0.4, -0.05, 0.3, -0.45, 0.25,
     0.6, -0.15, 0.2, -0.55, -0.2, 0.15, -0.25, 0.1, 0.45, -0.3, 0.05]  # fmt: skip

print("# statsmodels", statsmodels.__version__)
print("# margin, TOST p, (t, p, df) lower, (t, p, df) upper")
d = np.array(D)
for m in (0.05, 0.10, 0.15):
    p, lower, upper = ttost_paired(d, np.zeros_like(d), -m, m)
    print(
        f"deltas40 {m:.2f} {p:.12g} {lower[0]:.12g} {lower[1]:.12g} {lower[2]:g} "
        f"{upper[0]:.12g} {upper[1]:.12g} {upper[2]:g}"
    )
