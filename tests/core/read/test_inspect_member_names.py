"""A finished `.eval` log's sample members found by their names built from the summaries
(`inspect_summaries.NamesByKey`) give what splitting every listed name gives
(`inspect_eval._sample_members`), and any log where they might not is read the way before."""

from __future__ import annotations

import json
import zipfile
from functools import partial
from pathlib import Path

import pytest

from evaltui.core.read.archive_limits import Budget
from evaltui.core.read.formats import inspect_archive as archive_io
from evaltui.core.read.formats import inspect_eval, json_array, load_run
from evaltui.core.read.formats.inspect_summaries import NamesByKey

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "inspect_ai"
GPT5 = DATA / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
LOGS = sorted(p for p in DATA.rglob("*.eval"))


def _eager(path: Path, *, by_name: bool) -> tuple:
    """`_eager_pass` of the log (`by_name`: as the reader reads it; else the way before)."""
    archive = archive_io.open_archive(path)
    members = archive_io.members(path, archive)
    header, _ = inspect_eval._read_header(path, archive, members, Budget())
    budget = Budget()
    if by_name:
        found = inspect_eval._eager_pass(path, archive, members, header, budget)
    else:
        found = inspect_eval._eager_pass_with(path, archive, members, header, budget, by_name=False)
    return (*found, budget.used)


def _rewritten(path: Path, folder: Path, change) -> Path:
    """A copy of `path` whose (name, bytes) members are `change(list of them)`."""
    with zipfile.ZipFile(path) as source:
        items = [(name, source.read(name)) for name in source.namelist()]
    out = folder / path.name
    with zipfile.ZipFile(out, "w") as target:
        for name, data in change(items):
            target.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return out


def _tried_by_name(monkeypatch) -> list[bool]:
    """Records, for each eager pass, whether the names were split (the way before)."""
    split: list[bool] = []
    real = inspect_eval._sample_members

    def spy(names):
        split.append(True)
        return real(names)

    monkeypatch.setattr(inspect_eval, "_sample_members", spy)
    return split


@pytest.mark.parametrize("path", LOGS, ids=lambda p: str(p.relative_to(DATA)))
def test_every_inspect_log_reads_the_same_facts_and_rows_either_way(path):
    assert _eager(path, by_name=True) == _eager(path, by_name=False)


def test_a_finished_log_finds_its_members_without_splitting_the_names(monkeypatch):
    split = _tried_by_name(monkeypatch)
    run = load_run(GPT5)
    assert split == [] and run.table.height > 0


def test_members_listed_in_the_summaries_order_are_found_as_listed_in_order(tmp_path):
    def in_order(items):
        summaries = json.loads(dict(items)["summaries.json"])
        order = {f"samples/{s['id']}_epoch_{s['epoch']}.json": i for i, s in enumerate(summaries)}
        return sorted(items, key=lambda item: order.get(item[0], -1))

    path = _rewritten(GPT5, tmp_path, in_order)
    assert _eager(path, by_name=True) == _eager(path, by_name=False)


@pytest.mark.parametrize(
    "extra",
    [
        "samples/{id}_epoch_01.json",  # splits to the same key as the real one, listed later
        "samples/{id}_epoch_{epoch}/sample.json",  # a chunked sample's shell, the same key
        "samples/unsummarised_epoch_1.json",  # a sample no summary names
    ],
)
def test_another_name_under_samples_is_read_the_way_before(tmp_path, monkeypatch, extra):
    def with_extra(items):
        summary = json.loads(dict(items)["summaries.json"])[0]
        member = dict(items)[f"samples/{summary['id']}_epoch_{summary['epoch']}.json"]
        return [*items, (extra.format(**summary), member)]

    path = _rewritten(GPT5, tmp_path, with_extra)
    expected = _eager(path, by_name=False)
    split = _tried_by_name(monkeypatch)
    assert _eager(path, by_name=True) == expected
    assert split  # (the count of names under samples/ differs: split from the start)


def test_a_summary_twice_with_a_colliding_name_is_read_again_the_way_before(tmp_path, monkeypatch):
    """As many names under samples/ as summaries, every built name listed, yet one key twice
    and one name (`_epoch_01`) that splits to a key already built: the first attempt cannot
    know until its end, and the log is read again, to the same facts, rows and budget."""

    path = _rewritten(GPT5, tmp_path, _first_summary_twice_and_clashing)
    monkeypatch.setattr(json_array, "BATCH", 3)
    expected = _eager(path, by_name=False)
    split = _tried_by_name(monkeypatch)
    assert _eager(path, by_name=True) == expected
    assert split == [True]  # tried by name first, then read again the way before
    # the way before names the later member for that key: what names built would not give
    assert any("_epoch_01.json via" in fact.record for fact in expected[0])


