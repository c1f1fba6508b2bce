"""Fuzz every input format with mutated files (not a test; see bench/README.md).

    python bench/fuzz_inputs.py --cases 20000 --seed 19 --out /tmp/evaltui-fuzz

Each case takes one of the nine formats' seed files (the test fixtures, and a slice of the demo
pair as JSONL, CSV and Parquet), mutates it, loads it with `load_run` in this process, and opens
a few of its items. A case ends one of four ways: loaded (what `report` would go on with, exit
0), refused with an input error (exit 2), an internal error (any other exception, a polars
panic included: exit 3), or a hang (over `--timeout` seconds).

Mutations are of two kinds. Those the fuzzer knows make the file malformed: a statistics key
written twice with another value, an id or verdict of the wrong type (a float, a list, a lone
surrogate, NaN...), a stray quote added to or removed from a CSV (an odd number of quotes is
never RFC 4180), a file cut short (mid-line for the line formats). Those whose effect it cannot
know: random bytes flipped, inserted or deleted, lines swapped, dropped or repeated.

The Inspect `.eval` seed is rewritten with deflate or zstd members (Inspect's default since
0.3.206) at random, its raw bytes flipped or cut from either, and one case in seven is a
*hostile archive* (tests/core/read/zip_bombs.py): entries sharing compressed bytes (2 to 3,000
of them, 1 KiB to 8 MiB each), a member listed twice, a member inflating past its declared
size, a zstd member inflating hundreds of times its compressed size (9 to 96 MiB; the 511 MiB
one is the slow test's). A hostile archive must be refused (exit 2) in the timeout; loading it
is counted as a problem. `--only inspect_eval` runs that format's cases alone.

Inspect's chunked layout (`inspect_chunked`, a tenth seed: tests/data/inspect_ai/chunked/, each
sample a folder of chunk members) is mutated the same way: deflate or zstd, its bytes flipped
or cut, a JSON member (summaries, header, a sample's shell or one of its chunks) mutated, one
case in seven hostile (the bombs above, or a message chunk inflating 9 to 96 MiB, which is only
inflated when its item is opened; event chunks are not bombed: evaltui never reads them, so a
bomb there loads untouched, which a first run counted as 18 "misreads"). When a sample's member
is mutated, that item is opened too, and a refusal there ("item refused") is what a hostile
chunk must end in.

`--remote` serves the seeds over a Range-capable HTTP server on the loopback
(tests/core/read/remote/servers.py) and loads every single-file seed by its URL: an `.eval` log
(flat or chunked) is then read by byte ranges (core/read/remote/rangefile.py), the others from
a downloaded copy; HELM's run folder stays local.

A *silent misread* is a known-malformed file that loads and gives another item count or other
verdicts than the unmutated file; an *internal error* is exit 3 or a hang. Both must be 0. The
summary also counts, for the other mutations, the files that loaded with another answer (a
flipped digit in an id is a valid file with another id: not an error). `--cli-sample N` runs N
of the cases through the installed `evaltui report` as well, to check its exit codes and that no
traceback is printed. Cases that end in an internal error or a misread are kept in `--out`.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import polars as pl  # noqa: E402

from evaltui.core.errors import EvalTuiError  # noqa: E402
from evaltui.core.read.formats import REGISTRY, load_run  # noqa: E402
from evaltui.core.read.runs import EPOCH, ITEM_ID, PASSED, SCORE, STATUS  # noqa: E402
from tests.core.read import zip_bombs  # noqa: E402

ZIP_SEEDS = ("inspect_eval", "inspect_chunked")  # mutated as archives (the chunked: a layout)
CHUNKED = "inspect_chunked"
SAMPLE_OF = re.compile(r"^samples/(?P<id>[^/]+?)_epoch_(?P<epoch>\d+)(?:/|\.json$)")

DATA = ROOT / "tests" / "data"
HELM_RUN = DATA / "helm" / "benchmark_output" / "runs" / "v4"


@dataclass(frozen=True)
class Seed:
    """One format's unmutated input: `path` is what is loaded (a file, or HELM's run folder),
    `target` the file in it that is mutated, `keys` the statistics keys a JSON mutation aims at
    (key -> values that are wrong for it), `lines` whether records are lines."""

    fmt: str
    path: Path
    target: Path
    keys: dict[str, list[str]]
    lines: bool = False


BAD_ID = ["1.5", "true", "[1]", '{"a": 1}', str(2**70), '"x\\ud800"', '"x\\u0000"', "null", "1e3"]
BAD_VERDICT = ['"yes"', "2", "[true]", '{"v": 1}', "NaN", '"true"']
BAD_SCORE = ['"x"', "[1]", "NaN", "Infinity", '{"v": 1}']
BAD_LABEL = ["3", "[1]", '{"a": 1}', "true"]


def make_seeds(work: Path, create: bool = True) -> list[Seed]:
    """The nine seeds, copied into `work` (mutations overwrite the copies, never the repo);
    `create=False` (the worker) names the copies the parent made."""
    seeds_dir = work / "seeds"
    if create and seeds_dir.exists():
        shutil.rmtree(seeds_dir)
    if not create:
        return _seed_list(seeds_dir, lambda source, fmt: seeds_dir / fmt / source.name)
    seeds_dir.mkdir(parents=True)
    demo = pl.read_ndjson(ROOT / "sample_runs" / "baseline.jsonl").head(80)

    def copy(source: Path, fmt: str) -> Path:
        folder = seeds_dir / fmt
        folder.mkdir()
        if source.is_dir():
            shutil.copytree(source, folder / source.name)
            return folder / source.name
        shutil.copy(source, folder / source.name)
        return folder / source.name

    jsonl = seeds_dir / "jsonl" / "run.jsonl"
    jsonl.parent.mkdir()
    demo.write_ndjson(jsonl)
    csv_path = seeds_dir / "csv" / "run.csv"
    csv_path.parent.mkdir()
    demo.drop("messages").write_csv(csv_path)
    parquet = seeds_dir / "parquet" / "run.parquet"
    parquet.parent.mkdir()
    demo.write_parquet(parquet)
    seeds = _seed_list(seeds_dir, copy)
    for seed in seeds:
        if seed.fmt in ZIP_SEEDS:
            _SOURCES[seed.fmt] = seed.path.with_suffix(".orig")
            shutil.copy(seed.path, _SOURCES[seed.fmt])
            for method, suffix in ((zip_bombs.ZSTD, "zstd"), (8, "deflate")):
                _SOURCES[f"{seed.fmt}_{suffix}"] = seed.path.with_suffix(f".{suffix}")
                _rewrite(_SOURCES[seed.fmt], _SOURCES[f"{seed.fmt}_{suffix}"], method)
    return seeds


def _rewrite(source: Path, dest: Path, method: int, change: dict[str, bytes] | None = None) -> None:
    """`source`'s members (with `change` applied) written to `dest` with `method` (8 deflate,
    93 zstd)."""
    from backports.zstd import zipfile as zstd_zipfile  # writes method 93 below 3.14

    from evaltui.core.read.formats.zip_members import read_member

    with zipfile.ZipFile(source) as src:
        members = {i.filename: read_member(src, i, source, 1 << 30) for i in src.infolist()}
    members.update(change or {})
    with zstd_zipfile.ZipFile(dest, "w", compression=method) as dst:
        for member, content in members.items():
            dst.writestr(member, content)


HOSTILE = ("overlapping entries", "duplicate member", "understated size", "ratio bomb")
CHUNK_BOMB = "chunk bomb"


def hostile_archive(path: Path, rng: random.Random, fmt: str = "inspect_eval") -> str:
    """Write one of the hostile archives over `path`; its description. For the chunked seed,
    the ratio bomb is its own summaries.json, and a fifth kind is a chunk member that inflates
    hundreds of times its size (the case's focus: its item is opened)."""
    kind = rng.choice(HOSTILE + ((CHUNK_BOMB,) if fmt == CHUNKED else ()))
    if fmt == CHUNKED and kind in ("ratio bomb", CHUNK_BOMB):
        mib = rng.choice((9, 24, 96))
        member = "summaries.json"
        if kind == CHUNK_BOMB:
            with zipfile.ZipFile(_SOURCES[CHUNKED]) as source:
                # a message chunk: read when its item is opened (event chunks are never read)
                chunks = [n for n in source.namelist() if "/messages/" in n]
            member = rng.choice(chunks)
        zip_bombs.summaries_bomb(
            path, mib * zip_bombs.MiB, member_name=member, template=_SOURCES[CHUNKED]
        )
        return f"hostile: {kind} ({mib} MiB, {member})"
    if kind == "overlapping entries":
        entries, kernel = rng.choice((2, 30, 3000)), rng.choice((1 << 10, 1 << 20, 8 << 20))
        zip_bombs.overlap_bomb(path, entries=entries, kernel=kernel)
        return f"hostile: {kind} ({entries} x {kernel} bytes)"
    if kind == "duplicate member":
        zip_bombs.duplicate_name(path)
    elif kind == "understated size":
        zip_bombs.understated_size(path, declared=rng.choice((10, 1000, 100_000)))
    else:
        mib = rng.choice((9, 24, 96))
        zip_bombs.summaries_bomb(path, mib * zip_bombs.MiB)
        return f"hostile: {kind} ({mib} MiB)"
    return f"hostile: {kind}"


def _seed_list(seeds_dir: Path, copy) -> list[Seed]:
    jsonl = seeds_dir / "jsonl" / "run.jsonl"
    csv_path = seeds_dir / "csv" / "run.csv"
    parquet = seeds_dir / "parquet" / "run.parquet"
    helm = copy(HELM_RUN / "mmlu_subject=anatomy_model=eleutherai_pythia-1b-v0", "helm")
    native = {"item_id": BAD_ID, "passed": BAD_VERDICT, "slice": BAD_LABEL, "cluster": BAD_LABEL}
    return [
        Seed(
            "inspect_eval",
            copy(
                DATA
                / "inspect_ai"
                / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval",
                "inspect_eval",
            ),  # noqa: E501
            Path(),
            {"id": BAD_ID, "value": ["[1, 2]", "NaN", "null"], "epoch": BAD_LABEL},
        ),
        Seed(
            CHUNKED,
            copy(
                DATA
                / "inspect_ai"
                / "chunked"
                / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval",
                CHUNKED,
            ),
            Path(),
            {
                "id": BAD_ID,
                "value": ["[1, 2]", "NaN", "null"],
                "epoch": BAD_LABEL,
                "role": BAD_LABEL,
                "message_refs": ["1", "null", '"x"', '{"a": 1}'],
            },
        ),
        Seed(
            "inspect_json",
            p := copy(
                DATA / "inspect_ai" / "2025-05-12T20-28-13-04-00_popularity.json", "inspect_json"
            ),  # noqa: E501
            p,
            {"id": BAD_ID, "epoch": ['"1"', "1.5", "[1]"]},
        ),
        Seed(
            "lm_eval",
            p := copy(
                DATA
                / "lm_eval"
                / "sshleifer__tiny-gpt2"
                / "samples_copa_2026-10-01T23-15-32.942677.jsonl",
                "lm_eval",
            ),  # noqa: E501
            p,
            {"doc_id": BAD_ID, "acc": BAD_SCORE},
            lines=True,
        ),
        Seed(
            "promptfoo",
            p := copy(DATA / "promptfoo" / "eval-gpt-4.1-mini.json", "promptfoo"),
            p,
            {"success": BAD_VERDICT, "score": BAD_SCORE},
        ),
        Seed(
            "openai_evals",
            p := copy(
                DATA
                / "openai_evals"
                / "230914161358ABCDEFGH_gpt-3.5-turbo-instruct_capital-cities.jsonl",
                "openai_evals",
            ),  # noqa: E501
            p,
            {"correct": BAD_VERDICT, "sample_id": ["1.5", "true", "[1]", '{"a": 1}', "null"]},
            lines=True,
        ),
        Seed(
            "helm",
            helm,
            helm / "per_instance_stats.json",
            {"instance_id": ["1.5", "true", "[1]", "null", '"x\\ud800"'], "mean": BAD_SCORE},
        ),
        Seed("parquet", parquet, parquet, {}),
        Seed("jsonl", jsonl, jsonl, native, lines=True),
        Seed("csv", csv_path, csv_path, {}, lines=True),
    ]


# ---------------------------------------------------------------------------------------------
# Mutations: each returns (new bytes, known_malformed, name) or None when it does not apply


def _value_spans(text: str, key: str) -> list[tuple[int, int]]:
    """(start, end) of each JSON value (scalar, or a short list/object) held by `key`."""
    found = []
    for m in re.finditer(rf'"{re.escape(key)}"\s*:\s*', text):
        start = m.end()
        value = re.match(
            r'"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null|\[[^\[\]{}]*\]|\{[^{}]*\}',
            text[start:],
        )  # noqa: E501
        if value:
            found.append((m.start(), start + value.end()))
    return found


def _text(data: bytes, seed: Seed) -> str | None:
    """The seed's text, for the JSON mutations (None: a binary format, or not UTF-8)."""
    if not seed.keys:
        return None
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


def duplicate_key(data: bytes, seed: Seed, rng: random.Random) -> tuple[bytes, bool, str] | None:
    text = _text(data, seed)
    if text is None:
        return None
    key = rng.choice(list(seed.keys))
    spans = _value_spans(text, key)
    if not spans:
        return None
    start, end = rng.choice(spans)
    original = text[start:end]
    other = rng.choice(seed.keys[key] + ["0", '"other"', "false"])
    twin = f'"{key}": {other}'
    if twin == original:
        return None
    first = rng.random() < 0.5
    changed = (
        text[:start] + (f"{twin}, {original}" if first else f"{original}, {twin}") + text[end:]
    )
    return changed.encode("utf-8", "surrogatepass"), True, f"duplicate {key}"


def wrong_type(data: bytes, seed: Seed, rng: random.Random) -> tuple[bytes, bool, str] | None:
    text = _text(data, seed)
    if text is None:
        return None
    key = rng.choice(list(seed.keys))
    spans = _value_spans(text, key)
    if not spans:
        return None
    start, end = rng.choice(spans)
    bad = rng.choice(seed.keys[key])
    changed = text[:start] + f'"{key}": {bad}' + text[end:]
    return changed.encode("utf-8", "surrogatepass"), True, f"wrong type {key}={bad}"


def stray_quote(data: bytes, seed: Seed, rng: random.Random) -> tuple[bytes, bool, str] | None:
    if seed.fmt != "csv":
        return None
    quotes = [m.start() for m in re.finditer(rb'"', data)]
    if quotes and rng.random() < 0.4:
        at = rng.choice(quotes)
        return data[:at] + data[at + 1 :], True, "quote removed"
    at = rng.randrange(len(data))
    return data[:at] + b'"' + data[at:], True, "quote added"


def truncate(data: bytes, seed: Seed, rng: random.Random) -> tuple[bytes, bool, str] | None:
    """A file cut short. Known to be malformed except where the cut leaves a valid file: at a
    line end of the line formats (a shorter file), or, in a CSV, inside a last cell that is not
    quoted (a complete record without a final newline, which RFC 4180 allows)."""
    at = rng.randrange(1, len(data) - 1)
    cut = data[:at]
    if seed.lines and (data[at - 1 : at] == b"\n" or data[at : at + 1] in (b"\n", b"\r")):
        return None
    if seed.fmt == "csv":
        return cut, not _complete_csv(cut), f"cut at {at}"
    return cut, True, f"cut at {at}"


def _complete_csv(data: bytes) -> bool:
    """True when `data` is valid CSV whose last record has the header's number of cells."""
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline=""), strict=True))
    except (csv.Error, UnicodeDecodeError):
        return False
    return len(rows) > 1 and len(rows[-1]) == len(rows[0])


