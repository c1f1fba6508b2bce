"""Makes baseline.jsonl and candidate.jsonl: a pair of runs whose outcomes move while the pass
rate holds (run from this folder: python make_pair.py; deterministic, no randomness).

200 items with an `outcome` (correct / incorrect / refused / error; `passed` is true exactly
for correct, an error record has status "error"). Each (baseline, candidate) cell of MOVES is
a block of items: 120 correct in both arms (6 regressions, 6 improvements: the pass rate is
60.0% in both), while refusals go from 12 to 35 (22 wrong answers became refusals). The
Stuart-Maxwell test rejects; McNemar on pass/fail sees nothing. One errored candidate record
has no outcome: the loader gives it its status, "error".
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
MOVES = [  # (baseline outcome, candidate outcome, items)
    ("correct", "correct", 114),
    ("correct", "incorrect", 4),
    ("correct", "refused", 2),
    ("incorrect", "correct", 5),
    ("incorrect", "incorrect", 33),
    ("incorrect", "refused", 22),
    ("refused", "refused", 10),
    ("refused", "incorrect", 2),
    ("error", "error", 6),
    ("error", "correct", 1),
    ("error", "refused", 1),
]


def record(item_id: str, outcome: str, keep_outcome: bool = True) -> dict:
    out: dict = {"item_id": item_id, "passed": outcome == "correct"}
    if outcome == "error":
        out.update(passed=None, status="error")
    if keep_outcome:
        out["outcome"] = outcome
    out["input"] = f"question {item_id}"
    out["output"] = f"answer ({outcome})"
    return out


def main() -> None:
    base, cand = [], []
    number = 0
    for before, after, count in MOVES:
        for _ in range(count):
            number += 1
            item_id = f"q{number:03d}"
            base.append(record(item_id, before))
            # the first errored candidate record leaves its outcome out (it becomes "error")
            keep = not (after == "error" and not any(r.get("status") for r in cand))
            cand.append(record(item_id, after, keep_outcome=keep))
    for name, rows in (("baseline.jsonl", base), ("candidate.jsonl", cand)):
        text = "".join(json.dumps(r) + "\n" for r in rows)
        (HERE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
