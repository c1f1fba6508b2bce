"""The omnibus tests for three or more runs (Cochran's Q, Friedman) against numbers from elsewhere.

Anchors, each with its source beside it:

- Friedman: R's ``friedman.test`` on its own help-page examples and on a matrix of ties,
  printed to 17 digits by tests/data/reference/friedman_r.R (R 4.2.2 Patched, 2022-11-10
  r83330); ``scipy.stats.friedmanchisquare`` live on seeded random matrices with ties.
- Cochran's Q: the worked examples of two vendor manuals (NAG G08ALF, WaveMetrics Igor Pro),
  as printed there; statsmodels 0.15.0's ``cochrans_q`` on seeded random matrices, stored in
  tests/data/reference/cochran_q_statsmodels.json by cochran_q_statsmodels.py; and the identity
  with McNemar's uncorrected chi-square at k = 2 (Cochran 1950), against our own ``mcnemar``.
  We could not read a textbook's Cochran example (Cochran 1950, Conover 1999, Sheskin) and
  claim none.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evaltui.core.stats.omnibus import (
    COCHRAN_MIN_CELLS,
    FLAG_TEXT,
    FRIEDMAN_MIN_ITEMS,
    OmnibusResult,
    cochran_q,
    friedman,
)
from evaltui.core.stats.paired_table import PairedTable, mcnemar

REFERENCE = Path(__file__).resolve().parent.parents[1] / "data" / "reference"


def _bits(rows: list[str]) -> np.ndarray:
    """'0'/'1' row strings -> an n x k boolean matrix."""
    return np.array([[c == "1" for c in row] for row in rows], dtype=bool)


# ============================================================================================
# Friedman against R
# ============================================================================================

# ?friedman.test, from Hollander & Wolfe (1973), p. 140ff.: times to round first base for 22
# players (the help page's comment says 18; its matrix has 22 rows) under three methods,
# "Round Out", "Narrow Angle", "Wide Angle". Typed from the help page (example(friedman.test)).
ROUNDING_TIMES = np.array(
    [
        [5.40, 5.50, 5.55],
        [5.85, 5.70, 5.75],
        [5.20, 5.60, 5.50],
        [5.55, 5.50, 5.40],
        [5.90, 5.85, 5.70],
        [5.45, 5.55, 5.60],
        [5.40, 5.40, 5.35],
        [5.45, 5.50, 5.35],
        [5.25, 5.15, 5.00],
        [5.85, 5.80, 5.70],
        [5.25, 5.20, 5.10],
        [5.65, 5.55, 5.45],
        [5.60, 5.35, 5.45],
        [5.05, 5.00, 4.95],
        [5.50, 5.50, 5.40],
        [5.45, 5.55, 5.50],
        [5.55, 5.55, 5.35],
        [5.45, 5.50, 5.55],
        [5.50, 5.45, 5.25],
        [5.65, 5.60, 5.40],
        [5.70, 5.65, 5.55],
        [6.30, 6.30, 6.25],
    ]
)


def test_friedman_matches_r_friedman_test_on_rounding_times():
    # R 4.2.2: friedman.test(RoundingTimes) prints "Friedman chi-squared = 11.143, df = 2,
    # p-value = 0.003805"; to 17 digits statistic 11.142857142857142, p 0.003805040775511363.
    result = friedman(ROUNDING_TIMES)
    assert result.test == "friedman"
    assert result.label == "Friedman"
    assert result.statistic == pytest.approx(11.142857142857142, rel=1e-14)
    assert result.p == pytest.approx(0.003805040775511363, rel=1e-12)
    assert (result.df, result.n, result.k) == (2, 22, 3)
    # Four rows have a tied pair (players 7, 15, 17 and 22), none is fully tied.
    assert result.informative == 22
    assert result.flags == ()


def test_friedman_matches_r_on_warpbreaks_means_with_two_runs():
    # ?friedman.test's second example: warpbreaks means by tension (blocks L, M, H) and wool
    # (groups A, B); R 4.2.2: friedman.test(wb$x, wb$w, wb$t) -> 0.33333333333333331, df = 1,
    # p = 0.56370286165077299. k = 2, which scipy.stats.friedmanchisquare refuses.
    wb = np.array(
        [
            [44.555555555555557, 28.222222222222221],
            [24.0, 28.777777777777779],
            [24.555555555555557, 18.777777777777779],
        ]
    )
    result = friedman(wb)
    assert result.statistic == pytest.approx(0.33333333333333331, rel=1e-14)
    assert result.p == pytest.approx(0.56370286165077299, rel=1e-12)
    assert (result.df, result.n, result.k, result.informative) == (1, 3, 2, 3)
    assert result.flags == ("few_informative",)


# Ties of every kind: pairs, a triple, two pairs in a row, two fully tied rows (rows 3 and 6).
TIES = np.array(
    [
        [1, 2, 2, 3],
        [4, 4, 4, 1],
        [2, 2, 2, 2],
        [3, 1, 2, 5],
        [1, 1, 2, 2],
        [5, 5, 5, 5],
        [2, 3, 1, 1],
        [0, 4, 4, 4],
        [3, 3, 1, 2],
        [1, 2, 3, 4],
    ],
    dtype=float,
)


def test_friedman_tie_correction_matches_r_on_a_matrix_of_ties():
    # R 4.2.2: friedman.test(Ties) (the same matrix, in friedman_r.R) -> 1.6567164179104477,
    # df = 3, p = 0.64659920165786489.
    result = friedman(TIES)
    assert result.statistic == pytest.approx(1.6567164179104477, rel=1e-14)
    assert result.p == pytest.approx(0.64659920165786489, rel=1e-12)
    assert (result.df, result.n, result.k, result.informative) == (3, 10, 4, 8)
    assert result.flags == ("few_informative",)
    live = stats.friedmanchisquare(*TIES.T)
    assert result.statistic == pytest.approx(live.statistic, rel=1e-12)


def test_friedman_matches_scipy_friedmanchisquare_on_random_tied_scores():
    rng = np.random.default_rng(17)
    checked = 0
    for _ in range(400):
        n = int(rng.integers(1, 60))
        k = int(rng.integers(3, 8))
        levels = int(rng.integers(2, 6))  # few distinct values: ties in most rows
        scores = rng.integers(0, levels, size=(n, k)).astype(float)
        if rng.random() < 0.3:
            scores = scores / 4 - 0.25  # fractional values, ties intact
        ours = friedman(scores)
        with np.errstate(divide="ignore", invalid="ignore"):
            ref = stats.friedmanchisquare(*scores.T)
        if ours.statistic is None:
            assert np.isnan(ref.statistic)
            continue
        assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-10, abs=1e-12)
        assert ours.p == pytest.approx(float(ref.pvalue), rel=1e-9, abs=1e-15)
        assert ours.df == k - 1
        checked += 1
    assert checked > 350


def test_friedman_matches_scipy_on_continuous_scores_without_ties():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(80, 5)) + np.array([0.0, 0.1, 0.2, 0.0, 0.3])
    ours = friedman(scores)
    ref = stats.friedmanchisquare(*scores.T)
    assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
    assert ours.p == pytest.approx(float(ref.pvalue), rel=1e-10)
    assert ours.informative == 80


# ============================================================================================
# Cochran's Q against published examples and statsmodels
# ============================================================================================


def test_cochran_q_matches_nag_g08alf_example():
    # NAG Library Manual (Mark 26.2 and 27.3), G08ALF (test_cochranq), example program results:
    # 12 blocks x 3 treatments -> "Cochrans Q test statistic = 2.8000, Degrees of freedom = 2.0,
    # Upper-tail probability = 0.2466".
    passed = _bits(
        ["111", "111", "010", "110", "000", "111", "111", "110", "001", "010", "111", "111"]
    )
    result = cochran_q(passed)
    assert result.test == "cochran_q"
    assert result.label == "Cochran's Q"
    assert round(result.statistic, 4) == 2.8
    assert round(result.p, 4) == 0.2466
    assert (result.df, result.n, result.k) == (2, 12, 3)
    assert result.informative == 5  # 7 rows are all-pass or all-fail
    assert result.flags == ("few_informative",)  # 5 x 3 = 15 < 24


@pytest.mark.parametrize(
    ("rows", "q", "p"),
    [
        (
            ["00001", "00001", "00011", "01011", "01010", "11010", "11000", "10000", "10000"],
            5.56522,
            0.234056,
        ),
        (
            ["00001", "00001", "00011", "01011", "11011", "11011", "11010", "11000", "10000"],
            10.3636,
            0.0347281,
        ),
    ],
    ids=["wave1", "wave2"],
)
def test_cochran_q_matches_igor_pro_manual_examples(rows, q, p):
    # WaveMetrics Igor Pro, Statistics: StatsCochranTest, the manual's wave1 and wave2
    # (9 blocks x 5 groups, Group3 all zero), printed to 6 significant digits.
    result = cochran_q(_bits(rows))
    assert f"{result.statistic:.6g}" == str(q)
    assert f"{result.p:.6g}" == str(p)
    assert result.df == 4
    assert result.flags == ()  # 9 informative rows x 5 = 45


def _statsmodels_cases() -> list[dict]:
    doc = json.loads((REFERENCE / "cochran_q_statsmodels.json").read_text())
    assert doc["provenance"].startswith("statsmodels 0.15.0")
    return doc["cases"]


@pytest.mark.parametrize(
    "case", _statsmodels_cases(), ids=lambda c: f"{len(c['rows'])}x{len(c['rows'][0])}"
)
def test_cochran_q_matches_statsmodels_cochrans_q(case):
    # statsmodels 0.15.0 statsmodels.stats.contingency_tables.cochrans_q, values stored by
    # tests/data/reference/cochran_q_statsmodels.py.
    passed = _bits(case["rows"])
    result = cochran_q(passed)
    assert result.statistic == pytest.approx(case["statistic"], rel=1e-12)
    assert result.p == pytest.approx(case["p"], rel=1e-10)
    assert result.df == case["df"]


# ============================================================================================
# Identities
# ============================================================================================


def test_cochran_q_with_two_runs_equals_uncorrected_mcnemar_chi_square():
    # Cochran (1950): for k = 2, Q = (b - c)^2 / (b + c).
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        passed = rng.random((n, 2)) < rng.uniform(0.05, 0.95, size=(n, 1))
        table = PairedTable.from_verdicts(passed[:, 0], passed[:, 1])
        ref = mcnemar(table)
        result = cochran_q(passed)
        assert result.informative == table.discordant
        if ref.chi2 is None:
            assert result.statistic is None and result.flags == ("undefined",)
            continue
        assert result.statistic == pytest.approx(ref.chi2, rel=1e-14)
        assert result.p == pytest.approx(ref.chi2_p, rel=1e-12)
        assert result.df == 1


def test_cochran_q_two_runs_equals_mcnemar_on_reading_list_table():
    # The reading list's 141 / 9 / 21 / 29 table: (9 - 21)^2 / 30 = 4.8.
    passed = np.array([[1, 1]] * 141 + [[1, 0]] * 9 + [[0, 1]] * 21 + [[0, 0]] * 29, dtype=bool)
    result = cochran_q(passed)
    ref = mcnemar(PairedTable(both_pass=141, regressions=9, improvements=21, both_fail=29))
    assert result.statistic == pytest.approx(4.8, rel=1e-15)
    assert result.statistic == pytest.approx(ref.chi2, rel=1e-15)
    assert result.informative == 30
    assert result.flags == ()  # 30 x 2 = 60


def test_friedman_on_pass_fail_equals_cochran_q():
    # On 0/1 data the tie-corrected Friedman statistic is Cochran's Q.
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 80))
        k = int(rng.integers(2, 7))
        passed = rng.random((n, k)) < rng.uniform(0.05, 0.95, size=(n, 1))
        q = cochran_q(passed)
        f = friedman(passed.astype(float))
        assert f.informative == q.informative
        if q.statistic is None:
            assert f.statistic is None
            continue
        assert f.statistic == pytest.approx(q.statistic, rel=1e-12, abs=1e-15)


def test_all_agree_items_change_neither_statistic():
    rng = np.random.default_rng(2)
    passed = rng.random((40, 4)) < 0.5
    padded = np.vstack([passed, np.ones((500, 4), bool), np.zeros((300, 4), bool)])
    assert cochran_q(padded).statistic == pytest.approx(cochran_q(passed).statistic, rel=1e-14)
    assert cochran_q(padded).informative == cochran_q(passed).informative
    assert cochran_q(padded).n == 840
    scores = rng.normal(size=(40, 4))
    tied = np.vstack([scores, np.repeat(rng.normal(size=(200, 1)), 4, axis=1)])
    assert friedman(tied).statistic == pytest.approx(friedman(scores).statistic, rel=1e-14)
    assert friedman(tied).informative == 40


@pytest.mark.parametrize("test", [cochran_q, friedman])
def test_omnibus_statistics_do_not_depend_on_row_or_column_order(test):
    rng = np.random.default_rng(23)
    for _ in range(50):
        n, k = int(rng.integers(5, 60)), int(rng.integers(3, 7))
        if test is cochran_q:
            data = rng.random((n, k)) < rng.uniform(0.1, 0.9, size=(n, 1))
        else:
            data = rng.integers(0, 4, size=(n, k)).astype(float)
        base = test(data)
        shuffled = test(data[rng.permutation(n)][:, rng.permutation(k)])
        assert (shuffled.informative, shuffled.n, shuffled.k) == (base.informative, n, k)
        if base.statistic is None:
            assert shuffled.statistic is None
        else:
            # Integer arithmetic: the same bits, not merely close.
            assert shuffled.statistic == base.statistic
            assert shuffled.p == base.p


# ============================================================================================
# Undefined and flagged
# ============================================================================================


@pytest.mark.parametrize(
    "rows",
    [["111", "111"], ["000"], ["111", "000", "000", "111"], ["11", "00"]],
    ids=["all-pass", "one-all-fail", "mixed-agreeing", "two-runs"],
)
def test_cochran_q_is_undefined_when_every_item_agrees(rows):
    result = cochran_q(_bits(rows))
    assert result.statistic is None and result.p is None
    assert result.flags == ("undefined",)
    assert result.informative == 0
    assert not result.defined
    assert result.df == len(rows[0]) - 1


def test_friedman_is_undefined_when_every_row_is_fully_tied():
    scores = np.array([[0.5, 0.5, 0.5], [1.0, 1.0, 1.0], [-2.0, -2.0, -2.0]])
    result = friedman(scores)
    assert result.statistic is None and result.p is None
    assert result.flags == ("undefined",)
    assert (result.n, result.k, result.informative, result.df) == (3, 3, 0, 2)
    assert friedman(np.array([[0.0, -0.0]])).flags == ("undefined",)  # -0.0 ties with 0.0


def test_balanced_disagreement_is_defined_with_statistic_zero():
    # Every run passes the same number of items: Q = 0, p = 1, which here *is* what the data say.
    passed = _bits(["100", "010", "001"] * 10)
    result = cochran_q(passed)
    assert result.statistic == 0.0 and result.p == 1.0
    assert result.flags == ()
    assert friedman(passed.astype(float)).statistic == 0.0


def _with_informative(count: int, k: int, agreeing: int = 50) -> np.ndarray:
    """count items on which exactly the first run passes, plus all-pass items."""
    informative = np.zeros((count, k), bool)
    informative[:, 0] = True
    return np.vstack([informative, np.ones((agreeing, k), bool)])


def test_cochran_q_flags_few_informative_items_below_24_cells():
    assert COCHRAN_MIN_CELLS == 24
    assert cochran_q(_with_informative(7, 3)).flags == ("few_informative",)  # 21 cells
    assert cochran_q(_with_informative(8, 3)).flags == ()  # 24 cells
    assert cochran_q(_with_informative(5, 4)).flags == ("few_informative",)  # 20
    assert cochran_q(_with_informative(6, 4)).flags == ()  # 24
    assert cochran_q(_with_informative(11, 2)).flags == ("few_informative",)  # 22
    assert cochran_q(_with_informative(12, 2)).flags == ()  # 24


def test_friedman_flags_few_informative_items_by_n_gt_15_or_k_gt_4():
    assert FRIEDMAN_MIN_ITEMS == 16
    rng = np.random.default_rng(8)
    for k in (2, 3, 4):
        assert friedman(rng.normal(size=(15, k))).flags == ("few_informative",)
        assert friedman(rng.normal(size=(16, k))).flags == ()
    # Beyond four runs the 24-cell floor still applies: 4 x 5 = 20 flagged, 5 x 5 = 25 not.
    assert friedman(rng.normal(size=(4, 5))).flags == ("few_informative",)
    assert friedman(rng.normal(size=(5, 5))).flags == ()
    # Fully tied rows do not count: 15 informative items among 100 are still few.
    padded = np.vstack([rng.normal(size=(15, 3)), np.zeros((85, 3))])
    assert friedman(padded).flags == ("few_informative",)


def test_every_flag_has_plain_words():
    seen = set()
    for result in (cochran_q(_bits(["111"])), cochran_q(_with_informative(2, 3))):
        seen.update(result.flags)
    assert seen == set(FLAG_TEXT)


def test_result_is_frozen():
    result = cochran_q(_bits(["110", "011"]))
    assert isinstance(result, OmnibusResult)
    with pytest.raises(AttributeError):
        result.statistic = 1.0  # type: ignore[misc]


# ============================================================================================
# Programming errors
# ============================================================================================


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.array([True, False]), "must be a 2-D array"),
        (np.zeros((2, 2, 2), bool), "must be a 2-D array"),
        (np.zeros((3, 1), bool), "at least 2 columns"),
        (np.zeros((0, 3), bool), "at least 1 row"),
        (np.array([[1, 0], [0, 1]]), "must be a boolean array, got dtype int64"),
        (np.array([[1.0, 0.0]]), "must be a boolean array, got dtype float64"),
    ],
)
def test_cochran_q_refuses_malformed_input_naming_it(value, message):
    with pytest.raises(ValueError, match=message):
        cochran_q(value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.array([1.0, 2.0]), "must be a 2-D array"),
        (np.zeros((4, 1)), "at least 2 columns"),
        (np.zeros((0, 3)), "at least 1 row"),
        (np.array([[True, False]]), "real-valued .* got dtype bool"),
        (np.array([["a", "b"]]), "real-valued"),
        (np.array([[1 + 1j, 2]]), "real-valued .* got dtype complex128"),
        (np.array([[1.0, np.nan], [2.0, 3.0]]), r"must be finite, got nan at row 0, column 1"),
        (np.array([[1.0, 2.0], [np.inf, 3.0]]), r"must be finite, got inf at row 1, column 0"),
    ],
)
def test_friedman_refuses_malformed_input_naming_it(value, message):
    with pytest.raises(ValueError, match=message):
        friedman(value)


def test_friedman_accepts_integer_scores():
    assert friedman(TIES.astype(np.int64)).statistic == friedman(TIES).statistic


def test_omnibus_module_does_not_import_scipy_stats():
    code = "import sys, evaltui.core.stats.omnibus\nprint('scipy.stats' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