def flip_bytes(data: bytes, seed: Seed, rng: random.Random) -> tuple[bytes, bool, str] | None:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out), False, "bytes flipped"


JUNK = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\n", b"\r", b"\x00", b"\xff", b"\xc3",
        b"\x1b[2J", b"NaN", b"1e999", b"\\ud800", b"\xef\xbb\xbf"]  # fmt: skip


def splice(data: bytes, seed: Seed, rng: random.Random) -> tuple[bytes, bool, str] | None:
    at = rng.randrange(len(data))
    if rng.random() < 0.5:
        return data[:at] + data[at + rng.randint(1, 64) :], False, "bytes deleted"
    junk = rng.choice(JUNK)
    return data[:at] + junk * rng.randint(1, 3) + data[at:], False, f"inserted {junk!r}"


def shuffle_lines(data: bytes, seed: Seed, rng: random.Random) -> tuple[bytes, bool, str] | None:
    if not seed.lines:
        return None
    lines = data.split(b"\n")
    if len(lines) < 3:
        return None
    i, j = rng.randrange(1, len(lines) - 1), rng.randrange(1, len(lines) - 1)
    what = rng.choice(["swap", "drop", "repeat"])
    if what == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif what == "drop":
        del lines[i]
    else:
        lines.insert(i, lines[j])
    return b"\n".join(lines), False, f"lines {what}"


