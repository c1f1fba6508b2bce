"""Write sample_runs/preferences.jsonl, the demo input of `evaltui prefer`.

The story continues the demo pair (sample_runs/README.md): PharmaBot V1 is in production, V2
changes the system prompt ("lead with the direct answer"), and V3 is a cheaper model behind V2's
prompt. A pairwise LLM judge read the three systems' answers to the same 200 questions two at a
time and said which answer is better, or that they are equally good: 600 judgments, one per
question and pair. The judge sees the two answers in a random order, so `system_a` is not always
the older system; `preference` names the position it preferred (A, B or tie).

Expected counts (the script asserts them after writing):

| pair (B vs A) | B better | A better | ties |
|---|---:|---:|---:|
| pharmbot-v2 vs pharmbot-v1 | 92 | 61 | 47 |
| pharmbot-v3 vs pharmbot-v1 | 55 | 90 | 55 |
| pharmbot-v3 vs pharmbot-v2 | 50 | 100 | 50 |

So V2 beats V1 (win rate 57.8% with ties counted half), and V3 loses to both:
`evaltui prefer sample_runs/preferences.jsonl` is BLOCKED (V3 regressed), and
`... --candidate pharmbot-v2` is READY TO APPROVE.

Deterministic and stdlib only: `python sample_runs/make_sample_preferences.py` rewrites a
byte-identical file from any working directory, re-reads it, asserts the counts and prints them.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

SEED = 20250215
HERE = Path(__file__).resolve().parent
OUT = HERE / "preferences.jsonl"
ITEMS = tuple(f"pharm-{i:04d}" for i in range(1, 201))
V1, V2, V3 = "pharmbot-v1", "pharmbot-v2", "pharmbot-v3"
SYSTEMS = (V1, V2, V3)
# (older, newer): (newer better, older better, ties)
EXPECTED = {
    (V1, V2): (92, 61, 47),
    (V1, V3): (55, 90, 55),
    (V2, V3): (50, 100, 50),
}
FIELDS = ("item_id", "system_a", "system_b", "preference")


def outcomes(rng: random.Random, newer: int, older: int, ties: int) -> list[str]:
    """Who won each of the 200 items, as 'newer', 'older' or 'tie', shuffled."""
    pool = ["newer"] * newer + ["older"] * older + ["tie"] * ties
    assert len(pool) == len(ITEMS)
    rng.shuffle(pool)
    return pool


def build(rng: random.Random) -> list[dict[str, str]]:
    per_pair = {pair: outcomes(rng, *counts) for pair, counts in EXPECTED.items()}
    records = []
    for index, item in enumerate(ITEMS):
        for (older, newer), winners in per_pair.items():
            swapped = rng.random() < 0.5  # the judge saw the newer answer first
            first, second = (newer, older) if swapped else (older, newer)
            won = winners[index]
            if won == "tie":
                preference = "tie"
            else:
                winner = newer if won == "newer" else older
                preference = "A" if winner == first else "B"
            records.append(
                {"item_id": item, "system_a": first, "system_b": second, "preference": preference}
            )
    return records


def write_jsonl(path: Path, records: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def check(path: Path) -> Counter[tuple[str, str, str]]:
    """Re-read the file and count (older, newer, who won) per pair."""
    counts: Counter[tuple[str, str, str]] = Counter()
    seen: set[tuple[str, frozenset[str]]] = set()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            assert tuple(record) == FIELDS, record
            first, second = record["system_a"], record["system_b"]
            key = (record["item_id"], frozenset((first, second)))
            assert key not in seen, key
            seen.add(key)
            older, newer = sorted((first, second), key=SYSTEMS.index)
            if record["preference"] == "tie":
                won = "tie"
            else:
                winner = first if record["preference"] == "A" else second
                won = "newer" if winner == newer else "older"
            counts[(older, newer, won)] += 1
    assert len(seen) == len(ITEMS) * len(EXPECTED)
    for (older, newer), (n_newer, n_older, n_ties) in EXPECTED.items():
        got = (counts[(older, newer, "newer")], counts[(older, newer, "older")])
        got += (counts[(older, newer, "tie")],)
        assert got == (n_newer, n_older, n_ties), (older, newer, got)
    return counts


def main() -> None:
    write_jsonl(OUT, build(random.Random(SEED)))
    counts = check(OUT)
    print(f"wrote {OUT.name}: {sum(counts.values())} judgments")
    for older, newer in EXPECTED:
        n, o, t = (counts[(older, newer, w)] for w in ("newer", "older", "tie"))
        print(f"  {newer} vs {older}: {newer} better {n}, {older} better {o}, ties {t}")


if __name__ == "__main__":
    main()
