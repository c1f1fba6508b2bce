"""Generate a realistic baseline/candidate run pair of any size, deterministically (not a test).

    python bench/generate.py --items 1000000 --out /tmp/evaltui-bench/1m --format both

writes DIR/baseline.jsonl and DIR/candidate.jsonl (and/or .parquet) in the evaltui run format:

- ``item_id`` ``item-0000001``..., ``passed`` true/false (about 75% baseline pass rate and 15%
  discordant items: 5% regressions, 10% improvements, so at 1M items the improvement list holds
  about 100,000 rows), ``slice`` (8 slices, each with its own pass rate), ``cluster`` (about
  n/10 clusters, ``kb/doc-000123.md``, with a per-cluster effect), ``status`` (0.5% of records
  ``error``/``timeout``, whose verdict is null), ``score:judge`` 1-5 with ``--graded``, ``epoch``
  with ``--epochs K`` (K records per item, each verdict drawn around the item's own pass rate);
- ``input``, ``output``, ``target``, ``explanation`` and ``messages`` (2-4 turns: user/assistant,
  system/user/assistant, or user/assistant/user/assistant) whose text adds up to a total drawn
  uniformly between ``--transcript-bytes MIN MAX`` (default 200-4000, mean about 2 KB) per
  record. Text is windows of a corpus built from word lists (with some non-ASCII words), so it
  compresses and parses like prose, not like random bytes. The candidate asks the same questions
  (same input and target) and answers differently.

Everything per item is drawn up front with numpy from ``--seed``; the text is cut per chunk of
``--chunk`` records and written with polars (``write_ndjson`` appended chunk by chunk; Parquet as
chunk files streamed into one file with ``sink_parquet``), so memory stays bounded at any size.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

SLICES = (
    "dosage",
    "drug_interactions",
    "prescriptions",
    "side_effects",
    "shipping",
    "billing",
    "insurance",
    "general",
)
SLICE_OFFSET = np.array([0.05, -0.12, -0.04, 0.03, 0.10, 0.06, -0.05, -0.03])
BASE_PASS = 0.75
REGRESSION_RATE = 0.05  # of all items: baseline pass, candidate fail
IMPROVEMENT_RATE = 0.10  # of all items: baseline fail, candidate pass
ERROR_RATE, TIMEOUT_RATE = 0.003, 0.002

WORD_TEXT = """
the a an of to and in for on with at by from as is are was be can may should will not your
patient dose doses dosage tablet tablets capsule mg ml daily twice morning evening food water
take taking taken stop start prescription refill pharmacy pharmacist doctor prescriber order
shipping delivery package tracking address insurance plan coverage copay claim billing invoice
refund payment card account interaction interactions warfarin ibuprofen acetaminophen
amoxicillin metformin lisinopril atorvastatin sertraline omeprazole levothyroxine alcohol
grapefruit vitamin supplement side effect effects nausea headache dizziness rash swelling
allergy allergic reaction kidney liver blood pressure sugar heart pregnancy breastfeeding child
children adult elderly weight hours days weeks minutes within after before during between
usually generally typically sometimes rarely please contact support team customer document
knowledge base source section policy according guideline label instructions recommend
recommended advise advised safe unsafe risk risks increase decrease level levels monitor test
results question answer information details check confirm verify request requests available
unavailable schedule controlled substance transfer new electronic paper form signature
naïve café µg – — ≤ ≥ Zürich
"""
WORDS = WORD_TEXT.split()


@dataclass(frozen=True)
class Arm:
    """Everything drawn for one arm's records; text is cut from the corpus per chunk."""

    passed: np.ndarray  # bool, per record
    errored: np.ndarray  # int8 per record: 0 ok, 1 error, 2 timeout
    score: np.ndarray  # float64 per record
    turns: np.ndarray  # int per record, 2..4
    lengths: dict[str, np.ndarray]  # text field -> length in characters, per record
    starts: dict[str, np.ndarray]  # text field -> corpus offset, per record