KNOWN = (duplicate_key, wrong_type, stray_quote, truncate)
UNKNOWN = (flip_bytes, splice, shuffle_lines)


def mutate(seed: Seed, original: bytes, rng: random.Random) -> tuple[bytes, bool, str]:
    """A mutation of `original` (a JSON or zip member's bytes are handled by the caller)."""
    while True:
        pool = KNOWN if rng.random() < 0.55 else UNKNOWN
        done = rng.choice(pool)(original, seed, rng)
        if done is not None and done[0] != original:
            return done


# ---------------------------------------------------------------------------------------------
# Running a case


class Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hang()


def answer(run: Any) -> tuple:
    """What a run says: its records as (id, epoch, verdict or score, status), sorted."""
    table = run.table
    value = PASSED if PASSED in table.columns else SCORE if SCORE in table.columns else None
    cols = [c for c in (ITEM_ID, EPOCH, value, STATUS) if c is not None and c in table.columns]
    rows = table.select(cols).rows()
    return (table.height, tuple(sorted(rows, key=repr)))


def run_case(
    seed: Seed, timeout: float, where: str | None = None, focus: str | None = None
) -> tuple[str, tuple | None, str]:
    """Load the (already mutated) seed, from `where` (a URL) if given: ('loaded', answer, ''
    or 'item refused: ...'), ('refused', None, message), ('internal', None, traceback line)
    or ('hang', None, ''). A few items are opened, and the item `focus` ("id,epoch": the
    sample whose member was mutated) too."""
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        run = load_run(where or seed.path)
        rows = list(range(min(run.table.height, 3)))  # a few items, as the reviewer would
        if focus is not None and ITEM_ID in run.table.columns:
            item, epoch = focus.rsplit(",", 1)
            ids = run.table[ITEM_ID].cast(pl.String).to_list()
            epochs = run.table[EPOCH].to_list() if EPOCH in run.table.columns else [None] * len(ids)
            rows += [
                i for i, (a, b) in enumerate(zip(ids, epochs, strict=True))
                if a == item and str(b) in (epoch, "None")
            ]  # fmt: skip
        said = ""
        try:
            for row in rows:
                run.transcripts.read(row)
        except EvalTuiError as exc:
            said = f"item refused: {exc}"
        finally:
            getattr(run.transcripts, "close", lambda: None)()  # a kept archive handle
        return "loaded", answer(run), said
    except EvalTuiError as exc:
        return "refused", None, str(exc)
    except OSError as exc:
        if exc.filename is not None:
            return "refused", None, str(exc)
        return "internal", None, f"{type(exc).__name__}: {exc}"
    except Hang:
        return "hang", None, ""
    except BaseException as exc:  # noqa: BLE001 - what the fuzzer is looking for
        if isinstance(exc, KeyboardInterrupt):
            raise
        return "internal", None, f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def write_mutation(seed: Seed, original: bytes, rng: random.Random) -> tuple[bool, str, str | None]:
    """Mutate the seed's target in place; for the zip, a JSON member (or the zip's bytes).
    The third value is the item ("id,epoch") whose sample member was changed, if one was."""
    if seed.fmt in ZIP_SEEDS:
        roll = rng.random()
        if roll < 1 / 7:  # an archive built to cost memory or time
            name = hostile_archive(seed.path, rng, seed.fmt)
            return True, name, _focus(name.rsplit(", ", 1)[-1].rstrip(")"))
        zstd = rng.random() < 0.5
        method = "zstd" if zstd else "deflate"
        if roll < 0.4:  # the archive's own bytes: flips, cuts
            base = _SOURCES[f"{seed.fmt}_{method}"].read_bytes()
            data, known, name = (truncate if rng.random() < 0.4 else flip_bytes)(base, seed, rng)
            seed.path.write_bytes(data)
            return known, f"zip ({method}): {name}", None
        from evaltui.core.read.formats.zip_members import read_member

        source = _SOURCES[seed.fmt]
        with zipfile.ZipFile(source) as src:
            infos = {i.filename: i for i in src.infolist()}
            names = [n for n in infos if n.endswith(".json")]
            roll = rng.random()
            if "summaries.json" in infos and roll < (0.6 if seed.fmt != CHUNKED else 0.35):
                target = "summaries.json"
            elif seed.fmt == CHUNKED and roll < 0.45:
                target = "header.json"
            else:
                target = rng.choice(names)
            content = read_member(src, infos[target], source, 1 << 30)
        data, known, name = mutate(seed, content, rng)
        _rewrite(source, seed.path, 93 if zstd else 8, {target: data})
        return known, f"{target} ({method}): {name}", _focus(target)
    data, known, name = mutate(seed, original, rng)
    seed.target.write_bytes(data)
    return known, name, None


