"""Issue 25: what the relative cost interval (the ratio of means recomputed in each paired
resample, `stats.paired_ratio`) costs beside the difference's bootstrap it sits next to, per
compared cost figure, at 1k, 10k and 100k paired items (2,000 resamples, seed 0, as
`analysis.cost` runs them). CPU seconds (process_time), best of 3; the reference is the
difference's bootstrap measured in the same run.

    .venv/bin/python bench/cost_ratio.py
"""

from __future__ import annotations

import time

import numpy as np

from evaltui.core.stats.graded import paired_bootstrap
from evaltui.core.stats.paired_ratio import paired_ratio_bootstrap


def best(fn, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    print(f"{'items':>8} {'difference (ref)':>17} {'ratio':>8} {'ratio / ref':>12}")
    for n in (1_000, 10_000, 100_000):
        rng = np.random.default_rng(1)
        base = rng.lognormal(8, 1, n)  # tokens per item
        cand = base * rng.uniform(0.5, 1.5, n)
        deltas = cand - base
        ref = best(lambda d=deltas: paired_bootstrap(d, resamples=2000, method="percentile"))
        ratio = best(lambda b=base, c=cand: paired_ratio_bootstrap(b, c, resamples=2000))
        print(f"{n:>8,} {ref:>16.3f}s {ratio:>7.3f}s {ratio / ref:>11.2f}x")


if __name__ == "__main__":
    main()
