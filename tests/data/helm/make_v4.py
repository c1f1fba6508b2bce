"""Rebuild the two hand-built HELM runs as a suite v4 `benchmark_output` tree (README.md).

Run from this folder: python make_v4.py. Writes benchmark_output/runs/v4/<run>/ for each run:

- per_instance_stats.json: `List[PerInstanceStats]` as `helm-run` writes it (runner.py,
  `write(per_instance_stats_path, to_json(...))`: `json.dumps(asdict_without_nones(...),
  indent=2)`): {instance_id, perturbation?, train_trial_index, stats: [Stat]}, each Stat
  {name: MetricName {name, split, perturbation?}, count, sum, sum_squared, min, max, mean,
  variance, stddev}; the values are the display predictions' stats.
- display_predictions.json: as in suites v3/v4, whose run groups show no correctness metric:
  the stats keep only the bookkeeping counts (num_prompt_tokens ...), the exact_match family
  is in per_instance_stats.json only.
- display_requests.json, instances.json, run_spec.json: copied.
- stats.json: the run's aggregate `List[Stat]` (one per metric and split), for the refusal.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = {
    "mmlu-anatomy-pythia-1b-v0": "mmlu_subject=anatomy_model=eleutherai_pythia-1b-v0",
    "mmlu-anatomy-pythia-6.9b": "mmlu_subject=anatomy_model=eleutherai_pythia-6.9b",
}
CORRECTNESS = ("exact_match", "quasi_exact_match", "prefix_exact_match", "quasi_prefix_exact_match")


def stat(name: dict, value: float) -> dict:
    return {
        "name": name,
        "count": 1,
        "sum": value,
        "sum_squared": value * value,
        "min": value,
        "max": value,
        "mean": value,
        "variance": 0.0,
        "stddev": 0.0,
    }


def main() -> None:
    for source, run in RUNS.items():
        src, dest = HERE / source, HERE / "benchmark_output" / "runs" / "v4" / run
        dest.mkdir(parents=True, exist_ok=True)
        predictions = json.loads((src / "display_predictions.json").read_text())
        per_instance, totals = [], {}
        for prediction in predictions:
            entry = {"instance_id": prediction["instance_id"]}
            name_extra = {}
            if "perturbation" in prediction:
                entry["perturbation"] = prediction["perturbation"]
                name_extra = {"perturbation": prediction["perturbation"]}
            entry["train_trial_index"] = prediction["train_trial_index"]
            entry["stats"] = [
                stat({"name": key, "split": "test", **name_extra}, value)
                for key, value in prediction["stats"].items()
            ]
            per_instance.append(entry)
            for key, value in prediction["stats"].items():
                totals.setdefault(key, []).append(value)
            prediction["stats"] = {
                k: v for k, v in prediction["stats"].items() if k not in CORRECTNESS
            }
        aggregate = []
        for key, values in totals.items():
            mean = sum(values) / len(values)
            aggregate.append(
                {
                    "name": {"name": key, "split": "test"},
                    "count": len(values),
                    "sum": sum(values),
                    "sum_squared": sum(v * v for v in values),
                    "min": min(values),
                    "max": max(values),
                    "mean": mean,
                }
            )
        for name, data in (
            ("per_instance_stats.json", per_instance),
            ("display_predictions.json", predictions),
            ("stats.json", aggregate),
        ):
            (dest / name).write_text(json.dumps(data, indent=2))
        for name in ("display_requests.json", "instances.json", "run_spec.json"):
            shutil.copy(src / name, dest / name)


if __name__ == "__main__":
    main()
