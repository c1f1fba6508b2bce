"""Writes graded_baseline.jsonl and graded_candidate.jsonl: 60 items with a graded `score` in
[0, 1] (the candidate about 0.05 higher), seeded, so the old record beside them can be made
again (see README.md)."""

import json

import numpy as np

rng = np.random.default_rng(30)
base = np.clip(rng.beta(5, 3, 60), 0, 1)
cand = np.clip(base + rng.normal(0.05, 0.12, 60), 0, 1)
for name, scores in (("graded_baseline.jsonl", base), ("graded_candidate.jsonl", cand)):
    with open(name, "w", encoding="utf-8") as out:
        for i, s in enumerate(scores):
            out.write(json.dumps({"item_id": f"g-{i:03d}", "score": round(float(s), 4)}) + "\n")
