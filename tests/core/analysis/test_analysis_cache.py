"""The analysis cache: a reopen rebuilds the completed analysis without pairing or statistics,
with the same report; any change to an input, the spec or the policy, and any damaged entry,
computes afresh."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import polars as pl
import pytest

from evaltui.core.analysis import analysis_cache, analysis_codec, pair, pipeline
from evaltui.core.analysis.pipeline import compare, keep_analysis
from evaltui.core.compare import pairing
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.policy import load_policy
from evaltui.core.read.formats import entry_seal, scan_cache
from evaltui.core.report.pair import report_dict
from tests.conftest import DATA

SAMPLE = DATA.parent.parent / "sample_runs"
CATEGORICAL = DATA / "categorical"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.delenv("EVALTUI_NO_CACHE", raising=False)
    monkeypatch.setattr(analysis_cache, "MIN_ITEMS", 0)  # (the test pairs are small)
    return tmp_path / "cache" / analysis_cache.FOLDER


def no_recomputation(monkeypatch):
    """Pairing or any statistic run from here on fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("recomputed instead of using the cached analysis")

    for module, name in (
        (pipeline, "pair_runs"),
        (pipeline, "analyze"),
        (pipeline, "metric_family"),
        (pipeline, "with_clusters"),
        (pipeline, "slice_comparisons"),
        (pipeline, "outcome_comparison"),
        (pair, "analyze"),
        (pairing, "pair_runs"),
    ):
        monkeypatch.setattr(module, name, refuse)


def open_twice(spec, monkeypatch, policy=None):
    """A first open (computed and kept, as the app keeps it), then a reopen that may not
    recompute anything."""
    first = compare(spec, cached=True, policy=policy)
    keep_analysis(first)
    with monkeypatch.context() as patched:
        no_recomputation(patched)
        again = compare(spec, cached=True, policy=policy, complete=False)
    assert not again.breakdowns_pending  # complete at once: the kept analysis
    return first, again


def same_report(first, again) -> None:
    assert json.dumps(report_dict(again), sort_keys=True) == json.dumps(
        report_dict(first), sort_keys=True
    )


def pairs(tmp_path):
    """The demo, a graded pair with clusters, and the categorical pair (several metrics)."""
    demo = (SAMPLE / "baseline.jsonl", SAMPLE / "candidate.jsonl")
    rng = np.random.default_rng(5)
    base, cand = [], []
    for i in range(400):
        row = {"item_id": f"g{i}", "cluster": f"c{i % 37}", "slice": f"s{i % 3}"}
        score = float(rng.random())
        base.append({**row, "score": score, "passed": score > 0.5})
        moved = min(1.0, max(0.0, score + float(rng.normal(0.03, 0.2))))
        cand.append({**row, "score": moved, "passed": moved > 0.5})
    graded = []
    for name, records in (("gb.jsonl", base), ("gc.jsonl", cand)):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        graded.append(path)
    epochs = []
    for name, shift in (("eb.jsonl", 0.0), ("ec.jsonl", 0.1)):
        records = [
            {"item_id": f"e{i}", "epoch": e, "passed": bool(rng.random() < 0.5 + shift)}
            for i in range(150)
            for e in (1, 2, 3)
        ]
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        epochs.append(path)
    categorical = (CATEGORICAL / "baseline.jsonl", CATEGORICAL / "candidate.jsonl")
    return {
        "demo": demo,
        "graded": tuple(graded),
        "categorical": categorical,
        "epochs": tuple(epochs),
    }


