"""Outcome categories end to end in core: the `outcome` column of the run formats, Inspect's
letters as outcomes, the pair's categorical comparison and the decision's reason.

The fixture pair tests/data/categorical/{baseline,candidate}.jsonl (made by make_pair.py there)
keeps the pass rate at 60.0% in both runs while 22 wrong answers become refusals.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.analysis.categories import outcome_comparison
from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.compare.pairing import pair_runs
from evaltui.core.decide.pair import decide
from evaltui.core.errors import InputError
from evaltui.core.policy.tags import TagMeanings
from evaltui.core.read.formats import load_run
from evaltui.core.stats.categorical import compare_categorical
from evaltui.core.stats.categorical_table import CategoricalTable
from tests.conftest import DATA

CATEGORICAL = DATA / "categorical"
BASE = CATEGORICAL / "baseline.jsonl"
CAND = CATEGORICAL / "candidate.jsonl"
INSPECT_LETTERS = CATEGORICAL / "inspect_letters.json"
INSPECT_ORIGINAL = DATA / "inspect_ai" / "2025-05-12T20-28-13-04-00_popularity.json"
LEVELS = ("correct", "error", "incorrect", "refused")


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# --- the run formats ------------------------------------------------------------------------


def test_native_jsonl_carries_outcome_and_an_errored_record_without_one_gets_its_status():
    run = load_run(CAND)
    assert run.table.schema["outcome"] == pl.String
    errored = run.table.filter(pl.col("status") == "error")
    assert set(errored["outcome"].to_list()) == {"error"}  # one of them has no outcome field
    assert set(run.table["outcome"].to_list()) == set(LEVELS)


def test_csv_and_parquet_carry_outcome_too(tmp_path):
    frame = load_run(BASE).table.select("item_id", "passed", "status", "outcome")
    csv = tmp_path / "run.csv"
    frame.write_csv(csv)
    parquet = tmp_path / "run.parquet"
    frame.write_parquet(parquet)
    for path in (csv, parquet):
        table = load_run(path).table
        assert table["outcome"].to_list() == frame["outcome"].to_list()


def test_a_record_without_an_outcome_in_a_file_with_outcomes_is_refused_naming_line(tmp_path):
    path = write(
        tmp_path / "run.jsonl",
        [
            {"item_id": 1, "passed": True, "outcome": "correct"},
            {"item_id": 2, "passed": False},
        ],
    )
    with pytest.raises(InputError) as caught:
        load_run(path)
    message = str(caught.value)
    assert f"{path}:2" in message and "'outcome'" in message and "missing (null)" in message


@pytest.mark.parametrize("value,found", [(3, "got 3"), ("", 'empty ("")'), (["a"], "got [")])
def test_an_outcome_that_is_not_text_is_refused_quoting_the_value(tmp_path, value, found):
    path = write(
        tmp_path / "run.jsonl",
        [
            {"item_id": 1, "passed": True, "outcome": "correct"},
            {"item_id": 2, "passed": False, "outcome": value},
        ],
    )
    with pytest.raises(InputError) as caught:
        load_run(path)
    message = str(caught.value)
    assert f"{path}:2" in message and "'outcome'" in message and found in message


def test_inspect_letters_p_and_n_become_outcomes():
    """tests/data/categorical/inspect_letters.json (make_inspect.py): Inspect's real .json log
    with its three samples scored P, N and I."""
    run = load_run(INSPECT_LETTERS)
    rows = run.table.select("item_id", "status", "outcome").rows()
    assert rows == [("1", "ok", "P"), ("2", "ok", "N"), ("3", "ok", "I")]
    assert run.table["score"].to_list() == [0.5, 0.0, 0.0]  # the score mapping is unchanged
    original = load_run(INSPECT_ORIGINAL)
    assert original.table["outcome"].to_list() == ["C", "C", "I"]


def test_an_errored_inspect_sample_has_the_outcome_error(tmp_path):
    """An errored sample (an EvalError and no scores, as Inspect writes one) is status "error"
    and outcome "error"."""
    log = json.loads(INSPECT_LETTERS.read_text())
    log["samples"][2]["error"] = {"message": "RuntimeError: 500", "traceback": "..."}
    log["samples"][2]["scores"] = None
    path = tmp_path / "errored.json"
    path.write_text(json.dumps(log))
    rows = load_run(path).table.select("status", "outcome").rows()
    assert rows == [("ok", "P"), ("ok", "N"), ("error", "error")]


def test_inspect_numbers_keep_no_outcome(tmp_path):
    log = json.loads(INSPECT_ORIGINAL.read_text())
    for sample, value in zip(log["samples"], (1.0, 0.0, "C"), strict=True):
        sample["scores"]["match"]["value"] = value
    path = tmp_path / "numbers.json"
    path.write_text(json.dumps(log))
    assert "outcome" not in load_run(path).table.columns


# --- the pair -------------------------------------------------------------------------------


def test_the_fixture_pair_gets_the_categorical_comparison_with_the_pass_rate_unchanged():
    analysis = compare_files(BASE, CAND)
    c = analysis.categorical
    assert c is not None
    assert c.table.levels == LEVELS
    assert c.table.counts == ((114, 0, 4, 2), (1, 6, 0, 1), (5, 0, 33, 22), (0, 0, 2, 10))
    expected = compare_categorical(c.table, alpha=analysis.options.alpha, adjust="holm")
    assert c == expected
    assert c.rejects and c.test.df == 3
    assert analysis.binary.delta == 0.0  # 60.0% in both: the verdict sees nothing
    assert analysis.verdict == "no_significant_difference"
    assert [m.level for m in c.moved_most(2)] == ["refused", "incorrect"]


def test_the_comparison_follows_the_analysis_options_and_the_policy_multiplicity():
    analysis = compare_files(BASE, CAND, alpha=0.01, ci_method="wald", confidence=0.9)
    c = analysis.categorical
    assert (c.alpha, c.ci_method, c.confidence, c.adjust) == (0.01, "wald", 0.9, "holm")


def test_two_levels_or_one_run_without_outcomes_give_no_categorical_comparison(tmp_path):
    two = [
        {"item_id": i, "passed": i % 2 == 0, "outcome": "C" if i % 2 else "I"} for i in range(40)
    ]
    plain = [{"item_id": i, "passed": i % 3 == 0} for i in range(40)]
    three = [
        {"item_id": i, "passed": i % 2 == 0, "outcome": ("C", "I", "N")[i % 3]} for i in range(40)
    ]
    a, b, c = (
        write(tmp_path / f"{n}.jsonl", r) for n, r in (("two", two), ("p", plain), ("t", three))
    )
    assert compare_files(a, a).categorical is None  # two levels: the 2x2 table says it all
    assert compare_files(b, c).categorical is None  # the baseline has no outcomes
    assert compare_files(c, c).categorical is not None


def test_runs_with_epochs_get_no_categorical_comparison(tmp_path):
    records = [
        {"item_id": i, "epoch": e, "passed": True, "outcome": ("C", "I", "N")[i % 3]}
        for i in range(30)
        for e in (1, 2)
    ]
    path = write(tmp_path / "epochs.jsonl", records)
    paired = pair_runs(load_run(path), load_run(path))
    assert outcome_comparison(paired) is None


def test_errored_items_excluded_from_both_arms_leave_the_error_level_out():
    analysis = compare_files(BASE, CAND, on_error="exclude")
    assert analysis.categorical.table.levels == ("correct", "incorrect", "refused")
    assert analysis.categorical.table.n == analysis.paired.n == 192


# --- the decision ---------------------------------------------------------------------------


def test_a_rejected_stuart_maxwell_makes_the_first_line_say_the_mix_changed():
    analysis = compare_files(BASE, CAND)
    decision = decide(analysis, (), None, TagMeanings())
    reason = next(r for r in decision.reasons if r.kind == "outcome_mix")
    assert not reason.blocking
    assert decision.status == "needs_review"
    assert decision.line.startswith(
        "NEEDS REVIEW · outcome mix changed (Stuart-Maxwell p = 1.4e-04): "
        "refused +11.5 pts, incorrect -10.5 pts · "
    )
    assert "chi² = 20.37 on 3 df" in reason.text
    assert "refused 6.0% → 17.5% (+11.5 pts [+7.1, +17.0], adjusted p = 2.3e-05)" in reason.text


def test_no_outcome_reason_when_the_mix_did_not_move_significantly(tmp_path):
    records = [
        {"item_id": i, "passed": i % 2 == 0, "outcome": ("C", "I", "N")[i % 3]} for i in range(60)
    ]
    path = write(tmp_path / "same.jsonl", records)
    analysis = compare_files(path, path)
    assert analysis.categorical is not None and not analysis.categorical.rejects
    decision = decide(analysis, (), None, TagMeanings())
    assert all(r.kind != "outcome_mix" for r in decision.reasons)


def test_the_reason_quotes_untrusted_category_names_inertly(tmp_path):
    evil = "refused\n[bold]x\u202e"
    base = [{"item_id": i, "passed": i < 30, "outcome": "C" if i < 30 else "I"} for i in range(60)]
    cand = [dict(r) for r in base]
    for r in cand[30:55]:
        r["outcome"] = evil
    base[59]["outcome"] = "N"
    a = write(tmp_path / "a.jsonl", base)
    b = write(tmp_path / "b.jsonl", cand)
    decision = decide(compare_files(a, b), (), None, TagMeanings())
    assert "\n" not in decision.line and "\u202e" not in decision.line
    assert "outcome mix changed" in decision.line


def test_table_from_the_pair_matches_counting_by_hand():
    base = load_run(BASE).table.select("item_id", "outcome")
    cand = load_run(CAND).table.select("item_id", "outcome")
    joined = base.join(cand, on="item_id", suffix="_c")
    by_hand = CategoricalTable.from_labels(
        joined["outcome"].to_list(), joined["outcome_c"].to_list()
    )
    assert compare_files(BASE, CAND).categorical.table == by_hand
