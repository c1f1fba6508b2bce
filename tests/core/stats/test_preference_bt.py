"""The Bradley-Terry fit (evaltui.core.stats.bradley_terry).

Published data: the journal citations of Stigler (1994), printed in Agresti (2002, Categorical
Data Analysis, 2nd ed., p. 448, section 10.6) and used in the BradleyTerry2 vignette (Turner and
Firth, "Bradley-Terry models in R: the BradleyTerry2 package", section "Example: Analysis of
journal citations"). The estimates and standard errors below were computed by R itself:
R 4.2.2 Patched (2022-11-10 r83330), BradleyTerry2 1.1.2,
    BTm(cbind(win1, win2), journal1, journal2, ~ journal, id = "journal", data = citations.sf)
and the same model as glm(..., family = binomial) on the +1/-1 design; the script is
tests/data/reference/preference_reference.R. Ties as half wins: the same glm with fractional
successes. scipy.optimize cross-checks run live.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, special

from evaltui.core.stats.bradley_terry import BT_STATUS_TEXT, BT_STATUSES, bradley_terry
from evaltui.core.stats.preference import PreferenceCounts
from evaltui.core.stats.preference_matrix import PairTally
from tests.conftest import examples

# citations[cited, citing]: a citation of journal1 by journal2 is a win for journal1
# (countsToBinomial(citations), self-citations ignored).
CITATIONS = [
    ("Biometrika", "Comm Statist", 730, 33),
    ("Biometrika", "JASA", 498, 320),
    ("Biometrika", "JRSS-B", 221, 284),
    ("Comm Statist", "JASA", 68, 813),
    ("Comm Statist", "JRSS-B", 17, 276),
    ("JASA", "JRSS-B", 142, 325),
]
JOURNALS = ("Biometrika", "Comm Statist", "JASA", "JRSS-B")


def _citation_tallies() -> list[PairTally]:
    # PreferenceCounts(a_better, b_better, ties): journal1 (system_a) "better" = cited.
    return [PairTally(x, y, PreferenceCounts(w1, w2, 0)) for x, y, w1, w2 in CITATIONS]


# summary(citeModel)$coefficients and vcov(citeModel), reference Biometrika.
R_BIOMETRIKA = {
    "Comm Statist": (-2.949072496843909, 0.1025453353698571),
    "JASA": (-0.479569769751992, 0.0605887292396263),
    "JRSS-B": (0.268954055819472, 0.0708299651057058),
}
R_VCOV = [
    [0.01051554580611646, 0.00227454711886455, 0.00146041939920181],
    [0.00227454711886455, 0.00367099411087275, 0.00168355767827380],
    [0.00146041939920181, 0.00168355767827380, 0.00501688395687550],
]
# glm(cbind(win1, win2) ~ 0 + X, binomial, control = glm.control(epsilon = 1e-14)) on the +1/-1
# design: the same estimates, and the standard errors at the maximum itself (BTm stops at glm's
# default tolerance, one IRLS step earlier: its SEs agree to about 1e-8 relative).
R_GLM_TIGHT = {
    "Comm Statist": (-2.949072496843909, 0.1025453355112088),
    "JASA": (-0.479569769751993, 0.0605887292482307),
    "JRSS-B": (0.268954055819472, 0.0708299651111413),
}
R_LOGLIK = -20.1969403272265  # logLik(citeModel): the binomial log-likelihood, with choose()
# update(citeModel, refcat = "JASA")
R_JASA = {
    "Biometrika": (0.479569769751993, 0.0605887292396264),
    "Comm Statist": (-2.469502727091918, 0.0981704929154383),
    "JRSS-B": (0.748523825571464, 0.0729435583941491),
}


@pytest.mark.parametrize(("baseline", "expected"), [("Biometrika", R_BIOMETRIKA), ("JASA", R_JASA)])
def test_bradley_terry_matches_r_btm_on_the_stigler_citations_data(baseline, expected):
    fit = bradley_terry(_citation_tallies(), baseline)
    assert fit.strength(baseline).status == "baseline"
    assert fit.strength(baseline).log_strength == 0.0
    for journal, (estimate, se) in expected.items():
        s = fit.strength(journal)
        assert s.status == "estimated"
        assert s.log_strength == pytest.approx(estimate, abs=1e-9)
        assert s.se == pytest.approx(se, rel=1e-7)
        z = special.ndtri(0.975)
        assert s.ci.lower == pytest.approx(estimate - z * se, abs=1e-7)
        assert s.ci.upper == pytest.approx(estimate + z * se, abs=1e-7)
    assert fit.flags == ()


def test_bradley_terry_matches_r_glm_on_the_plus_minus_one_design_to_ten_digits():
    fit = bradley_terry(_citation_tallies(), "Biometrika")
    for journal, (estimate, se) in R_GLM_TIGHT.items():
        assert fit.strength(journal).log_strength == pytest.approx(estimate, abs=1e-12)
        assert fit.strength(journal).se == pytest.approx(se, rel=1e-10)


def test_bradley_terry_covariance_matches_r_vcov_on_the_citations_data():
    fit = bradley_terry(_citation_tallies(), "Biometrika")
    assert fit.estimated == ("Comm Statist", "JASA", "JRSS-B")
    assert np.array(fit.covariance) == pytest.approx(np.array(R_VCOV), rel=1e-6)
    # A contrast between two estimated journals: JRSS-B - JASA, as refcat = "JASA" gives it.
    estimate, se = fit.contrast("JRSS-B", "JASA")
    assert estimate == pytest.approx(R_JASA["JRSS-B"][0], abs=1e-9)
    assert se == pytest.approx(R_JASA["JRSS-B"][1], rel=1e-7)


def test_bradley_terry_log_likelihood_is_r_loglik_without_the_binomial_coefficients():
    fit = bradley_terry(_citation_tallies(), "Biometrika")
    log_choose = sum(
        special.gammaln(w1 + w2 + 1) - special.gammaln(w1 + 1) - special.gammaln(w2 + 1)
        for _, _, w1, w2 in CITATIONS
    )
    assert fit.log_likelihood + log_choose == pytest.approx(R_LOGLIK, abs=1e-8)


# Ties counted as half a win each: glm(cbind(a + t/2, b + t/2) ~ 0 + X, binomial), reference s1
# (preference_reference.R, section 2).
TIES = [
    ("s1", "s2", 30, 45, 25),
    ("s1", "s3", 50, 30, 20),
    ("s1", "s4", 20, 20, 10),
    ("s2", "s3", 40, 25, 15),
    ("s2", "s4", 12, 30, 8),
    ("s3", "s4", 10, 35, 5),
]
# glm.control(epsilon = 1e-14): with glm's default 1e-8 the standard errors are those of the
# working weights one IRLS step before the maximum (off in the 7th digit).
R_TIES = {
    "s2": (0.0682802605652701, 0.155217335930467),
    "s3": (-0.4106234761164247, 0.157640730204247),
    "s4": (0.4825416229078347, 0.192069548320461),
}
R_TIES_KERNEL = -286.70829130838  # sum(w_a log p + w_b log(1 - p)) at the glm fit


def test_bradley_terry_with_ties_as_half_wins_matches_r_glm_with_fractional_successes():
    tallies = [PairTally(x, y, PreferenceCounts(a, b, t)) for x, y, a, b, t in TIES]
    fit = bradley_terry(tallies, "s1")
    for system, (estimate, se) in R_TIES.items():
        assert fit.strength(system).log_strength == pytest.approx(estimate, abs=1e-9)
        assert fit.strength(system).se == pytest.approx(se, rel=1e-9)
    assert fit.log_likelihood == pytest.approx(R_TIES_KERNEL, abs=1e-8)
    # 2 * 30 + 25 ... : each tie is half a win for both.
    assert fit.strength("s1").wins == 30 + 50 + 20 + (25 + 20 + 10) / 2
    assert fit.strength("s1").comparisons == 100 + 100 + 50


def test_win_probability_against_the_baseline_is_the_logistic_of_the_strength():
    fit = bradley_terry(_citation_tallies(), "Biometrika")
    s = fit.strength("JRSS-B")
    assert s.win_probability == pytest.approx(1 / (1 + math.exp(-s.log_strength)))
    lo, hi = s.win_probability_ci
    assert lo == pytest.approx(special.expit(s.ci.lower))
    assert hi == pytest.approx(special.expit(s.ci.upper))
    assert fit.strength("Biometrika").win_probability == 0.5


# --- where the maximum likelihood estimate does not exist --------------------------------------


def test_a_system_that_wins_every_comparison_is_at_plus_infinity_not_a_huge_number():
    tallies = [
        PairTally("base", "x", PreferenceCounts(0, 10, 0)),  # x beats base every time
        PairTally("base", "y", PreferenceCounts(5, 6, 2)),
        PairTally("y", "x", PreferenceCounts(0, 3, 0)),  # and y
        PairTally("base", "z", PreferenceCounts(4, 0, 0)),  # z loses every time
    ]
    fit = bradley_terry(tallies, "base")
    x, y, z = (fit.strength(s) for s in ("x", "y", "z"))
    assert x.status == "plus_infinity" and x.log_strength is None and x.ci is None
    assert x.win_probability == 1.0
    assert z.status == "minus_infinity" and z.win_probability == 0.0
    # y is fitted on the baseline's own comparisons only: 6 + 1 wins against 5 + 1.
    assert y.status == "estimated"
    assert y.log_strength == pytest.approx(math.log(7 / 6), abs=1e-10)
    assert fit.flags == ("infinite_strength",)
    assert fit.estimated == ("y",)


def test_a_system_placed_neither_above_nor_below_the_baseline_is_not_identified():
    # top beats both; base and other were never compared with each other.
    tallies = [
        PairTally("top", "base", PreferenceCounts(5, 0, 0)),
        PairTally("top", "other", PreferenceCounts(5, 0, 0)),
    ]
    fit = bradley_terry(tallies, "base")
    assert fit.strength("top").status == "plus_infinity"
    assert fit.strength("other").status == "not_identified"
    assert set(fit.flags) == {"infinite_strength", "not_identified"}
    assert fit.contrast("other", "base") is None


def test_ties_link_systems_both_ways():
    # Only ties between base and x: a finite estimate of 0, not an infinity.
    fit = bradley_terry(
        [
            PairTally("base", "x", PreferenceCounts(0, 0, 6)),
            PairTally("base", "y", PreferenceCounts(3, 4, 0)),
        ],
        "base",
    )
    assert fit.strength("x").status == "estimated"
    assert fit.strength("x").log_strength == pytest.approx(0.0, abs=1e-12)


def test_a_comparison_graph_that_is_not_connected_is_refused_naming_the_groups():
    tallies = [
        PairTally("a", "b", PreferenceCounts(3, 4, 1)),
        PairTally("c", "d", PreferenceCounts(2, 5, 0)),
    ]
    with pytest.raises(ValueError, match=r"2 groups never compared.*\{a, b\} and \{c, d\}"):
        bradley_terry(tallies, "a")


def test_bradley_terry_refuses_an_unknown_baseline():
    with pytest.raises(ValueError, match="baseline 'Nature' is not among the systems"):
        bradley_terry(_citation_tallies(), "Nature")


def test_every_strength_status_has_words():
    assert set(BT_STATUS_TEXT) == set(BT_STATUSES)


def test_repr_names_every_system():
    text = repr(bradley_terry(_citation_tallies(), "Biometrika"))
    assert "JASA=-0.4796 (se 0.0606)" in text and "Biometrika=baseline" in text


# --- against scipy.optimize on random tallies ------------------------------------------------

SYSTEMS = ("s0", "s1", "s2", "s3")


@st.composite
def strongly_connected_tallies(draw: st.DrawFn) -> list[PairTally]:
    """Every pair judged, every pair with a win each way: the MLE exists."""
    out = []
    for i in range(len(SYSTEMS)):
        for j in range(i + 1, len(SYSTEMS)):
            a = draw(st.integers(1, 60))
            b = draw(st.integers(1, 60))
            t = draw(st.integers(0, 30))
            out.append(PairTally(SYSTEMS[i], SYSTEMS[j], PreferenceCounts(a, b, t)))
    return out


def _negative_log_likelihood(free: np.ndarray, tallies: list[PairTally]) -> float:
    lam = dict(zip(SYSTEMS, [0.0, *free], strict=True))
    total = 0.0
    for t in tallies:
        d = lam[t.system_a] - lam[t.system_b]
        wa = t.counts.a_better + t.counts.ties / 2
        wb = t.counts.b_better + t.counts.ties / 2
        total += wa * special.log_expit(d) + wb * special.log_expit(-d)
    return -total


@settings(max_examples=examples(40), deadline=None)
@given(strongly_connected_tallies())
def test_bradley_terry_maximum_agrees_with_scipy_optimize(tallies):
    fit = bradley_terry(tallies, "s0")
    ours = np.array([fit.strength(s).log_strength for s in SYSTEMS[1:]])
    found = optimize.minimize(
        _negative_log_likelihood, np.zeros(3), args=(tallies,), method="BFGS", tol=1e-12
    )
    assert _negative_log_likelihood(ours, tallies) <= found.fun + 1e-9
    assert ours == pytest.approx(found.x, abs=1e-4)
    assert fit.log_likelihood == pytest.approx(-_negative_log_likelihood(ours, tallies))


@settings(max_examples=examples(40), deadline=None)
@given(strongly_connected_tallies(), st.sampled_from(SYSTEMS[1:]))
def test_changing_the_baseline_shifts_the_strengths_and_keeps_the_contrasts(tallies, other):
    first = bradley_terry(tallies, "s0")
    second = bradley_terry(tallies, other)
    shift = first.strength(other).log_strength
    for s in SYSTEMS:
        assert second.strength(s).log_strength == pytest.approx(
            first.strength(s).log_strength - shift, abs=1e-8
        )
    estimate, se = first.contrast("s0", other)
    assert second.strength("s0").log_strength == pytest.approx(estimate, abs=1e-8)
    assert second.strength("s0").se == pytest.approx(se, rel=1e-6)
