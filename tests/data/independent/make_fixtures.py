"""Writes the fixtures of the independent comparison (issue 17). Run from the repository root:
`.venv/bin/python tests/data/independent/make_fixtures.py`. Deterministic: no randomness.

- baseline.jsonl / candidate.jsonl: two runs of different items (ids share nothing), 48 of 80
  and 56 of 70 passing: Newcombe's (1998) Table II example (a), 56/70 - 48/80.
- baseline_scores.jsonl / candidate_scores.jsonl: graded scores on different items, 40 and 45.
- lm_eval/boolq/samples_boolq_*.jsonl and lm_eval/piqa/samples_piqa_*.jsonl: two lm-eval tasks
  whose doc_ids (0..39) coincide by accident: different datasets, never to be paired.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def verdicts(prefix: str, n: int, passes: int) -> list[dict]:
    # Passes spread through the file (item i passes when its share so far is below the rate).
    out, done = [], 0
    for i in range(n):
        passed = done * n < passes * (i + 1) and done < passes
        done += passed
        out.append({"item_id": f"{prefix}-{i:03d}", "passed": passed, "output": f"answer {i}"})
    return out


def scores(prefix: str, n: int, centre: float, spread: float) -> list[dict]:
    return [
        {
            "item_id": f"{prefix}-{i:03d}",
            "score": round(centre + spread * (((i * 37) % 17) - 8) / 8, 4),
        }
        for i in range(n)
    ]


def lm_eval(task: str, n: int, passes: int) -> list[dict]:
    out = []
    for i in range(n):
        doc = {"question": f"{task} question {i}", "label": i % 2}
        text = json.dumps(doc, sort_keys=True)
        acc = 1.0 if (i * 7) % n < passes else 0.0
        out.append(
            {
                "doc_id": i,
                "doc": doc,
                "target": str(doc["label"]),
                "arguments": {"gen_args_0": {"arg_0": doc["question"], "arg_1": " yes"}},
                "resps": [[["-1.0", "False"]]],
                "filtered_resps": [["-1.0", "False"]],
                "filter": "none",
                "metrics": ["acc"],
                "doc_hash": hashlib.sha256(text.encode()).hexdigest(),
                "prompt_hash": hashlib.sha256(doc["question"].encode()).hexdigest(),
                "target_hash": hashlib.sha256(str(doc["label"]).encode()).hexdigest(),
                "acc": acc,
            }
        )
    return out


def main() -> None:
    write(HERE / "baseline.jsonl", verdicts("b", 80, 48))
    write(HERE / "candidate.jsonl", verdicts("c", 70, 56))
    write(HERE / "baseline_scores.jsonl", scores("b", 40, 0.60, 0.2))
    write(HERE / "candidate_scores.jsonl", scores("c", 45, 0.72, 0.2))
    date = "2026-11-02T10-00-00.000000"
    write(HERE / "lm_eval" / "boolq" / f"samples_boolq_{date}.jsonl", lm_eval("boolq", 40, 26))
    write(HERE / "lm_eval" / "piqa" / f"samples_piqa_{date}.jsonl", lm_eval("piqa", 40, 31))


if __name__ == "__main__":
    main()
