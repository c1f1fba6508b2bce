"""Rebuild the real copa pair in the layouts other lm-eval versions wrote (see README.txt).

Run from this folder: python make_layouts.py. Reads the two real JSON Lines files and writes:

- v0.4.2/pretrained__<model>_copa.jsonl: lm-eval 0.4.0-0.4.2's layout. `__main__.py` of those
  releases wrote `json.dumps(samples[task], indent=2, default=..., ensure_ascii=False)` to
  `<output_path>/<re.sub("/|=", "__", model_args)>_<task>.jsonl`; each sample was
  `{doc_id, doc, target, arguments: [req.args ...], resps: [req.resps ...], filtered_resps:
  [...], <metric>: value}` (evaluator.py): no `filter`, `metrics`, or hashes, arguments as
  lists, response values as numbers and booleans.
- results/<model>/: the real samples file with a `results_<date>.json` beside it in the shape
  lm-eval >= 0.4.3 writes (`EvaluationTracker.save_results_aggregated`: results, group_subtasks,
  configs, versions, n-shot, higher_is_better, n-samples, config, git_hash, date, model_name...);
  the numbers are the real file's acc.
- mae/<model>/: a custom regression task `copa_distance` (metric `mae`, declared
  `higher_is_better: false` in its metric_list, as a task YAML may) in the >= 0.4.3 layout, one
  per model, with results files beside them. The mae values are made up from the real
  loglikelihoods: |ll(correct choice) - max ll| / 10, rounded to 3 places.
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


def results_file(model: str, date: str, task: str, metric: str, value: float, higher: bool) -> dict:
    return {
        "results": {task: {"alias": task, f"{metric},none": value, f"{metric}_stderr,none": 0.1}},
        "group_subtasks": {task: []},
        "configs": {task: {"task": task, "dataset_path": "super_glue", "dataset_name": "copa"}},
        "versions": {task: 1.0},
        "n-shot": {task: 0},
        "higher_is_better": {task: {metric: higher}},
        "n-samples": {task: {"original": 100, "effective": 20}},
        "config": {"model": "hf", "model_args": f"pretrained={model}", "limit": 20.0},
        "git_hash": "5a6f3f4",
        "date": 1790000000.0,
        "lm_eval_version": "0.4.8",
        "model_name": model,
        "model_name_sanitized": model.replace("/", "__"),
    }


def distance(sample: dict) -> float:
    lls = [float(pair[0]) for pair in sample["filtered_resps"]]
    return round(abs(lls[sample["doc"]["label"]] - max(lls)) / 10, 3)


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")


def main() -> None:
    for model, path in REAL.items():
        date = path.stem.removeprefix("samples_copa_")
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        acc = sum(r["acc"] for r in rows) / len(rows)
        folder = HERE / "results" / path.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / path.name).write_bytes(path.read_bytes())
        write_json(
            folder / f"results_{date}.json", results_file(model, date, "copa", "acc", acc, True)
        )
        mae_rows = []
        for row in rows:
            row = {k: v for k, v in row.items() if k != "acc"}
            row["metrics"] = ["mae"]
            row["mae"] = distance(row)
            mae_rows.append(row)
        mae = HERE / "mae" / path.parent.name
        mae.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in mae_rows)
        (mae / f"samples_copa_distance_{date}.jsonl").write_text(text, encoding="utf-8")
        mean = sum(r["mae"] for r in mae_rows) / len(mae_rows)
        write_json(
            mae / f"results_{date}.json",
            results_file(model, date, "copa_distance", "mae", round(mean, 4), False),
        )

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