def test_a_batch_the_names_cannot_be_built_for_is_none():
    names = ["header.json", "samples/a_epoch_1.json", "samples/b_epoch_1.json"]
    index = {n: i for i, n in enumerate(names)}
    found = NamesByKey(names, index)
    assert found.found(["a", "b"], [1, 1]) == names[1:]
    assert found.found(["b", "a"], [1, 1]) == ["samples/b_epoch_1.json", "samples/a_epoch_1.json"]
    assert found.found(["a", "c"], [1, 1]) is None
    assert found.found(["a\nsamples/b"], [1]) is None  # (a line break never lines up)
    assert found.found(["a", "b"], [1, 2]) is None
    assert found.found([], []) == []


def test_names_of_several_epochs_in_order_are_found_as_listed():
    names = ["samples/a_epoch_1.json", "samples/a_epoch_2.json", "samples/b_epoch_1.json"]
    found = NamesByKey(names, {n: i for i, n in enumerate(names)})
    assert found.found(["a", "a"], [1, 2]) == names[:2]
    assert found.found(["b"], [1]) == names[2:]


def _passes(monkeypatch) -> list[bool]:
    """Records each attempt of the eager pass (its `by_name`)."""
    attempts: list[bool] = []
    real = inspect_eval._eager_pass_with

    def spy(*args, by_name: bool):
        attempts.append(by_name)
        return real(*args, by_name=by_name)

    monkeypatch.setattr(inspect_eval, "_eager_pass_with", spy)
    return attempts


@pytest.mark.parametrize("change", ["unscored", "errored"])
def test_a_late_sample_to_read_from_its_member_goes_on_by_the_split_names_without_a_second_read(
    tmp_path, monkeypatch, change
):
    """A summary without scores (its member decides) or with an error (a batch read as
    dicts) in the last batch: the members found by name so far are those the split names
    give, so the pass goes on the way before from there, to the same facts, rows and budget."""

    def late(items):
        summaries = json.loads(dict(items)["summaries.json"])
        if change == "unscored":
            summaries[-1].pop("scores")
        else:
            summaries[-1]["error"] = {"message": "boom", "traceback": "", "traceback_ansi": ""}
        again = json.dumps(summaries).encode("utf-8")
        return [(n, again if n == "summaries.json" else d) for n, d in items]

    path = _rewritten(GPT5, tmp_path, late)
    monkeypatch.setattr(json_array, "BATCH", 3)
    expected = _eager(path, by_name=False)
    attempts = _passes(monkeypatch)
    split = _tried_by_name(monkeypatch)
    assert _eager(path, by_name=True) == expected
    assert attempts == [True] and split == [True]  # one pass, split once on the way


def test_a_colliding_name_found_when_leaving_the_built_names_reads_the_log_again(
    tmp_path, monkeypatch
):
    """A summary twice and a name (`_epoch_01`) splitting to its key (so the counts agree),
    then an unscored sample: the members found by name so far are not those the split names
    give, so the log is read again from the start, to what the way before reads."""

    path = _rewritten(
        GPT5, tmp_path, partial(_first_summary_twice_and_clashing, last_unscored=True)
    )
    monkeypatch.setattr(json_array, "BATCH", 3)
    expected = _eager(path, by_name=False)
    attempts = _passes(monkeypatch)
    assert _eager(path, by_name=True) == expected
    assert attempts == [True, False]


def _first_summary_twice_and_clashing(items, *, last_unscored=False):
    """The log's members with its first summary written again at the end, and a member named
    `_epoch_0N` (which splits to that summary's key) holding its sample: as many names under
    samples/ as summaries (`last_unscored`: the last summary's scores taken out too)."""
    files = dict(items)
    summaries = json.loads(files["summaries.json"])
    first = summaries[0]
    if last_unscored:
        summaries[-1].pop("scores")
    again = json.dumps([*summaries, first]).encode("utf-8")
    real = f"samples/{first['id']}_epoch_{first['epoch']}.json"
    clash = f"samples/{first['id']}_epoch_0{first['epoch']}.json"
    replaced = [(n, again if n == "summaries.json" else d) for n, d in items]
    return [*replaced, (clash, files[real])]


def test_a_log_read_again_says_each_sample_to_the_progress_meter_once(tmp_path, monkeypatch):
    """The progress line counts a log read again from its start (`_Irregular`) on from where
    its first pass had got to: never a sample twice, never back."""
    from evaltui.core.read import meter

    path = _rewritten(
        GPT5, tmp_path, partial(_first_summary_twice_and_clashing, last_unscored=True)
    )
    monkeypatch.setattr(json_array, "BATCH", 3)
    attempts = _passes(monkeypatch)
    said: list[tuple[int, int]] = []
    with meter.metering(lambda n: None, lambda done, total: said.append((done, total))):
        facts = _eager(path, by_name=True)[0]
    assert attempts == [True, False]  # read twice
    summaries = len(json.loads(zipfile.ZipFile(path).read("summaries.json")))
    assert sum(total for _, total in said) == summaries  # found once
    assert sum(done for done, _ in said) == summaries >= len(facts)  # each said once
    assert all(done >= 0 and total >= 0 for done, total in said)
