"""Reference values for tests/core/stats/test_independent.py: Newcombe's hybrid score interval for
independent proportions (statsmodels' confint_proportions_2indep, method="newcomb") and the
pooled two-proportion z (proportions_ztest). statsmodels is not an evaltui dependency: run with
the reference venv, `/tmp/refvenv/bin/python tests/data/reference/independent_statsmodels.py`
(statsmodels 0.15), and paste the printed rows into the test.
"""

import statsmodels
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

CASES = [
    (56, 70, 48, 80),
    (7, 34, 1, 34),
    (9, 10, 3, 10),
    (5, 56, 0, 29),
    (0, 10, 0, 20),
    (10, 10, 0, 20),
    (4321, 5000, 4200, 5000),
    (120, 1000, 100, 1200),
]
print(f"# statsmodels {statsmodels.__version__}")
print("# (x1, n1, x2, n2, confidence, lower, upper): candidate x1/n1, baseline x2/n2")
for confidence in (0.95, 0.90):
    for x1, n1, x2, n2 in CASES:
        low, upp = confint_proportions_2indep(
            x1, n1, x2, n2, method="newcomb", compare="diff", alpha=1 - confidence
        )
        print(f"({x1}, {n1}, {x2}, {n2}, {confidence}, {float(low)!r}, {float(upp)!r}),")
print("# proportions_ztest([x1, x2], [n1, n2]): (x1, n1, x2, n2, z, p)")
for x1, n1, x2, n2 in CASES[:4] + CASES[6:]:
    z, p = proportions_ztest([x1, x2], [n1, n2])
    print(f"({x1}, {n1}, {x2}, {n2}, {float(z)!r}, {float(p)!r}),")
