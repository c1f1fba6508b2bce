"""Build an lm-eval 0.4.0-0.4.2 samples file of ANOTHER task from the real copa file (see
README.txt beside this script): same doc_ids, same values, different documents and prompts.

Run from the repository root: python tests/data/lm_eval/other_task/make_other_task.py
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "v0.4.2" / "pretrained__hf-internal-testing__tiny-random-gpt2_copa.jsonl"
TARGET = HERE / "pretrained__hf-internal-testing__tiny-random-gpt2_wmdp_chem.jsonl"
CHOICES = ["Sodium chloride", "Ethanol", "Sulfuric acid", "Water"]


def edited(sample: dict) -> dict:
    """The sample with a made-up four-choice chemistry question (wmdp-style doc: question,
    choices, answer) in place of the copa document; the values are the real file's."""
    n = sample["doc_id"]
    question = f"Which of these compounds is listed as reagent number {n} in the exercise?"
    doc = {"answer": n % 4, "question": question, "choices": CHOICES}
    prompt = f"The following are multiple choice questions about chemistry.\n\n{question}\nAnswer:"
    arguments = [[prompt, f" {choice}"] for choice in CHOICES[: len(sample["arguments"])]]
    out = dict(sample)
    out["doc"] = doc
    out["target"] = n % 4
    out["arguments"] = arguments
    return out


def main() -> None:
    samples = json.loads(SOURCE.read_text(encoding="utf-8"))
    text = json.dumps([edited(s) for s in samples], indent=2, ensure_ascii=False)
    TARGET.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