@pytest.mark.parametrize(
    ("name", "metric"),
    [
        ("demo", None),
        ("graded", "passed"),
        ("graded", "score"),
        ("categorical", None),
        ("epochs", None),
    ],
)
def test_a_reopen_rebuilds_the_same_analysis_without_pairing_or_statistics(
    tmp_path, monkeypatch, name, metric
):
    base, cand = pairs(tmp_path)[name]
    spec = CompareSpec.create(base, cand, metric=metric)
    first, again = open_twice(spec, monkeypatch)
    same_report(first, again)
    assert again.regressions == first.regressions and again.improvements == first.improvements
    assert np.array_equal(again.deltas, first.deltas)
    assert again.paired.items.equals(first.paired.items)
    assert [r.regressions for r in again.metrics] == [r.regressions for r in first.metrics]
    assert again.slices == first.slices or name == "graded"  # (graded: no slices)
    assert again.verdict == first.verdict and again.decision_ci == first.decision_ci
    for part in ("binary", "graded", "epochs", "mean_check", "categorical", "concordant"):
        assert _plain(getattr(again, part)) == _plain(getattr(first, part)), part


def _plain(value):
    """A result as comparable data (NaN as text: NaN != NaN)."""
    columns = analysis_codec.Columns()
    return json.dumps(analysis_codec.encode(value, columns), sort_keys=True)


def test_a_reopen_with_the_clusters_and_slices_keeps_every_result_class(tmp_path, monkeypatch):
    base, cand = pairs(tmp_path)["graded"]
    spec = CompareSpec.create(base, cand, metric="passed")
    first, again = open_twice(spec, monkeypatch)
    assert first.clusters is not None and first.slices  # (the pair exercises them)
    assert again.clusters == first.clusters
    assert [s.comparison.delta_ci for s in again.slices] == [
        s.comparison.delta_ci for s in first.slices
    ]
    same_report(first, again)


def test_the_demo_with_its_policy_is_rebuilt_and_a_changed_policy_is_not_used(
    tmp_path, monkeypatch
):
    base, cand = pairs(tmp_path)["demo"]
    policy_file = tmp_path / "policy.toml"
    shutil.copyfile(SAMPLE / "policy.toml", policy_file)
    spec = CompareSpec.create(base, cand, policy=policy_file)
    policy = load_policy(policy_file)
    first, again = open_twice(spec, monkeypatch, policy=policy)
    assert again.policy is policy
    same_report(first, again)
    # Another multiplicity: the family's adjusted p changes; the kept analysis must not serve.
    text = policy_file.read_text(encoding="utf-8")
    changed = text.replace('multiplicity = "holm"', 'multiplicity = "bonferroni"')
    assert changed != text
    policy_file.write_text(changed, encoding="utf-8")
    other = load_policy(policy_file)
    assert other.hash != policy.hash
    assert analysis_cache.entry_key(
        spec, other, again.paired.baseline.source, again.paired.candidate.source
    ) != analysis_cache.entry_key(
        spec, policy, again.paired.baseline.source, again.paired.candidate.source
    )
    fresh = compare(spec, cached=True, policy=other, complete=False)
    assert fresh.breakdowns_pending  # computed (the headline first), not the kept one


def test_a_changed_spec_never_uses_another_specs_analysis(tmp_path, monkeypatch):
    base, cand = pairs(tmp_path)["graded"]
    keep_analysis(compare(CompareSpec.create(base, cand, metric="score"), cached=True))
    for changed in (
        {"metric": "passed"},
        {"metric": "score", "alpha": 0.01},
        {"metric": "score", "tolerance": 0.1},
        {"metric": "score", "seed": 7},
    ):
        again = compare(CompareSpec.create(base, cand, **changed), cached=True, complete=False)
        assert again.breakdowns_pending, changed  # computed afresh


