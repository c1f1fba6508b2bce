"""Reference values for tests/core/stats/test_categorical.py from statsmodels (not a dependency).

Run with the separate reference venv: /tmp/refvenv/bin/python
tests/data/reference/stuart_maxwell_statsmodels.py (statsmodels 0.15.0).

SquareTable(...).homogeneity() is the Stuart-Maxwell test. SquareTable adds 0.5 to every empty
cell by default (shift_zeros=True); the coffee table has one (Taster's Choice -> Nescafe), so
the Stuart-Maxwell statistic of the counts as observed needs shift_zeros=False (with the shift
it is 12.143...).
"""

import numpy as np
import statsmodels
from statsmodels.stats.contingency_tables import SquareTable

VISION = [  # Stuart (1955): right eye grade (rows) x left eye grade, 7477 women
    [1520, 266, 124, 66],
    [234, 1512, 432, 78],
    [117, 362, 1772, 205],
    [36, 82, 179, 492],
]
COFFEE = [  # Agresti (2002), Table 10.5: first purchase (rows) x second purchase
    [93, 17, 44, 7, 10],
    [9, 46, 11, 0, 9],
    [17, 11, 155, 9, 12],
    [6, 4, 9, 15, 2],
    [10, 4, 12, 2, 27],
]
for name, table in (("vision", VISION), ("coffee", COFFEE)):
    for shift in (False, True):
        r = SquareTable(np.array(table), shift_zeros=shift).homogeneity()
        print(name, f"shift_zeros={shift}", repr(float(r.statistic)), repr(float(r.pvalue)), r.df)
print("statsmodels", statsmodels.__version__)
