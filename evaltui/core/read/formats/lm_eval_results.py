"""The results file lm-eval writes beside the samples, and whether more of a metric is better.

`results_<date>.json` names the model, the harness and task versions, the dataset and each
metric's direction; it is read for metadata only (a missing or unreadable one costs nothing but
those lines). The direction decides which items are regressions, so where it comes from is
stated, and a lower-is-better metric is warned about.
"""

from __future__ import annotations

import math
from pathlib import Path

from evaltui.core.read.formats.jsontext import DuplicateKey, loads

DIRECTION_PREFIX = "higher_is_better."  # the results file's per-metric directions, in passing
# lm-eval's `perplexity` (loglikelihood tasks) is declared lower-is-better for its aggregate,
# exp(-mean ll), but each record holds the log-likelihood itself, for which higher is better.
PER_RECORD_LOGLIKELIHOOD = frozenset({"perplexity"})
MAX_RESULTS_BYTES = 64 * 1024 * 1024  # the sibling results_<date>.json, read for metadata only
MAX_METADATA_CHARS = 4000


def metric_direction(
    path: Path, metric: str, flag: bool | None, meta: dict[str, str]
) -> dict[str, str]:
    """Whether more of `metric` is better: `--higher-is-better` when given, else what the
    results file beside the samples declares; stated in the metadata, and warned about when
    lower is better, since the list of regressions turns on it."""
    declared = meta.get(f"{DIRECTION_PREFIX}{metric}")
    if flag is not None:
        higher, source = flag, "--higher-is-better"
        if declared is not None and (declared == "true") != flag:
            source += f" (the results file says {declared})"
    elif metric in PER_RECORD_LOGLIKELIHOOD:
        higher, source = True, f"per-record {metric} values are log-likelihoods"
    elif declared is not None:
        higher, source = declared == "true", meta.get("results_file", "results file")
    else:  # the analysis infers it from the name, or gives no directional verdict
        return {"higher_is_better": "unknown"}
    out = {"higher_is_better": "true" if higher else "false", "direction_source": source}
    if not higher:
        out["warning.direction"] = (
            f"{path.name}: {metric} is lower-is-better ({source}): an item whose {metric} rose "
            f"is a regression; the mean delta is candidate minus baseline, so below zero is better"
        )
    return out


def results_metadata(results_path: Path, task: str) -> dict[str, str]:
    """Model and versions from the results file lm-eval writes beside the samples, if any."""
    try:
        if not results_path.is_file() or results_path.stat().st_size > MAX_RESULTS_BYTES:
            return {}
        results = loads(results_path.read_bytes())
    except DuplicateKey as exc:  # the directions in it would be one reader's guess
        return {"results_file": f"{results_path.name} (unreadable: {exc}; ignored)"}
    except (OSError, ValueError, RecursionError):
        return {"results_file": f"{results_path.name} (unreadable, ignored)"}
    if not isinstance(results, dict):
        return {}
    meta = {"results_file": results_path.name}
    if isinstance(results.get("model_name"), str) and results["model_name"]:
        meta["model"] = results["model_name"]
        meta["model_source"] = results_path.name
    for key, target in (("lm_eval_version", "harness_version"), ("git_hash", "git_hash")):
        if isinstance(results.get(key), str) and results[key]:
            meta[target] = results[key]
    date = results.get("date")  # a Unix time (UTC), where the date id is local time
    if isinstance(date, int | float) and not isinstance(date, bool) and math.isfinite(date):
        meta["created"] = repr(float(date))
    config = results.get("config")
    if isinstance(config, dict):
        for key in ("model", "model_args"):
            if isinstance(config.get(key), str) and config[key]:
                meta[f"config_{key}"] = config[key][:MAX_METADATA_CHARS]
    versions = results.get("versions")
    if isinstance(versions, dict) and task in versions:
        meta["task_version"] = str(versions[task])
    directions = results.get("higher_is_better")
    if isinstance(directions, dict) and isinstance(directions.get(task), dict):
        for name, higher in directions[task].items():
            if isinstance(higher, bool):  # lm-eval writes null when subtasks disagree
                meta[f"{DIRECTION_PREFIX}{name}"] = "true" if higher else "false"
    n_shot = results.get("n-shot")
    if isinstance(n_shot, dict) and task in n_shot:
        meta["n_shot"] = str(n_shot[task])
    configs = results.get("configs")
    if isinstance(configs, dict) and isinstance(configs.get(task), dict):
        task_config = configs[task]
        parts = [
            str(task_config[k]) for k in ("dataset_path", "dataset_name") if task_config.get(k)
        ]
        if parts:
            meta["dataset"] = "/".join(parts)
    return meta