def _focus(member: str) -> str | None:
    """ "id,epoch" of the sample a member belongs to (flat or chunked), else None."""
    found = SAMPLE_OF.match(member)
    return f"{found['id']},{found['epoch']}" if found else None


_SOURCES: dict[str, Path] = {}


class Worker:
    """The loads run in a child process: polars can abort the whole process on a corrupt file
    (a Rust allocation failure is not a panic, nothing catches it), and such a case must be
    counted, not end the run. The parent mutates the files; the child loads one on request
    and answers with a line of JSON. A child that dies is a case that ended the process; a
    child that does not answer within the timeout, a hang. Either way a fresh child goes on."""

    def __init__(self, out: Path, timeout: float) -> None:
        self._command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            "--out",
            str(out),
        ]
        self._timeout = timeout
        self._child: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        env = {**os.environ, "EVALTUI_CACHE_DIR": "off"}
        return subprocess.Popen(
            self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1, env=env,
        )  # fmt: skip

    def load(
        self, fmt: str, where: str | None = None, focus: str | None = None
    ) -> tuple[str, str | None, str]:
        """(outcome, digest of the answer or None, message) for the seed of `fmt` as it is
        (read from `where`, a URL, if given; the item `focus` opened too)."""
        import select

        if self._child is None or self._child.poll() is not None:
            self._child = self._start()
        child = self._child
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps({"fmt": fmt, "where": where, "focus": focus}) + "\n")
        child.stdin.flush()
        ready, _, _ = select.select([child.stdout], [], [], self._timeout)
        if not ready:
            child.kill()
            child.wait()
            self._child = None
            return "hang", None, f"no answer in {self._timeout:g} s"
        line = child.stdout.readline()
        if not line:
            code = child.wait()
            self._child = None
            return "abort", None, f"the process ended with {_signal_name(code)}"
        reply = json.loads(line)
        return reply["outcome"], reply["answer"], reply["message"]

    def close(self) -> None:
        if self._child is not None and self._child.poll() is None:
            self._child.stdin.close()  # type: ignore[union-attr]
            self._child.wait(timeout=30)


