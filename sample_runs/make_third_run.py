"""Write the demo's third run, sample_runs/candidate2.jsonl (PharmaBot V3), from the first two.

The story goes on from make_sample_runs.py: V2 answers directly but drops interaction warnings.
V3 keeps V2's prompt and adds one instruction, "always check the retrieved excerpt for drug
interactions and state any you find". It wins back six of the seven drug-interaction answers V2
broke (its answer is then the warning V1 gave), but the new rule makes it hedge on two dosage
questions both earlier versions answered, so against V1 it has 5 regressions and 21 improvements
(166 passes); against V2, 2 regressions and 6 improvements.

`evaltui sample_runs/baseline.jsonl sample_runs/candidate.jsonl sample_runs/candidate2.jsonl`
opens the three-run matrix. Deterministic and stdlib only: run it after make_sample_runs.py; it
rewrites byte-identical output and asserts the counts.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20250301
V3_RULE = (
    " Always check the retrieved excerpt for drug interactions and state any you find before "
    "anything else."
)
HEDGE = (
    " Dosing depends on your situation, so please confirm the amount with your pharmacist "
    "before taking it."
)
WON_BACK = 6  # of V2's drug-interaction regressions
NEW_REGRESSIONS = 2  # dosage answers both earlier versions got right


def _read(name: str) -> dict[str, dict]:
    with (HERE / name).open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return {row["item_id"]: row for row in rows}


def _with_v3_prompt(row: dict) -> dict:
    messages = [dict(m) for m in row["messages"]]
    messages[0]["content"] = messages[0]["content"] + V3_RULE
    return {**row, "messages": messages}


def _answer(row: dict, output: str, passed: bool, explanation: str) -> dict:
    messages = [dict(m) for m in row["messages"]]
    messages[-1]["content"] = output
    return {**row, "output": output, "passed": passed, "explanation": explanation,
            "messages": messages}  # fmt: skip


def build() -> list[dict]:
    base, v2 = _read("baseline.jsonl"), _read("candidate.jsonl")
    ids = sorted(base)
    interaction_regressions = [
        i for i in ids
        if base[i]["slice"] == "drug_interactions" and base[i]["passed"] and not v2[i]["passed"]
    ]  # fmt: skip
    dosage_both_pass = [
        i for i in ids
        if base[i]["slice"] == "dosage" and base[i]["passed"] and v2[i]["passed"]
        and v2[i]["status"] == "ok"
    ]  # fmt: skip
    rng = random.Random(SEED)
    won_back = set(rng.sample(interaction_regressions, WON_BACK))
    hedged = set(rng.sample(dosage_both_pass, NEW_REGRESSIONS))
    out = []
    for item_id in ids:
        row = _with_v3_prompt(v2[item_id])
        if item_id in won_back:
            row = _answer(row, base[item_id]["output"], True, base[item_id]["explanation"])
        elif item_id in hedged:
            row = _answer(
                row,
                v2[item_id]["output"] + HEDGE,
                False,
                "Gives the dose but then tells the customer to confirm it elsewhere; the "
                "reference answer is definitive, so the hedge fails the rubric.",
            )
        out.append(row)
    rng.shuffle(out)
    return out


def _check(rows: list[dict]) -> None:
    base, v2 = _read("baseline.jsonl"), _read("candidate.jsonl")
    v3 = {r["item_id"]: r for r in rows}

    def table(a: dict, b: dict) -> tuple[int, int]:
        regressions = sum(a[i]["passed"] and not b[i]["passed"] for i in a)
        improvements = sum(not a[i]["passed"] and b[i]["passed"] for i in a)
        return regressions, improvements

    assert table(base, v3) == (5, 21), table(base, v3)
    assert table(v2, v3) == (2, 6), table(v2, v3)
    assert sum(r["passed"] for r in rows) == 166


def main() -> None:
    rows = build()
    _check(rows)
    with (HERE / "candidate2.jsonl").open("w", encoding="utf-8", newline="\n") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print("wrote candidate2.jsonl: 166 of 200 pass; vs V1 5 regressions, 21 improvements")


if __name__ == "__main__":
    main()
