"""Search over outputs at a million items (not a test): the app's search index and its time to
first match.

On a pair written by bench/generate.py (JSONL, ~2 KB transcripts, 15% discordant: about
150,000 listed items at 1M), in this process and in the app's own order:

1. open the pair as the app does (`compare`, no breakdowns) and make the list rows;
2. read the inputs (`fill_previews`, the app's previews worker): ids and inputs searchable;
3. read both outputs and the target of every listed item into the search index
   (`evaltui.ui.search.fill`, the app's search worker): everything searchable;
4. search, as the list does (`ListView.refresh` with the index's matches): a phrase cut from one
   candidate output (few matches), a common word (many), a string that matches nothing, and the
   phrase typed one key at a time; each the time until the filtered list is ready (the first
   match is on screen then), next to a plain Python scan of the same texts.

    .venv/bin/python bench/search.py                       # 1M items, generated when missing
    .venv/bin/python bench/search.py --items 100000 --repeat 5

Data lives under /tmp/evaltui-bench (EVALTUI_BENCH_DIR), never in the repository.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaltui.core.analysis.pipeline import compare  # noqa: E402
from evaltui.core.compare.spec import CompareSpec  # noqa: E402
from evaltui.ui.listmodel import ListView  # noqa: E402
from evaltui.ui.loading import fill_previews, list_rows  # noqa: E402
from evaltui.ui.search import FIELDS, SearchIndex, fill  # noqa: E402

BENCH = Path(os.environ.get("EVALTUI_BENCH_DIR", "/tmp/evaltui-bench"))


def _size_name(items: int) -> str:
    return f"{items // 1_000_000}m" if items % 1_000_000 == 0 else f"{items // 1000}k"


def _pair(items: int) -> tuple[Path, Path]:
    folder = BENCH / _size_name(items)
    base, cand = folder / "baseline.jsonl", folder / "candidate.jsonl"
    if not (base.exists() and cand.exists()):
        print(f"generating {items:,} items in {folder} …", flush=True)
        subprocess.run(
            [sys.executable, str(ROOT / "bench" / "generate.py"), "--items", str(items),
             "--out", str(folder), "--format", "jsonl"],
            check=True,
        )  # fmt: skip
    return base, cand


def _timed(what: str, work):
    start = time.perf_counter()
    result = work()
    took = time.perf_counter() - start
    print(f"  {what}: {took:.2f} s", flush=True)
    return result, took


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N per search")
    args = parser.parse_args()
    base_path, cand_path = _pair(args.items)
    os.environ.setdefault("EVALTUI_CACHE_DIR", str(BENCH / "scan-cache"))
    print(f"pair: {base_path.parent} ({args.items:,} items)")

    analysis, _ = _timed(
        "open the pair (compare, first screen's analysis)",
        lambda: compare(CompareSpec.create(base_path, cand_path), complete=False),
    )
    lists = list_rows(analysis, SimpleNamespace(items={}))  # type: ignore[arg-type]
    rows = [*lists["regressions"], *lists["improvements"]]
    print(f"  listed items: {len(rows):,} ({len(lists['regressions']):,} regressions)")
    _, previews = _timed("read the inputs (ids and inputs searchable)", lambda: fill_previews(
        analysis, rows, lambda: None
    ))  # fmt: skip
    index = SearchIndex()
    paired = analysis.paired
    _, indexing = _timed(
        "read both outputs and the target (everything searchable)",
        lambda: fill(index, rows, paired.baseline.transcripts, paired.candidate.transcripts,
                     lambda: None),
    )  # fmt: skip
    index_mb = sum(chunk.estimated_size() for chunk in index.chunks) / 1e6
    print(f"  index: {index_mb:,.0f} MB of polars strings; peak RSS so far {_rss_mb():,.0f} MB")

    middle = rows[len(rows) // 2]  # a phrase from one candidate output: what a reviewer recalls
    text = (paired.candidate.transcripts.read_field([middle.rows[1]], "output")[0] or "").split()
    phrase = " ".join(text[len(text) // 2 : len(text) // 2 + 3]) if len(text) >= 3 else "dose"
    indexed = {}  # the same texts for a plain Python scan, lower-cased like the ids and inputs
    for chunk in index.chunks:
        for row in chunk.iter_rows():
            indexed[row[0]] = "\n".join(row[1:]).lower()
    texts = [f"{r.search_text}\n{indexed.get(r.index, '')}" for r in rows]
    view = ListView(list(rows), text_hits=index.matches)

    def search(needle: str) -> tuple[float, int]:
        best = float("inf")
        for _ in range(args.repeat):
            index._last = None  # a fresh search each time, not narrowed from the last one
            start = time.perf_counter()
            view.search = needle
            view.refresh()
            best = min(best, time.perf_counter() - start)
        return best, len(view.visible)

    def python_scan(needle: str) -> float:
        start = time.perf_counter()
        _ = [r for r, t in zip(rows, texts, strict=True) if needle in t]
        return time.perf_counter() - start

    print(f"\nsearch over {len(rows):,} items ({', '.join(FIELDS)}, input, id, tag, note)")
    print(f"{'needle':<36} {'first match (list ready)':>25} {'matches':>9} {'python scan':>12}")
    results = []
    for needle in (phrase.lower(), "dose", "zzqx no such words"):
        took, found = search(needle)
        scan = python_scan(needle)
        results.append((needle, took, found, scan))
        print(f"{needle[:36]!r:<36} {took * 1000:>22.0f} ms {found:>9,} {scan * 1000:>9.0f} ms")
    print("\ntyping the phrase one key at a time (each key narrows the last key's hits):")
    view.search = ""
    view.refresh()
    index._last = None
    per_key = []
    for i in range(1, len(phrase) + 1):
        start = time.perf_counter()
        view.search = phrase[:i].lower()
        view.refresh()
        per_key.append(time.perf_counter() - start)
    print(
        f"  {len(per_key)} keys: first {per_key[0] * 1000:.0f} ms, median "
        f"{sorted(per_key)[len(per_key) // 2] * 1000:.0f} ms, worst {max(per_key) * 1000:.0f} ms"
        f"; {len(view.visible):,} matches at the end"
    )
    print(f"\npeak RSS {_rss_mb():,.0f} MB")
    print(
        f"\nsummary: {args.items:,} items, {len(rows):,} listed; inputs {previews:.1f} s, outputs "
        f"and targets indexed in {indexing:.1f} s in the background; time to first match "
        f"{results[0][1] * 1000:.0f} ms (a phrase), {results[1][1] * 1000:.0f} ms (a common "
        f"word), {results[2][1] * 1000:.0f} ms (no match)"
    )


if __name__ == "__main__":
    main()