def test_changed_bytes_under_the_same_size_and_time_are_a_different_analysis(tmp_path, monkeypatch):
    base, cand = pairs(tmp_path)["graded"]
    spec = CompareSpec.create(base, cand, metric="passed")
    keep_analysis(compare(spec, cached=True))
    stat = cand.stat()
    text = cand.read_text(encoding="utf-8")
    # One item's verdict true -> false and another's false -> true: the same size.
    flipped = text.replace('"passed": true', "@", 1).replace('"passed": false', "#", 1)
    flipped = flipped.replace("@", '"passed": false').replace("#", '"passed": true')
    assert flipped != text
    cand.write_text(flipped, encoding="utf-8")
    os.utime(cand, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cand.stat().st_size == stat.st_size and cand.stat().st_mtime_ns == stat.st_mtime_ns
    again = compare(spec, cached=True, complete=False)
    assert again.breakdowns_pending  # the sha256 differs: not the kept analysis


def test_forget_drops_every_analysis_made_from_a_file(tmp_path, cache_dir):
    base, cand = pairs(tmp_path)["graded"]
    for metric in ("passed", "score"):
        keep_analysis(compare(CompareSpec.create(base, cand, metric=metric), cached=True))
    assert len(list(cache_dir.iterdir())) == 2
    analysis_cache.forget(cand)
    assert list(cache_dir.iterdir()) == []


def test_no_cache_neither_keeps_nor_reads_an_analysis(tmp_path, monkeypatch, cache_dir):
    base, cand = pairs(tmp_path)["demo"]
    monkeypatch.setenv("EVALTUI_NO_CACHE", "1")
    keep_analysis(compare(CompareSpec.create(base, cand), cached=True))
    assert not cache_dir.exists()


def damage_truncate(entry):
    items = entry / analysis_cache.ITEMS
    items.write_bytes(items.read_bytes()[:100])


def damage_json(entry):
    meta = entry / analysis_cache.META
    meta.write_text(meta.read_text(encoding="utf-8")[:-40], encoding="utf-8")


def damage_foreign_class(entry):
    meta = entry / analysis_cache.META
    text = meta.read_text(encoding="utf-8").replace('"PairedTable"', '"Popen"', 1)
    meta.write_text(text, encoding="utf-8")


def damage_field(entry):
    meta = entry / analysis_cache.META
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["analysis"]["binary"]["fields"]["table"]["fields"]["both_pass"] = -3
    meta.write_text(json.dumps(data), encoding="utf-8")


def damage_column(entry):
    for column in entry.glob("column-*.parquet"):
        column.write_bytes(b"PAR1 not parquet")


def damage_other_key(entry):
    meta = entry / analysis_cache.META
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["key"] = "0" * 32
    meta.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize(
    "damage",
    [
        damage_truncate,
        damage_json,
        damage_foreign_class,
        damage_field,
        damage_column,
        damage_other_key,
    ],
)
def test_a_damaged_truncated_or_foreign_entry_is_computed_afresh(tmp_path, cache_dir, damage):
    base, cand = pairs(tmp_path)["graded"]  # (400 items: the deltas are a column aside)
    spec = CompareSpec.create(base, cand, metric="passed")
    first = compare(spec, cached=True)
    keep_analysis(first)
    (entry,) = cache_dir.iterdir()
    assert list(entry.glob("column-*.parquet"))
    damage(entry)
    entry_seal.seal(entry)  # (sealed so: what refuses it here is the read, not the seal)
    again = compare(spec, cached=True, complete=False)
    assert again.breakdowns_pending  # computed, no traceback
    assert not entry.exists()  # and the damaged entry dropped


def test_the_codec_refuses_a_class_outside_its_allowlist():
    columns = analysis_codec.Columns()
    with pytest.raises(analysis_codec.Unreadable):
        analysis_codec.decode({"class": "Path", "fields": {}}, columns)
    with pytest.raises(analysis_codec.Unstorable):
        analysis_codec.encode(object(), columns)
    with pytest.raises(analysis_codec.Unreadable):
        analysis_codec.decode({"array": "object", "values": [1]}, columns)


def test_probably_kept_sees_an_entry_of_the_files_as_they_are_now(tmp_path):
    base, cand = pairs(tmp_path)["graded"]
    assert not analysis_cache.probably_kept(base, cand)
    keep_analysis(compare(CompareSpec.create(base, cand, metric="passed"), cached=True))
    assert analysis_cache.probably_kept(base, cand)
    assert not analysis_cache.probably_kept(cand, base)
    stat = cand.stat()
    os.utime(cand, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert not analysis_cache.probably_kept(base, cand)


def test_a_small_pair_is_not_kept(tmp_path, monkeypatch, cache_dir):
    monkeypatch.setattr(analysis_cache, "MIN_ITEMS", 201)
    base, cand = pairs(tmp_path)["demo"]  # 200 items
    keep_analysis(compare(CompareSpec.create(base, cand), cached=True))
    assert not cache_dir.exists()


def test_equal_id_lists_are_kept_once_and_read_back_as_one_tuple():
    n = analysis_codec.ASIDE + 1
    regressions = tuple(f"r{i}" for i in range(n))
    same = tuple(f"r{i}" for i in range(n))  # equal, not the same object
    other = (*regressions[:-1], "elsewhere")  # same length, one id differs
    columns = analysis_codec.Columns()
    stored = analysis_codec.encode([regressions, same, other, regressions], columns)
    assert len(columns.series) == 2
    back = analysis_codec.decode(stored, analysis_codec.Columns(list(columns.series)))
    assert back == [regressions, same, other, regressions]
    assert back[0] is back[1] is back[3] and back[2][-1] == "elsewhere"


@pytest.mark.parametrize(
    ("name", "metric"), [("demo", None), ("graded", "score"), ("epochs", None)]
)
def test_a_reopen_knows_where_its_lists_are_among_the_paired_items(
    tmp_path, monkeypatch, name, metric
):
    base, cand = pairs(tmp_path)[name]
    first, again = open_twice(CompareSpec.create(base, cand, metric=metric), monkeypatch)
    assert analysis_cache.kept_positions(first) is None  # (computed: nothing kept to say)
    known = analysis_cache.kept_positions(again)
    assert known is not None
    ids = again.paired.items["item_id"]
    for at, listed in zip(known, (again.regressions, again.improvements), strict=True):
        assert at.dtype == np.int64
        assert tuple(ids.gather(at).to_list()) == listed


def _rewrite_positions(entry, change):
    meta = entry / analysis_cache.META
    data = json.loads(meta.read_text(encoding="utf-8"))
    change(data)
    meta.write_text(json.dumps(data), encoding="utf-8")
    entry_seal.seal(entry)  # (written so: intact)


def _swap_positions(data):
    data["positions"] = data["positions"][::-1]


def _positions_of_deltas(data):  # (a column that is not int64 positions)
    data["positions"][0] = data["analysis"]["deltas"]["column"]


def _out_of_range(entry):
    meta = json.loads((entry / analysis_cache.META).read_text(encoding="utf-8"))
    path = entry / f"column-{meta['positions'][0]}.parquet"
    at = pl.read_parquet(path).to_series()
    (at + 10_000).to_frame().write_parquet(path)
    entry_seal.seal(entry)


@pytest.mark.parametrize("damage", ["swapped", "deltas", "out_of_range"])
def test_positions_that_do_not_fit_their_list_are_a_damaged_entry(tmp_path, cache_dir, damage):
    base, cand = pairs(tmp_path)["graded"]
    spec = CompareSpec.create(base, cand, metric="score")
    keep_analysis(compare(spec, cached=True))
    (entry,) = cache_dir.iterdir()
    if damage == "swapped":
        _rewrite_positions(entry, _swap_positions)
    elif damage == "deltas":
        _rewrite_positions(entry, _positions_of_deltas)
    else:
        _out_of_range(entry)
    again = compare(spec, cached=True, complete=False)
    assert again.breakdowns_pending  # computed afresh, no traceback
    assert not entry.exists()


def test_an_entry_kept_without_positions_still_rebuilds_without_them(tmp_path, monkeypatch):
    base, cand = pairs(tmp_path)["graded"]
    spec = CompareSpec.create(base, cand, metric="score")
    keep_analysis(compare(spec, cached=True))
    (entry,) = (tmp_path / "cache" / analysis_cache.FOLDER).iterdir()
    _rewrite_positions(entry, lambda data: data.pop("positions"))
    with monkeypatch.context() as patched:
        no_recomputation(patched)
        again = compare(spec, cached=True, complete=False)
    assert not again.breakdowns_pending
    assert analysis_cache.kept_positions(again) is None
