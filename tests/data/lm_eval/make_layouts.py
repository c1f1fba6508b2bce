"""Rebuild the real copa pair in the layouts other lm-eval versions wrote (see README.txt).

Run from this folder: python make_layouts.py. Reads the two real JSON Lines files and writes:

- v0.4.2/pretrained__<model>_copa.jsonl: lm-eval 0.4.0-0.4.2's layout. `__main__.py` of those
  releases wrote `json.dumps(samples[task], indent=2, default=..., ensure_ascii=False)` to
  `<output_path>/<re.sub("/|=", "__", model_args)>_<task>.jsonl`; each sample was
  `{doc_id, doc, target, arguments: [req.args ...], resps: [req.resps ...], filtered_resps:
  [...], <metric>: value}` (evaluator.py): no `filter`, `metrics`, or hashes, arguments as
  lists, response values as numbers and booleans.
- repeated/<model>/samples_copa_<date>.jsonl: lm-eval >= 0.4.3's file after the same run was
  written into it again (`EvaluationTracker.save_results_samples` opens it with mode "a"):
  the real bytes twice (tiny-gpt2) and three times (tiny-random-gpt2).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
REAL = {
    "sshleifer/tiny-gpt2": HERE
    / "sshleifer__tiny-gpt2"
    / "samples_copa_2026-10-01T23-15-32.942677.jsonl",
    "hf-internal-testing/tiny-random-gpt2": HERE
    / "hf-internal-testing__tiny-random-gpt2"
    / "samples_copa_2026-10-01T23-15-52.736695.jsonl",
}


def old_sample(new: dict) -> dict:
    arguments = [list(request.values()) for request in new["arguments"].values()]

    def value(text):
        if text in ("True", "False"):
            return text == "True"
        return float(text) if isinstance(text, str) else text

    resps = [[[value(v) for v in pair] for pair in resp] for resp in new["resps"]]
    filtered = [[value(v) for v in pair] for pair in new["filtered_resps"]]
    sample = {
        "doc_id": new["doc_id"],
        "doc": new["doc"],
        "target": new["target"],
        "arguments": arguments,
        "resps": resps,
        "filtered_resps": filtered,
    }
    for metric in new["metrics"]:
        sample[metric] = new[metric]
    return sample


def main() -> None:
    for copies, (model, path) in zip((2, 3), REAL.items(), strict=True):
        samples = [old_sample(json.loads(line)) for line in path.read_text().splitlines()]
        name = "pretrained__" + model.replace("/", "__") + "_copa.jsonl"
        old = HERE / "v0.4.2" / name
        old.parent.mkdir(exist_ok=True)
        old.write_text(json.dumps(samples, indent=2, ensure_ascii=False), encoding="utf-8")
        repeated = HERE / "repeated" / path.parent.name / path.name
        repeated.parent.mkdir(parents=True, exist_ok=True)
        repeated.write_bytes(path.read_bytes() * copies)


if __name__ == "__main__":
    main()