def _signal_name(code: int) -> str:
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"


def worker(out: Path) -> int:
    """The child's loop: a format name per line in, the load's outcome as JSON per line out."""
    import hashlib

    seeds = {seed.fmt: seed for seed in make_seeds(out, create=False)}
    signal.signal(signal.SIGALRM, _alarm)
    for line in sys.stdin:
        request = json.loads(line)
        seed = seeds[request["fmt"]]
        outcome, said, message = run_case(seed, 3600, request["where"], request["focus"])
        digest = None if said is None else hashlib.sha256(repr(said).encode()).hexdigest()
        reply = {"outcome": outcome, "answer": digest, "message": message[:500]}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--out", type=Path, default=Path("/tmp/evaltui-fuzz"))
    parser.add_argument("--cli-sample", type=int, default=0, metavar="N")
    parser.add_argument("--only", default=None, metavar="FORMAT", help="cases of one format")
    parser.add_argument(
        "--remote", action="store_true", help="load the single-file seeds over loopback HTTP"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("EVALTUI_CACHE_DIR", "off")
    if args.worker:
        return worker(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    seeds = make_seeds(args.out)
    assert sorted(s.fmt for s in seeds if s.fmt != CHUNKED) == sorted(REGISTRY)
    rng = random.Random(args.seed)
    loads = Worker(args.out, args.timeout)
    server = None
    if args.remote:
        from tests.core.read.remote.servers import RangeHTTPServer

        server = RangeHTTPServer(args.out / "seeds")

    def where(seed: Seed) -> str | None:
        if server is None or seed.path.is_dir():
            return None
        return f"{server.url}/{seed.path.relative_to(args.out / 'seeds').as_posix()}"

    baseline: dict[str, str | None] = {}
    originals: dict[str, bytes] = {}
    for seed in seeds:
        originals[seed.fmt] = _target(seed).read_bytes()
        if args.only and seed.fmt != args.only:
            continue
        outcome, said, message = loads.load(seed.fmt, where(seed))
        if outcome != "loaded" or message:
            raise SystemExit(f"seed {seed.fmt} does not load: {outcome} {message}")
        baseline[seed.fmt] = said
    if args.only:
        seeds = [s for s in seeds if s.fmt == args.only]
    stats: dict[str, Counter] = {s.fmt: Counter() for s in seeds}
    families: Counter = Counter()  # the .eval cases by kind of mutation and outcome
    problems: list[dict[str, Any]] = []
    tolerated: Counter = Counter()  # known-malformed files that loaded with the same answer
    cli_cases: list[tuple[Seed, bytes]] = []
    started = time.monotonic()
    try:
        for case in range(args.cases):
            seed = seeds[case % len(seeds)]
            target = _target(seed)
            known, name, focus = write_mutation(seed, originals[seed.fmt], rng)
            mutated = target.read_bytes()
            outcome, said, message = loads.load(seed.fmt, where(seed), focus)
            count = stats[seed.fmt]
            count["cases"] += 1
            count[outcome] += 1
            kind = "known" if known else "unknown"
            count[f"{kind} {outcome}"] += 1
            misread = known and outcome == "loaded" and said != baseline[seed.fmt]
            hostile = name.startswith("hostile: ")
            item_refused = outcome == "loaded" and message.startswith("item refused")
            count["item refused"] += item_refused
            # a hostile archive must never load, nor give an item's text
            misread = misread or (hostile and outcome == "loaded" and not item_refused)
            if hostile:
                count["hostile"] += 1
                count["hostile refused"] += outcome == "refused" or item_refused
            if seed.fmt in ZIP_SEEDS:
                family = name.split(" (")[0] if hostile else name.split(":")[0].split(" (")[0]
                if family.startswith("samples/"):
                    family = "samples/*.json"
                ending = "item refused" if item_refused else outcome
                families[f"{seed.fmt} {family} ({_method_of(name)}): {ending}"] += 1
            if outcome == "loaded" and said != baseline[seed.fmt]:
                count[f"{kind} loaded, other answer"] += 1
            if known and outcome == "loaded" and not misread:
                tolerated[f"{seed.fmt}: {name.split('=')[0].split(' at ')[0]}"] += 1
            if misread or outcome in ("internal", "hang", "abort"):
                keep = args.out / f"case-{case:05d}-{seed.fmt}-{outcome}{target.suffix}"
                keep.write_bytes(mutated)
                problems.append({"case": case, "format": seed.fmt, "mutation": name,
                                 "outcome": "silent misread" if misread else outcome,
                                 "message": message, "kept": str(keep)})  # fmt: skip
            if args.cli_sample and rng.random() < args.cli_sample / args.cases:
                cli_cases.append((seed, mutated))
            target.write_bytes(originals[seed.fmt])
    finally:
        loads.close()
        if server is not None:
            server.stop()
    elapsed = time.monotonic() - started
    cli = _cli_check(cli_cases, args.out, originals) if cli_cases else None
    summary = _summary(stats, problems, elapsed, args, cli)
    summary["known malformed, loaded with the same answer"] = dict(tolerated.most_common())
    summary["archives by mutation"] = dict(sorted(families.items()))
    summary["remote"] = args.remote
    for key, value in sorted(families.items()):
        print(f"  {key}: {value:,}")
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    _print(summary)
    return 1 if summary["internal_errors"] or summary["silent_misreads"] else 0


def _method_of(name: str) -> str:
    if name.startswith("hostile: "):
        return "zstd"  # every hostile archive's members are zstd, as Inspect writes them now
    return "zstd" if "(zstd)" in name else "deflate"


def _target(seed: Seed) -> Path:
    """The file a mutation rewrites (the whole archive, for the zip)."""
    return seed.path if seed.fmt in ZIP_SEEDS else seed.target


def _cli_check(cases: list[tuple[Seed, bytes]], out: Path, originals: dict[str, bytes]) -> dict:
    """Run sampled cases through the installed command: exit codes, and no traceback."""
    script = Path(sys.executable).parent / "evaltui"
    codes: Counter = Counter()
    tracebacks = 0
    for seed, mutated in cases:
        target = _target(seed)
        target.write_bytes(mutated)
        other = out / "cli-other" / seed.fmt
        if other.exists():
            shutil.rmtree(other)
        other.mkdir(parents=True)
        twin = other / seed.path.name
        if seed.path.is_dir():
            shutil.copytree(seed.path, twin)
            (twin / seed.target.name).write_bytes(originals[seed.fmt])
        else:
            twin.write_bytes(originals[seed.fmt])
        env = {
            **os.environ,
            "EVALTUI_STATE_DIR": str(out / "cli-state"),
            "EVALTUI_CACHE_DIR": "off",
        }
        env.pop("EVALTUI_DEBUG", None)
        command = [str(script), "report", str(seed.path), str(twin)]
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=120, check=False
        )
        codes[done.returncode] += 1
        tracebacks += "Traceback" in done.stderr
        target.write_bytes(originals[seed.fmt])
    return {"runs": sum(codes.values()), "exit_codes": dict(sorted(codes.items())),
            "tracebacks": tracebacks}  # fmt: skip


def _summary(stats: dict[str, Counter], problems: list, elapsed: float, args, cli) -> dict:
    total: Counter = Counter()
    for count in stats.values():
        total.update(count)
    return {
        "cases": total["cases"],
        "seed": args.seed,
        "seconds": round(elapsed, 1),
        "outcomes (exit)": {
            "loaded (0)": total["loaded"],
            "refused (2)": total["refused"],
            "internal error (3)": total["internal"],
            "hang": total["hang"],
        },  # fmt: skip
        "known malformed": {
            k.split(" ", 1)[1]: v for k, v in total.items() if k.startswith("known ")
        },
        "unknown effect": {
            k.split(" ", 1)[1]: v for k, v in total.items() if k.startswith("unknown ")
        },
        "internal_errors": total["internal"] + total["hang"] + total["abort"],
        "silent_misreads": sum(1 for p in problems if p["outcome"] == "silent misread"),
        "per_format": {fmt: dict(count) for fmt, count in stats.items()},
        "problems": problems[:50],
        "cli_sample": cli,
    }


def _print(summary: dict) -> None:
    print(f"{summary['cases']:,} mutated inputs over {len(summary['per_format'])} formats "
          f"in {summary['seconds']} s (seed {summary['seed']})")  # fmt: skip
    print("outcomes:", ", ".join(f"{k} {v:,}" for k, v in summary["outcomes (exit)"].items()))
    print(
        "known malformed:",
        ", ".join(f"{k} {v:,}" for k, v in sorted(summary["known malformed"].items())),
    )  # noqa: E501
    print(
        "unknown effect: ",
        ", ".join(f"{k} {v:,}" for k, v in sorted(summary["unknown effect"].items())),
    )  # noqa: E501
    for fmt, count in summary["per_format"].items():
        print(f"  {fmt:13} {count.get('cases', 0):>6,} cases: loaded {count.get('loaded', 0):,}, "
              f"refused {count.get('refused', 0):,}, internal {count.get('internal', 0):,}, "
              f"hang {count.get('hang', 0):,}, aborted {count.get('abort', 0):,}; "
              f"item refused {count.get('item refused', 0):,}; hostile refused "
              f"{count.get('hostile refused', 0):,} of {count.get('hostile', 0):,}; "
              "known-malformed loaded "
              f"{count.get('known loaded', 0):,} (other answer "
              f"{count.get('known loaded, other answer', 0):,})")  # fmt: skip
    if summary["cli_sample"]:
        print("cli sample:", summary["cli_sample"])
    print(f"internal errors: {summary['internal_errors']}, silent misreads: "
          f"{summary['silent_misreads']}")  # fmt: skip
    for problem in summary["problems"][:20]:
        print("  ", problem)


if __name__ == "__main__":
    raise SystemExit(main())