def build_corpus(rng: np.random.Generator, chars: int) -> tuple[str, np.ndarray]:
    """Sentences of 6-18 words; returns the text and the offsets where words begin."""
    words = np.array(WORDS)
    n_words = chars // 6
    picks = words[rng.integers(0, len(words), n_words)].tolist()
    sentence_ends = set(np.cumsum(rng.integers(6, 19, n_words // 6)).tolist())
    out: list[str] = []
    capital = True
    for i, word in enumerate(picks):
        if capital:
            word = word[:1].upper() + word[1:]
            capital = False
        if i in sentence_ends:
            word += "?" if i % 7 == 0 else "."
            capital = True
        out.append(word)
    text = " ".join(out)
    starts = np.flatnonzero(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) == 32) + 1
    return text, starts


def draw_item_design(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """Per item: slice, cluster and the designed baseline/candidate verdicts."""
    n_clusters = max(n // 10, 1)
    slice_code = rng.integers(0, len(SLICES), n)
    cluster_code = rng.integers(0, n_clusters, n)
    cluster_effect = rng.normal(0.0, 0.08, n_clusters)
    effect = SLICE_OFFSET[slice_code] + cluster_effect[cluster_code]
    p_base = np.clip(BASE_PASS + effect, 0.02, 0.98)
    base = rng.random(n) < p_base
    # Conditional flip rates that give the designed regression / improvement shares overall.
    p_regress = REGRESSION_RATE / BASE_PASS
    p_improve = IMPROVEMENT_RATE / (1.0 - BASE_PASS)
    u = rng.random(n)
    cand = np.where(base, u >= p_regress, u < p_improve)
    return {"slice": slice_code, "cluster": cluster_code, "base": base, "cand": cand}


def draw_arm(
    rng: np.random.Generator,
    verdict: np.ndarray,
    epochs: int,
    size_range: tuple[int, int],
    corpus_starts: np.ndarray,
    corpus_len: int,
    shared: dict[str, np.ndarray] | None,
) -> Arm:
    n_items = verdict.size
    n = n_items * epochs
    item = np.arange(n) // epochs
    passed = verdict.copy()
    if epochs > 1:  # each epoch's verdict drawn around the item's designed outcome
        passed = rng.random(n) < np.where(verdict[item], 0.9, 0.15)
    u = rng.random(n)
    errored = np.where(u < ERROR_RATE, 1, np.where(u < ERROR_RATE + TIMEOUT_RATE, 2, 0))
    errored = errored.astype(np.int8)
    score = np.where(passed, rng.integers(4, 6, n), rng.integers(1, 4, n)).astype(np.float64)
    score[errored > 0] = 1.0
    turns = rng.integers(2, 5, n)
    lo, hi = size_range
    total = rng.integers(lo, hi + 1, n)
    lengths = {
        "input": np.maximum(total * 8 // 100, 12),
        "target": np.maximum(total * 6 // 100, 8),
        "output": np.maximum(total * 25 // 100, 12),
        "explanation": np.maximum(total * 5 // 100, 8),
    }
    if shared is not None:  # the candidate answers the same questions
        lengths["input"] = shared["input_len"][item]
        lengths["target"] = shared["target_len"][item]
    used = 2 * lengths["input"] + 2 * lengths["output"] + lengths["target"] + lengths["explanation"]
    rest = np.maximum(total - used, 16)
    lengths["context_a"] = np.where(turns == 4, rest // 2, rest)
    lengths["context_b"] = np.where(turns == 4, rest - rest // 2, 0)
    starts = {}
    for name, length in lengths.items():
        # A window that starts on a word; the corpus is far longer than any window.
        limit = np.searchsorted(corpus_starts, corpus_len - int(length.max()) - 1)
        starts[name] = corpus_starts[rng.integers(0, max(limit, 1), n)]
    if shared is not None:
        starts["input"] = shared["input_start"][item]
        starts["target"] = shared["target_start"][item]
    return Arm(passed, errored, score, turns, lengths, starts)


def cut(corpus: str, starts: np.ndarray, lengths: np.ndarray) -> list[str]:
    return [corpus[s : s + n] for s, n in zip(starts.tolist(), lengths.tolist(), strict=True)]


def chunk_frame(
    corpus: str,
    arm: Arm,
    design: dict[str, np.ndarray],
    rows: np.ndarray,
    epochs: int,
    graded: bool,
) -> pl.DataFrame:
    """The records `rows` (record indices) of one arm as a DataFrame in file column order."""
    item = rows // epochs
    status = np.array(["ok", "error", "timeout"])[arm.errored[rows]]
    text = {
        name: cut(corpus, arm.starts[name][rows], arm.lengths[name][rows]) for name in arm.starts
    }
    text["input"] = [t.rstrip(" .?") + "?" for t in text["input"]]
    df = pl.DataFrame(
        {
            "_item": item + 1,
            "passed": arm.passed[rows],
            "_errored": arm.errored[rows] > 0,
            "status": status,
            "slice": np.array(SLICES)[design["slice"][item]],
            "_cluster": design["cluster"][item],
            "score:judge": arm.score[rows],
            "epoch": rows % epochs + 1,
            "turns": arm.turns[rows],
            **text,
        }
    )
    turns = pl.col("turns")
    message = pl.struct  # a turn: {role, content}
    slots = [
        pl.when(turns == 3)
        .then(message(role=pl.lit("system"), content=pl.col("context_a")))
        .when(turns == 4)
        .then(message(role=pl.lit("user"), content=pl.col("context_a"))),
        pl.when(turns == 4).then(message(role=pl.lit("assistant"), content=pl.col("context_b"))),
        message(
            role=pl.lit("user"),
            content=pl.when(turns == 2)
            .then(pl.concat_str(pl.col("context_a"), pl.lit("\n\n"), pl.col("input")))
            .otherwise(pl.col("input")),
        ),
        message(role=pl.lit("assistant"), content=pl.col("output")),
    ]
    columns = [
        pl.format("item-{}", pl.col("_item").cast(pl.String).str.zfill(7)).alias("item_id"),
        pl.when(pl.col("_errored")).then(None).otherwise(pl.col("passed")).alias("passed"),
        "status",
        "slice",
        pl.format("kb/doc-{}.md", pl.col("_cluster").cast(pl.String).str.zfill(6)).alias("cluster"),
    ]
    if graded:
        columns.append("score:judge")
    if epochs > 1:
        columns.append("epoch")
    columns += [
        "input",
        "output",
        "target",
        "explanation",
        pl.concat_list(slots).list.drop_nulls().alias("messages"),
    ]
    return df.select(columns)


def generate(
    n_items: int,
    out: Path,
    formats: tuple[str, ...],
    size_range: tuple[int, int] = (200, 4000),
    epochs: int = 1,
    graded: bool = False,
    seed: int = 0,
    chunk: int = 50_000,
    shuffle_candidate: bool = False,
    row_group_size: int | None = None,
    quiet: bool = False,
) -> dict[str, int]:
    """Write the pair; return {path: bytes}."""
    if n_items < 1 or epochs < 1:
        raise SystemExit("generate: --items and --epochs must be at least 1")
    lo, hi = size_range
    if not 0 < lo <= hi:
        raise SystemExit("generate: --transcript-bytes needs 0 < MIN <= MAX")
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    corpus, corpus_starts = build_corpus(rng, max(4 << 20, 4 * hi))
    design = draw_item_design(rng, n_items)
    base = draw_arm(rng, design["base"], epochs, size_range, corpus_starts, len(corpus), None)
    item_first = np.arange(n_items) * epochs  # the baseline's first record of each item
    shared = {
        "input_len": base.lengths["input"][item_first],
        "input_start": base.starts["input"][item_first],
        "target_len": base.lengths["target"][item_first],
        "target_start": base.starts["target"][item_first],
    }
    cand = draw_arm(rng, design["cand"], epochs, size_range, corpus_starts, len(corpus), shared)
    order = {"baseline": np.arange(n_items * epochs), "candidate": np.arange(n_items * epochs)}
    if shuffle_candidate:
        order["candidate"] = rng.permutation(n_items * epochs)

    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, int] = {}
    for name, arm in (("baseline", base), ("candidate", cand)):
        jsonl = out / f"{name}.jsonl"
        parquet = out / f"{name}.parquet"
        parts_dir = out / f".parts-{name}"
        if "parquet" in formats:
            shutil.rmtree(parts_dir, ignore_errors=True)
            parts_dir.mkdir()
        handle = jsonl.open("wb") if "jsonl" in formats else None
        try:
            for k, lo_row in enumerate(range(0, n_items * epochs, chunk)):
                rows = order[name][lo_row : lo_row + chunk]
                df = chunk_frame(corpus, arm, design, rows, epochs, graded)
                if handle is not None:
                    df.write_ndjson(handle)
                if "parquet" in formats:
                    df.write_parquet(parts_dir / f"part-{k:05d}.parquet")
        finally:
            if handle is not None:
                handle.close()
        if handle is not None:
            written[str(jsonl)] = jsonl.stat().st_size
        if "parquet" in formats:
            parts = sorted(parts_dir.glob("part-*.parquet"))
            pl.scan_parquet(parts).sink_parquet(parquet, row_group_size=row_group_size)
            shutil.rmtree(parts_dir)
            written[str(parquet)] = parquet.stat().st_size
        if not quiet:
            for path, size in written.items():
                if Path(path).stem == name:
                    print(f"wrote {path}: {n_items * epochs:,} records, {size / 1e6:,.1f} MB")
    if not quiet:
        print(f"generated in {time.perf_counter() - started:.1f} s")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, required=True, help="items per run")
    parser.add_argument("--out", type=Path, required=True, help="folder to write into")
    parser.add_argument("--format", choices=("jsonl", "parquet", "both"), default="jsonl")
    parser.add_argument(
        "--transcript-bytes",
        type=int,
        nargs=2,
        default=(200, 4000),
        metavar=("MIN", "MAX"),
        help="total text per record, drawn uniformly (default 200 4000)",
    )
    parser.add_argument("--epochs", type=int, default=1, help="records per item (default 1)")
    parser.add_argument("--graded", action="store_true", help="add a score:judge column (1-5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=50_000, help="records per write (memory)")
    parser.add_argument(
        "--shuffle-candidate",
        action="store_true",
        help="write the candidate's records in a random order (as an async harness would)",
    )
    parser.add_argument(
        "--row-group-size", type=int, default=None, help="Parquet rows per group (polars default)"
    )
    args = parser.parse_args(argv)
    formats = ("jsonl", "parquet") if args.format == "both" else (args.format,)
    generate(
        args.items,
        args.out,
        formats,
        tuple(args.transcript_bytes),
        args.epochs,
        args.graded,
        args.seed,
        args.chunk,
        args.shuffle_candidate,
        args.row_group_size,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
