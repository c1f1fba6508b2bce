"""Listing the runs of a log directory (`evaltui DIR`), from their headers only.

The directories are built in tmp_path from the real fixtures (tests/data/*/README*): the
Inspect popularity pair (deflate and zstd) and its crashed variant, the lm-eval copa pair in its
output layout, and the HELM v4 benchmark_output tree; plus a broken .eval and a stray file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evaltui.core.errors import UsageError
from evaltui.core.read.formats import inspect_eval
from evaltui.core.read.logdir import Listing, choose_pair, default_pair, list_runs, select

DATA = Path(__file__).resolve().parent.parent.parent / "data"
INSPECT = DATA / "inspect_ai"
GPT5 = "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CLAUDE = "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"
OLD = "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
CANCELLED = "2025-05-12T20-28-13-04-00_popularity.json"


@pytest.fixture
def inspect_dir(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    root.mkdir()
    for name in (GPT5, OLD, CANCELLED):
        shutil.copy(INSPECT / name, root / name)
    shutil.copy(INSPECT / "zstd" / CLAUDE, root / CLAUDE)  # zstd: the header is read too
    shutil.copy(INSPECT / "variants" / "crashed_gpt5_all_errored.eval", root / "crashed.eval")
    (root / "broken.eval").write_bytes(b"PK\x03\x04 not really a zip")
    (root / "notes.txt").write_text("not a log")
    return root


def test_inspect_runs_are_listed_sorted_by_task_then_date_with_their_header_facts(inspect_dir):
    listing = list_runs(inspect_dir)
    names = [e.name for e in listing.runs]
    assert names[0] == "broken.eval"  # no task: "?" sorts first, and it is not dropped
    by_name = {e.name: e for e in listing.runs}
    gpt5, claude = by_name[GPT5], by_name[CLAUDE]
    assert (gpt5.task, gpt5.model, gpt5.items, gpt5.scorer, gpt5.status) == (
        "popularity", "openai/gpt-5", 10, "match", "success",
    )  # fmt: skip
    assert claude.model == "anthropic/claude-sonnet-4-20250514" and claude.items == 10
    assert gpt5.date == "2025-09-15T19:04:34"  # created, in UTC
    assert by_name[CANCELLED].status == "cancelled" and by_name[CANCELLED].items == 3
    assert by_name["crashed.eval"].status == "error"
    popularity = [e.date for e in listing.runs if e.task == "popularity"]
    assert popularity == sorted(popularity)
    assert listing.other_files == 1


def test_an_unreadable_log_is_listed_with_its_reason_and_cannot_be_picked(inspect_dir):
    listing = list_runs(inspect_dir)
    broken = select(listing, "broken", "--baseline")
    assert broken.status == "unreadable" and "zip" in broken.problem.lower()
    with pytest.raises(UsageError, match="broken.eval cannot be read"):
        choose_pair(listing, "broken", GPT5)


def test_the_listing_reads_each_logs_header_never_a_sample(inspect_dir, monkeypatch):
    read: list[str] = []
    original = inspect_eval.read_member
    monkeypatch.setattr(
        inspect_eval,
        "read_member",
        lambda a, info, *rest: read.append(info.filename) or original(a, info, *rest),
    )
    list_runs(inspect_dir)
    assert read and set(read) == {"header.json"}


def test_progress_counts_the_runs_described(inspect_dir):
    seen: list[tuple[int, int]] = []
    list_runs(inspect_dir, lambda done, total: seen.append((done, total)))
    assert seen[-1] == (6, 6) and [d for d, _ in seen] == list(range(1, 7))


def test_the_default_pair_is_the_two_latest_runs_of_one_task_older_first(inspect_dir):
    listing = list_runs(inspect_dir)
    base, cand = default_pair(listing)
    assert base.task == cand.task == "popularity"
    assert base.date <= cand.date
    later = [e for e in listing.runs if e.task == "popularity" and e.status != "unreadable"]
    assert (base, cand) == tuple(later[-2:])


def test_runs_are_selected_by_number_path_or_a_unique_part(inspect_dir):
    listing = list_runs(inspect_dir)
    number = [e.name for e in listing.runs].index(GPT5) + 1
    assert select(listing, str(number), "--baseline").name == GPT5
    assert select(listing, GPT5, "--baseline").name == GPT5
    assert select(listing, str(inspect_dir / GPT5), "--baseline").name == GPT5
    assert select(listing, "CuCFPdqn", "--baseline").name == GPT5
    with pytest.raises(UsageError, match=r"--candidate 'popularity' matches \d+ runs"):
        select(listing, "popularity", "--candidate")
    with pytest.raises(UsageError, match="names no run"):
        select(listing, "nothing-like-it", "--candidate")


def test_an_lm_eval_output_folder_lists_one_run_per_model_and_task(tmp_path):
    root = tmp_path / "out"
    for model in ("sshleifer__tiny-gpt2", "hf-internal-testing__tiny-random-gpt2"):
        shutil.copytree(DATA / "lm_eval" / "results" / model, root / model)
    listing = list_runs(root)
    assert [(e.task, e.model, e.items, e.scorer) for e in listing.runs] == [
        ("copa", "sshleifer/tiny-gpt2", 20, "acc"),
        ("copa", "hf-internal-testing/tiny-random-gpt2", 20, "acc"),
    ]
    assert listing.runs[0].date == "2026-10-01T23:15:32"


def test_a_helm_benchmark_output_lists_its_run_directories():
    listing = list_runs(DATA / "helm" / "benchmark_output")
    assert [e.format for e in listing.runs] == ["helm", "helm"]
    assert {e.model for e in listing.runs} == {"eleutherai/pythia-1b-v0", "eleutherai/pythia-6.9b"}
    assert all(e.items == 13 and e.task == "MMLUScenario:subject=anatomy" for e in listing.runs)
    assert all(e.path.is_dir() for e in listing.runs)


def test_five_hundred_logs_are_listed_from_headers(tmp_path):
    root = tmp_path / "many"
    root.mkdir()
    for i in range(500):
        shutil.copy(INSPECT / OLD, root / f"{i:03d}_{OLD}")
    listing = list_runs(root)
    assert len(listing.runs) == 500 and all(e.items == 10 for e in listing.runs)


# --- the lister names no harness: the formats recognise and describe their runs --------------


def test_the_formats_that_head_a_log_directory_are_the_ones_listed():
    from evaltui.core.read.logdir import listing_formats

    assert [m.NAME for m in listing_formats()] == [
        "inspect_eval",
        "inspect_json",
        "lm_eval",
        "helm",
    ]


def test_a_new_format_is_listed_and_described_without_touching_the_lister(tmp_path, monkeypatch):
    import sys
    import types
    from dataclasses import replace

    import evaltui.core.read.formats as formats
    from evaltui.core.read.formats.contract import NoOptions

    module = types.ModuleType("evaltui.core.read.formats.fakelog")
    module.NAME, module.Options = "fakelog", NoOptions
    module.sniff = lambda path, head: False
    module.load = lambda path, options, own: pytest.fail("listing never loads")

    def recognise(path):
        if path.name == "fake.index":
            return "companion"
        return "run" if path.suffix == ".fake" else None

    def describe_run(entry):
        task, model = entry.path.read_text().split()
        if task == "bad":
            raise ValueError("no header")
        return replace(entry, task=task, model=model, items=7, status="complete")

    module.recognise, module.describe_run = recognise, describe_run
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(formats, "REGISTRY", (*formats.REGISTRY, "fakelog"))
    root = tmp_path / "fake_logs"
    (root / "deep").mkdir(parents=True)
    (root / "deep" / "one.fake").write_text("qa model-a")
    (root / "two.fake").write_text("qa model-b")
    (root / "three.fake").write_text("bad x")
    (root / "fake.index").write_text("read beside the runs")
    (root / "notes.txt").write_text("not a log")
    listing = list_runs(root)
    by_name = {e.name: e for e in listing.runs}
    assert {e.format for e in listing.runs} == {"fakelog"}
    assert (by_name["deep/one.fake"].model, by_name["two.fake"].items) == ("model-a", 7)
    assert (
        by_name["three.fake"].status == "unreadable"
        and "no header" in by_name["three.fake"].problem
    )
    assert listing.other_files == 1  # notes.txt; the companion is neither listed nor counted
    base, cand = default_pair(listing)
    assert {base.name, cand.name} == {"deep/one.fake", "two.fake"}


def test_a_folder_in_a_store_is_named_by_its_url_and_said_to_list_eval_logs_only():
    """`Path` folds `s3://b/logs` into `s3:/b/logs`, which the refusals printed; and a folder of
    JSONL runs in a store was "0 run(s) but no task with two runs"."""
    listing = Listing(root=Path("s3://b/logs"), runs=(), other_files=2)
    with pytest.raises(UsageError) as caught:
        choose_pair(listing, None, None)
    assert str(caught.value).startswith(
        "s3://b/logs holds no Inspect .eval log (2 other file(s)): a folder in a store is "
        "listed by its .eval logs only"
    )
    with pytest.raises(UsageError, match=r"names no run in s3://b/logs \("):
        select(listing, "7", "--baseline")
