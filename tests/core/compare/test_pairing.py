"""Pairing rules: nothing dropped silently, duplicates only with epochs, errors decided up front."""

from __future__ import annotations

import polars as pl
import pytest

from evaltui.core.compare.pairing import PairingOptions, pair_runs
from evaltui.core.errors import InputError, PairingError, UsageError
from evaltui.core.read.formats import load_run


def pair(write_jsonl, base, cand, **options):
    return pair_runs(
        load_run(write_jsonl("base.jsonl", base)),
        load_run(write_jsonl("cand.jsonl", cand)),
        PairingOptions(**options),
    )


def rec(item_id, passed, **extra):
    return {"item_id": item_id, "passed": passed, **extra}


def test_items_pair_on_id_whatever_the_order(write_jsonl):
    paired = pair(
        write_jsonl,
        [rec("a", True), rec("b", False), rec("c", True)],
        [rec("c", False), rec("a", True), rec("b", True)],
    )
    assert paired.items["item_id"].to_list() == ["a", "b", "c"]
    assert paired.items["baseline_pass"].to_list() == [1.0, 0.0, 1.0]
    assert paired.items["candidate_pass"].to_list() == [1.0, 1.0, 0.0]
    assert paired.items["candidate_row"].to_list() == [1, 2, 0]
    assert paired.binary


def test_missing_items_are_refused_with_their_ids_and_counts(write_jsonl):
    base = [rec(f"q{i}", True) for i in range(10)]
    cand = [rec(f"q{i}", True) for i in range(3, 10)] + [rec("new", False)]
    with pytest.raises(PairingError) as err:
        pair(write_jsonl, base, cand)
    message = str(err.value)
    assert "3 item(s) of" in message and "'q0', 'q1', 'q2'" in message
    assert "1 item(s) of" in message and "'new'" in message
    assert "--allow-missing" in message


def test_allow_missing_pairs_the_overlap_and_reports_attrition_per_arm(write_jsonl):
    base = [rec(f"q{i}", True) for i in range(10)]
    cand = [rec(f"q{i}", True) for i in range(3, 10)] + [rec("new", False)]
    paired = pair(write_jsonl, base, cand, allow_missing=True)
    report = paired.report
    assert report.paired == 7
    assert report.missing_in_candidate == ("q0", "q1", "q2")
    assert report.missing_in_baseline == ("new",)
    assert any("missing from the candidate" in p for p in report.problems)


def test_duplicate_id_without_epochs_is_an_error(write_jsonl):
    with pytest.raises(InputError) as err:
        pair(write_jsonl, [rec("a", True), rec("b", True), rec("a", False)], [rec("a", True)])
    message = str(err.value)
    assert "base.jsonl" in message and "duplicate item_id 'a' at records 1, 3" in message
    assert "epoch" in message


@pytest.mark.parametrize(
    "ids",
    [["a", "b", "b", "c"], ["a", "c", "b", "c"], ["b", "b"]],
    ids=["sorted-with-a-repeat", "unsorted", "two-equal"],
)
def test_a_repeated_id_is_found_whether_or_not_the_ids_are_in_order(write_jsonl, ids):
    # ids in strictly increasing order skip the hashing check: a repeat is never increasing
    with pytest.raises(InputError, match="duplicate item_id"):
        pair(write_jsonl, [rec(i, True) for i in ids], [rec(i, True) for i in sorted(set(ids))])


def test_epochs_explain_duplicates_and_are_averaged_within_each_arm(write_jsonl):
    base = [rec("a", e < 2, epoch=e + 1) for e in range(4)] + [rec("b", True, epoch=1)]
    cand = [rec("a", True, epoch=e + 1) for e in range(2)] + [rec("b", False, epoch=1)]
    paired = pair(write_jsonl, base, cand)
    assert paired.items["baseline_pass"].to_list() == [0.5, 1.0]
    assert paired.items["candidate_pass"].to_list() == [1.0, 0.0]
    assert paired.report.baseline.epochs_min == 1 and paired.report.baseline.epochs_max == 4
    assert paired.report.baseline.unequal_epochs
    assert not paired.binary
    assert any("unequal epochs in the baseline" in p for p in paired.report.problems)


def test_duplicate_epoch_of_an_item_is_an_error(write_jsonl):
    base = [rec("a", True, epoch=1), rec("a", False, epoch=1)]
    with pytest.raises(InputError, match="each \\(item_id, epoch\\) must appear once|duplicate"):
        pair(write_jsonl, base, [rec("a", True)])


def test_errors_and_timeouts_count_as_failures_by_default(write_jsonl):
    base = [rec("a", True), rec("b", True), rec("c", True)]
    cand = [rec("a", None, status="timeout"), rec("b", True, status="error"), rec("c", True)]
    paired = pair(write_jsonl, base, cand)
    assert paired.items["candidate_pass"].to_list() == [0.0, 1.0, 1.0]
    assert paired.report.candidate.errored_records == 2
    assert any("counted as failures" in p for p in paired.report.problems)


def test_on_error_exclude_removes_items_from_both_arms_and_counts_per_arm(write_jsonl):
    base = [rec("a", True), rec("b", None, status="error"), rec("c", True), rec("d", False)]
    cand = [rec("a", None, status="timeout"), rec("b", True), rec("c", True), rec("d", True)]
    paired = pair(write_jsonl, base, cand, on_error="exclude")
    assert paired.items["item_id"].to_list() == ["c", "d"]
    assert paired.report.baseline.excluded_records == 1
    assert paired.report.candidate.excluded_records == 1
    assert paired.report.excluded_items == ("a", "b")


def test_bad_on_error_value_is_a_usage_error():
    with pytest.raises(UsageError, match="on-error"):
        PairingOptions(on_error="skip")


def test_runs_sharing_no_ids_are_refused(write_jsonl):
    with pytest.raises(PairingError, match="share no item ids"):
        pair(write_jsonl, [rec("a", True)], [rec("b", True)], allow_missing=True)


def test_different_doc_hash_for_the_same_id_is_refused(write_jsonl):
    base = [rec("0", True, doc_hash="h1"), rec("1", True, doc_hash="h2")]
    cand = [rec("0", True, doc_hash="h1"), rec("1", True, doc_hash="other")]
    # doc_hash is not a canonical column; formats that carry it (lm-eval) keep it in the table.
    b = load_run(write_jsonl("b.jsonl", base))
    c = load_run(write_jsonl("c.jsonl", cand))
    b = type(b)(b.source, b.table.with_columns(doc_hash=pl.Series(["h1", "h2"])))
    c = type(c)(c.source, c.table.with_columns(doc_hash=pl.Series(["h1", "x"])))
    with pytest.raises(PairingError, match="doc_hash differs.*'1'"):
        pair_runs(b, c)


def test_verdicts_in_one_run_only_are_refused(write_jsonl):
    with pytest.raises(InputError, match="no 'passed' verdicts"):
        pair(write_jsonl, [rec("a", True)], [{"item_id": "a", "score": 0.5}])
