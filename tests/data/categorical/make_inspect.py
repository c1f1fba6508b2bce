"""Makes inspect_letters.json: Inspect's real .json log of the "popularity" task
(../inspect_ai/2025-05-12T20-28-13-04-00_popularity.json, 3 samples scored C, C, I by `match`)
with the scores rewritten so the letters the pass/fail mapping folds away show up as outcomes:
sample 1 scored "P" (partial), sample 2 "N" (no answer), sample 3 keeps its "I" (incorrect).
The P makes the run graded (C=1, I=0, P=0.5, N=0); the letters stay as each item's outcome.
Run from this folder: python make_inspect.py.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
SOURCE = HERE.parent / "inspect_ai" / "2025-05-12T20-28-13-04-00_popularity.json"


def main() -> None:
    log = json.loads(SOURCE.read_text(encoding="utf-8"))
    first, second, third = log["samples"]
    first["scores"]["match"]["value"] = "P"
    second["scores"]["match"]["value"] = "N"
    assert third["scores"]["match"]["value"] == "I"
    (HERE / "inspect_letters.json").write_text(json.dumps(log, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
