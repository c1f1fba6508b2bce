"""Variants of the real popularity pair for cases no public log at hand shows (README.txt).

Run from this folder: python make_variants.py. Each variant is a real log with its scores or
errors rewritten in the shapes Inspect's own models define (src/inspect_ai/log/_log.py:
EvalSample.scores / EvalSampleSummary.scores are `dict[str, Score]`, `Score.value` is
`str | int | float | bool | list | dict[str, str | int | float | bool | None]`; an errored
sample has `error` (an `EvalError` {message, traceback, traceback_ansi} in the sample, its
message in the summary) and no scores; a run that failed has status "error" and an `error`).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
GPT5 = DATA / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CLAUDE = DATA / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"
SAMPLE_ERROR = {
    "message": "RateLimitError('Error code: 429 - rate limit exceeded')",
    "traceback": "Traceback (most recent call last):\n  ...\nopenai.RateLimitError: 429\n",
    "traceback_ansi": "Traceback (most recent call last):\n  ...\n",
}
NUMBER = {"C": 1.0, "I": 0.0}


def rewrite(
    source: Path,
    dest: Path,
    *,
    sample: Callable[[dict], dict],
    summary: Callable[[dict], dict],
    header: Callable[[dict], dict],
) -> None:
    """Copy `source` to `dest`, passing each sample, summary and header/start member through."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = json.loads(src.read(info))
            if info.filename.startswith("samples/"):
                data = sample(data)
            elif info.filename == "summaries.json" or info.filename.startswith(
                "_journal/summaries/"
            ):
                data = [summary(s) for s in data]
            elif info.filename in ("header.json", "_journal/start.json"):
                data = header(data)
            out.writestr(info, json.dumps(data))


def errored_sample(sample: dict) -> dict:
    out = {k: v for k, v in sample.items() if k != "scores"}
    out["error"] = SAMPLE_ERROR
    out["output"] = {"model": "openai/gpt-5", "choices": [], "completion": ""}
    return out


def errored_summary(summary: dict) -> dict:
    out = {k: v for k, v in summary.items() if k != "scores"}
    out["error"] = SAMPLE_ERROR["message"]
    return out


def crashed_header(header: dict) -> dict:
    out = dict(header)
    if "status" in out:
        out["status"] = "error"
        out["error"] = SAMPLE_ERROR
        out.pop("results", None)
    return out


def with_scores(change: Callable[[dict], dict]) -> Callable[[dict], dict]:
    def apply(sample: dict) -> dict:
        return {**sample, "scores": change(sample["scores"])} if sample.get("scores") else sample

    return apply


def two_scorers(scores: dict) -> dict:
    match = scores["match"]
    return {**scores, "includes": {**match, "explanation": "includes: " + str(match["answer"])}}


def numeric(scores: dict) -> dict:
    return {"match": {**scores["match"], "value": NUMBER[scores["match"]["value"]]}}


def dict_valued(scores: dict) -> dict:
    """A scorer returning a dict of values (SciCode's scorer returns {"Problem Correctness":
    ..., "Subproblem Correctness": ...}): a verdict key and a number key."""
    value = scores["match"]["value"]
    return {
        "scicode_scorer": {
            "value": {
                "Problem Correctness": NUMBER[value],
                "Subproblem Correctness": 0.5 + NUMBER[value] / 2,
            },
            "answer": scores["match"].get("answer"),
            "explanation": "per-key values",
        }
    }


def dict_header(header: dict) -> dict:
    out = json.loads(json.dumps(header).replace('"match"', '"scicode_scorer"'))
    return out


def same(x: dict) -> dict:
    return x


def summary_says_correct(summary: dict) -> dict:
    """Sample id 5 (all five epochs "I" in the real log) made "C" in its SUMMARY only: the
    summaries disagree with the samples and with the header's accuracy (0.6 -> 0.7)."""
    if str(summary.get("id")) != "5":
        return summary
    scores = summary["scores"]
    return {**summary, "scores": {**scores, "match": {**scores["match"], "value": "C"}}}


def summaries_disagree() -> None:
    rewrite(
        GPT5,
        HERE / "gpt5_summaries_disagree.eval",
        sample=same,
        summary=summary_says_correct,
        header=same,
    )


def main() -> None:
    rewrite(
        GPT5,
        HERE / "crashed_gpt5_all_errored.eval",
        sample=errored_sample,
        summary=errored_summary,
        header=crashed_header,
    )
    rewrite(
        CLAUDE,
        HERE / "claude_two_scorers.eval",
        sample=with_scores(two_scorers),
        summary=with_scores(two_scorers),
        header=same,
    )
    rewrite(
        CLAUDE,
        HERE / "claude_numeric.eval",
        sample=with_scores(numeric),
        summary=with_scores(numeric),
        header=same,
    )
    for source, name in ((GPT5, "gpt5_dict_scores.eval"), (CLAUDE, "claude_dict_scores.eval")):
        rewrite(
            source,
            HERE / name,
            sample=with_scores(dict_valued),
            summary=with_scores(dict_valued),
            header=dict_header,
        )
    summaries_disagree()


if __name__ == "__main__":
    main()
