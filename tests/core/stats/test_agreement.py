"""Agreement between reviewers (stats/agreement.py): values and intervals against references.

References, run live: statsmodels 0.15's ``statsmodels.stats.inter_rater`` (``cohens_kappa``
on the 2-reviewer table, ``fleiss_kappa`` on ``aggregate_raters``' counts) and the
``krippendorff`` package (0.9, ``alpha(..., level_of_measurement="nominal")``), both to 1e-9.
Published values, to the digits they were published with:
- Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: 4 observers, 12
  units, missing values; nominal alpha = 0.743 on n = 40 pairable values.
- Fleiss (1971), "Measuring nominal scale agreement among many raters", Psychological Bulletin
  76: 30 patients, 6 psychiatrists each, 5 diagnoses; kappa = .430. R's irr (kappam.fleiss on
  irr's `diagnoses` data) gives 0.4302445 (as quoted in statsmodels' test_inter_rater.py).
- Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories;
  P-bar = 0.378, P_e = 0.213, kappa = 0.210 (also statsmodels' test).
- SAS/STAT's PROC FREQ agreement example (as quoted in statsmodels' tests): the 3x3 table
  [[0, 4, 1], [0, 8, 0], [0, 1, 5]], simple kappa 0.4842.
- R's irr, kappa2(anxiety[, 2:3]) on irr's `anxiety` data: -0.006289308 (as quoted in
  statsmodels' test_inter_rater.py).
- Wikipedia, "Cohen's kappa", first example: 50 proposals, Yes/Yes 20, Yes/No 5, No/Yes 10,
  No/No 15: p_o = 0.7, p_e = 0.5, kappa = 0.4.
"""

from __future__ import annotations

import re
import warnings

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from evaltui.core.stats.agreement import (
    UNDEFINED_LIMIT,
    agreement,
    agreement_of_reviews,
)
from evaltui.core.stats.agreement_table import MISSING, Ratings, features

M = MISSING  # a missing review, in the tables below

# Krippendorff (2011), section C: rows are observers A-D, columns units 1-12.
KRIPPENDORFF_2011 = (
    (1, 2, 3, 3, 2, 1, 4, 1, 2, M, M, M),
    (1, 2, 3, 3, 2, 2, 4, 1, 2, 5, M, 3),
    (M, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, M),
    (1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, M),
)

# Fleiss (1971), Table 1 as statsmodels' tests hold it (one row per patient, one diagnosis per
# psychiatrist; diagnoses 1-5).
DIAGNOSES = (
    (4, 4, 4, 4, 4, 4), (2, 2, 2, 5, 5, 5), (2, 3, 3, 3, 3, 5), (5, 5, 5, 5, 5, 5),
    (2, 2, 2, 4, 4, 4), (1, 1, 3, 3, 3, 3), (3, 3, 3, 3, 5, 5), (1, 1, 3, 3, 3, 4),
    (1, 1, 4, 4, 4, 4), (5, 5, 5, 5, 5, 5), (1, 4, 4, 4, 4, 4), (1, 2, 4, 4, 4, 4),
    (2, 2, 2, 3, 3, 3), (1, 4, 4, 4, 4, 4), (2, 2, 4, 4, 4, 5), (3, 3, 3, 3, 3, 5),
    (1, 1, 1, 4, 5, 5), (1, 1, 1, 1, 1, 2), (2, 2, 4, 4, 4, 4), (1, 3, 3, 5, 5, 5),
    (5, 5, 5, 5, 5, 5), (2, 4, 4, 4, 4, 4), (2, 2, 4, 5, 5, 5), (1, 1, 4, 4, 4, 4),
    (1, 4, 4, 4, 4, 5), (2, 2, 2, 2, 2, 4), (1, 1, 1, 1, 5, 5), (2, 2, 4, 4, 4, 4),
    (1, 3, 3, 3, 3, 3), (5, 5, 5, 5, 5, 5),
)  # fmt: skip

# Wikipedia's Fleiss example: per subject, how many of the 14 raters chose each category.
WIKIPEDIA_FLEISS = (
    (0, 0, 0, 0, 14), (0, 2, 6, 4, 2), (0, 0, 3, 5, 6), (0, 3, 9, 2, 0), (2, 2, 8, 1, 1),
    (7, 7, 0, 0, 0), (3, 2, 6, 3, 0), (2, 5, 3, 2, 2), (6, 5, 2, 1, 0), (0, 2, 2, 3, 7),
)  # fmt: skip

# irr's `anxiety` data, raters 2 and 3 (20 subjects, ratings 1-6).
ANXIETY_2_3 = (
    (3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4),
    (2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2),
)  # fmt: skip


def ratings_of(rows: object, labels: object = None) -> Ratings:
    """Items x reviewers of integer labels (MISSING for none) as a Ratings table."""
    table = np.asarray(rows)
    used = sorted({int(v) for v in table.ravel() if v != MISSING})
    names = tuple(str(v) for v in (used if labels is None else labels))
    index = {name: j for j, name in enumerate(names)}
    codes = tuple(
        tuple(index[str(int(v))] if v != MISSING else MISSING for v in row) for row in table
    )
    items = tuple(f"item{i}" for i in range(table.shape[0]))
    return Ratings(items, tuple(f"r{j}" for j in range(table.shape[1])), names, codes)


def expand_counts(per_item: object) -> np.ndarray:
    """Category counts per subject -> one rating per rater (categories 1..k)."""
    return np.array([np.repeat(np.arange(1, len(row) + 1), row) for row in per_item])


def pair_table(first: object, second: object) -> np.ndarray:
    """The two-reviewer contingency table over the union of their labels."""
    first, second = np.asarray(first), np.asarray(second)
    levels = np.unique(np.concatenate([first, second]))
    return np.array([[np.sum((first == a) & (second == b)) for b in levels] for a in levels])


def kappa_of(table: np.ndarray) -> float:
    """statsmodels' Cohen's kappa alone (its full result adds a variance, 5 ms a call)."""
    return float(cohens_kappa(table, return_results=False))


def kripp_reference(table: np.ndarray) -> float:
    """krippendorff.alpha on an items x reviewers table (reviewers are its rows)."""
    data = np.where(table == MISSING, np.nan, table.astype(float)).T
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def random_table(
    rng: np.random.Generator, n: int, reviewers: int, k: int, per_item: tuple[int, int]
) -> np.ndarray:
    """Labels 1..k from a mild agreement model, each item reviewed by a random subset."""
    truth = rng.integers(1, k + 1, size=n)
    noise = rng.integers(1, k + 1, size=(n, reviewers))
    table = np.where(rng.random((n, reviewers)) < 0.6, truth[:, None], noise)
    m = rng.integers(per_item[0], per_item[1] + 1, size=n)
    keep = np.argsort(rng.random((n, reviewers)), axis=1) < m[:, None]
    return np.where(keep, table, MISSING)


# --- published examples ------------------------------------------------------------------------


def test_alpha_is_krippendorffs_0743_on_his_2011_nominal_example_with_missing_values():
    table = np.array(KRIPPENDORFF_2011).T
    summary = agreement(ratings_of(table), resamples=200)
    assert round(summary.alpha.value, 3) == 0.743
    assert summary.alpha.value == pytest.approx(kripp_reference(table), abs=1e-9)
    # unit 12 has one value and is left out: 11 units, n = 40 pairable values, as published
    assert (summary.n_items, summary.n_single, summary.n_ratings) == (11, 1, 40)
    assert summary.headline is summary.alpha and not summary.cohen.applicable
    assert not summary.fleiss.applicable and "2 to 4 reviews" in summary.fleiss.reason


def test_fleiss_kappa_is_0430_on_fleiss_1971_diagnoses_as_irr_and_statsmodels_give():
    summary = agreement(ratings_of(DIAGNOSES), resamples=200)
    assert summary.fleiss.value == pytest.approx(0.4302445, abs=5e-8)  # irr::kappam.fleiss
    reference = fleiss_kappa(aggregate_raters(np.array(DIAGNOSES))[0])
    assert summary.fleiss.value == pytest.approx(reference, abs=1e-9)
    assert (summary.n_items, summary.n_reviewers) == (30, 6)


def test_fleiss_kappa_and_raw_agreement_match_wikipedias_worked_example():
    table = expand_counts(WIKIPEDIA_FLEISS)
    summary = agreement(ratings_of(table), resamples=200)
    assert round(summary.raw.value, 3) == 0.378  # P-bar
    assert round(summary.fleiss.value, 3) == 0.210
    assert summary.fleiss.value == pytest.approx(fleiss_kappa(np.array(WIKIPEDIA_FLEISS)), abs=1e-9)


def test_cohens_kappa_matches_the_sas_example_and_statsmodels():
    cells = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
    rows = [(a + 1, b + 1) for a in range(3) for b in range(3) for _ in range(cells[a][b])]
    summary = agreement(ratings_of(rows), resamples=200)
    assert round(summary.cohen.value, 4) == 0.4842  # SAS PROC FREQ
    # the second reviewer never gave label 1 (an empty column): the table keeps it
    assert summary.cohen.value == pytest.approx(cohens_kappa(cells).kappa, abs=1e-9)
    assert summary.headline is summary.cohen


def test_cohens_kappa_matches_irr_on_the_anxiety_ratings():
    table = np.array(ANXIETY_2_3).T
    summary = agreement(ratings_of(table), resamples=200)
    assert summary.cohen.value == pytest.approx(-0.006289308, abs=5e-10)  # irr::kappa2
    assert summary.cohen.value == pytest.approx(
        cohens_kappa(pair_table(table[:, 0], table[:, 1])).kappa, abs=1e-9
    )


def test_cohens_kappa_and_raw_agreement_match_wikipedias_yes_no_example():
    rows = [(1, 1)] * 20 + [(1, 2)] * 5 + [(2, 1)] * 10 + [(2, 2)] * 15
    summary = agreement(ratings_of(rows), resamples=200)
    assert summary.raw.value == pytest.approx(0.7, abs=1e-12)
    assert summary.cohen.value == pytest.approx(0.4, abs=1e-12)
    assert (summary.unanimous, summary.disagreed) == (35, 15)


# --- random data against the reference packages -----------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_cohens_kappa_and_its_per_tag_kappas_match_statsmodels_on_random_pairs(seed):
    rng = np.random.default_rng(seed)
    table = random_table(rng, 60, 2, 4, (2, 2))
    summary = agreement(ratings_of(table), resamples=100)
    first, second = table[:, 0], table[:, 1]
    assert summary.cohen.value == pytest.approx(kappa_of(pair_table(first, second)), abs=1e-9)
    assert summary.alpha.value == pytest.approx(kripp_reference(table), abs=1e-9)
    for tag in summary.tags:  # per tag: Cohen's kappa of tag-vs-rest
        c = int(tag.tag)
        dichotomy = pair_table(first == c, second == c)
        assert tag.statistic.name == "cohen_kappa"
        assert tag.statistic.value == pytest.approx(kappa_of(dichotomy), abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_kappa_matches_statsmodels_with_three_reviews_from_a_pool_of_five(seed):
    rng = np.random.default_rng(100 + seed)
    table = random_table(rng, 80, 5, 3, (3, 3))
    summary = agreement(ratings_of(table), resamples=100)
    per_item = np.array([row[row != MISSING] for row in table])
    assert summary.fleiss.value == pytest.approx(
        fleiss_kappa(aggregate_raters(per_item)[0]), abs=1e-9
    )
    assert summary.alpha.value == pytest.approx(kripp_reference(table), abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_alpha_and_per_tag_alpha_match_the_krippendorff_package_with_missing_reviews(seed):
    rng = np.random.default_rng(200 + seed)
    table = random_table(rng, 70, 4, 5, (1, 4))
    summary = agreement(ratings_of(table), resamples=100)
    assert summary.alpha.value == pytest.approx(kripp_reference(table), abs=1e-9)
    assert summary.n_single == int(((table != MISSING).sum(axis=1) == 1).sum())
    for tag in summary.tags:  # per tag: alpha of tag-vs-rest (1 = the tag, 0 = another)
        dichotomy = np.where(table == MISSING, MISSING, (table == int(tag.tag)).astype(int))
        assert tag.statistic.name == "krippendorff_alpha"
        assert tag.statistic.value == pytest.approx(kripp_reference(dichotomy), abs=1e-9)


# --- the bootstrap interval -------------------------------------------------------------------


def reference_bootstrap(ratings: Ratings, table: np.ndarray, statistic, resamples: int, seed: int):
    """The item bootstrap redrawn from the seed as the module documents it (Multinomial(n,
    counts / n) over the item patterns), each resample's statistic from a reference package."""
    f = features(ratings)
    first, counts = f.patterns()
    n = int(counts.sum())
    draws = np.random.default_rng(seed).multinomial(n, counts / n, size=resamples)
    items = table[f.counted[first]]
    values = []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for draw in draws:
            values.append(statistic(np.repeat(items, draw, axis=0)))
    return np.array(values, dtype=float)


def cohen_reference(table: np.ndarray) -> float:
    return kappa_of(pair_table(table[:, 0], table[:, 1]))


def fleiss_reference(table: np.ndarray) -> float:
    return float(fleiss_kappa(aggregate_raters(table)[0]))


INTERVAL_CASES = {  # name: (items x reviewers, the statistic, its reference, confidence, seed)
    "Krippendorff 2011, alpha": (np.array(KRIPPENDORFF_2011).T, "alpha", kripp_reference, 0.95, 1),
    "Fleiss 1971, Fleiss' kappa": (np.array(DIAGNOSES), "fleiss", fleiss_reference, 0.95, 2),
    "irr anxiety, Cohen's kappa": (np.array(ANXIETY_2_3).T, "cohen", cohen_reference, 0.9, 3),
    "random pairs, Cohen's kappa": (
        random_table(np.random.default_rng(7), 40, 2, 3, (2, 2)),
        "cohen",
        cohen_reference,
        0.9,
        11,
    ),
    "random, missing reviews, alpha": (
        random_table(np.random.default_rng(8), 30, 4, 3, (1, 4)),
        "alpha",
        kripp_reference,
        0.8,
        3,
    ),
}


@pytest.mark.parametrize("case", INTERVAL_CASES)
def test_the_interval_is_the_percentile_of_the_reference_statistic_on_the_same_resamples(case):
    table, which, reference, confidence, seed = INTERVAL_CASES[case]
    ratings = ratings_of(table)
    summary = agreement(ratings, resamples=150, seed=seed, confidence=confidence)
    values = reference_bootstrap(ratings, table, reference, 150, seed)
    defined = values[np.isfinite(values)]
    tail = (1 - confidence) / 2
    lower, upper = np.quantile(defined, [tail, 1 - tail])
    statistic = getattr(summary, which)
    assert statistic.undefined_resamples == values.size - defined.size
    assert statistic.ci.lower == pytest.approx(lower, abs=1e-9)
    assert statistic.ci.upper == pytest.approx(upper, abs=1e-9)
    assert (statistic.ci.method, statistic.ci.confidence) == ("bootstrap percentile", confidence)
    assert (summary.seed, summary.resamples, summary.confidence) == (seed, 150, confidence)


def test_the_same_seed_gives_the_same_intervals_and_another_seed_others():
    ratings = ratings_of(random_table(np.random.default_rng(9), 50, 3, 3, (2, 3)))
    once, again = (
        agreement(ratings, seed=5, resamples=500),
        agreement(ratings, seed=5, resamples=500),
    )
    other = agreement(ratings, seed=6, resamples=500)
    assert once == again
    assert once.alpha.ci != other.alpha.ci
    assert once.alpha.value == other.alpha.value


def test_the_order_in_which_merged_journals_list_items_changes_nothing():
    """Two merges of the same journals may list items in any order: same summary, same CI."""
    table = random_table(np.random.default_rng(13), 40, 3, 3, (1, 3))
    reviews = {
        f"item{i}": {f"r{j}": (str(v) if v != MISSING else None) for j, v in enumerate(row)}
        for i, row in enumerate(table)
    }
    shuffled = dict(reversed(list(reviews.items())))
    assert agreement_of_reviews(shuffled, resamples=300) == agreement_of_reviews(
        reviews, resamples=300
    )


def test_a_rare_tag_gets_its_value_but_no_interval_when_resamples_often_lose_it():
    rows = [("a", "a")] * 38 + [("b", "b")] + [("b", "a")]
    reviews = {f"i{i}": {"ann": x, "bob": y} for i, (x, y) in enumerate(rows)}
    summary = agreement_of_reviews(reviews, resamples=1000)
    rare = summary.tags[1]
    assert (rare.tag, rare.ratings, rare.items) == ("b", 3, 2)
    assert rare.statistic.value == pytest.approx(cohens_kappa([[38, 0], [1, 1]]).kappa, abs=1e-9)
    # about (1 - 2/40)^40 = 13% of resamples hold no "b": above the limit, so no interval
    assert rare.statistic.undefined_resamples > UNDEFINED_LIMIT * 1000
    assert rare.statistic.ci is None and "no interval" in rare.statistic.reason


# --- not enough data, not applicable ---------------------------------------------------------


def test_one_tag_for_everything_is_not_enough_data_rather_than_a_number():
    reviews = {f"i{i}": {"ann": "confirmed", "bob": "confirmed"} for i in range(20)}
    summary = agreement_of_reviews(reviews, labels=("confirmed", "flaky"), resamples=50)
    for statistic in (summary.cohen, summary.fleiss, summary.alpha):
        assert statistic.applicable and statistic.value is None and statistic.ci is None
        assert "not enough data" in statistic.reason and "'confirmed'" in statistic.reason
    assert summary.raw.value == 1.0
    confirmed, flaky = summary.tags
    assert confirmed.statistic.value is None and "every review gave this tag" in (
        confirmed.statistic.reason
    )
    assert flaky.statistic.value is None and "no review gave this tag" in flaky.statistic.reason
    assert (flaky.ratings, flaky.items) == (0, 0)


def test_items_with_one_review_are_left_out_and_counted():
    base = {
        f"i{i}": {"ann": "x" if i % 3 else "y", "bob": "x" if i % 4 else "y"} for i in range(30)
    }
    more = dict(base, **{f"solo{i}": {"ann": "y", "bob": None} for i in range(10)})
    a, b = agreement_of_reviews(base, resamples=200), agreement_of_reviews(more, resamples=200)
    assert (b.n_items, b.n_single) == (30, 10)
    assert (a.cohen.value, a.cohen.ci, a.alpha.value) == (b.cohen.value, b.cohen.ci, b.alpha.value)


def test_no_item_with_two_reviews_gives_no_statistic():
    summary = agreement_of_reviews({"i1": {"ann": "x"}, "i2": {"bob": "y"}}, resamples=50)
    assert summary.n_items == 0 and summary.n_single == 2
    for statistic in (summary.raw, summary.cohen, summary.fleiss, summary.alpha):
        assert statistic.value is None and "no item has two or more reviews" in statistic.reason
    assert [t.statistic.value for t in summary.tags] == [None, None]


def test_cohens_kappa_is_not_applicable_to_three_reviewers_and_alpha_is_the_headline():
    reviews = {f"i{i}": {"ann": "x", "bob": "y" if i % 2 else "x", "cy": "x"} for i in range(10)}
    summary = agreement_of_reviews(reviews, resamples=50)
    assert not summary.cohen.applicable and "exactly two reviewers; 3" in summary.cohen.reason
    assert summary.headline is summary.alpha and summary.fleiss.applicable
    assert "few_items" in summary.flags and summary.n_reviewers == 3


def test_a_third_review_on_some_items_moves_fleiss_aside_but_keeps_alphas_headline():
    reviews = {f"i{i}": {"ann": "x", "bob": "y" if i % 3 else "x"} for i in range(40)}
    reviews["i0"] = {**reviews["i0"], "cy": "x"}
    summary = agreement_of_reviews(reviews, resamples=50)
    assert summary.headline is summary.alpha
    assert not summary.fleiss.applicable and "2 to 3 reviews" in summary.fleiss.reason
    assert "few_items" not in summary.flags


def test_the_mapping_of_a_merged_review_gives_the_same_summary_as_its_table():
    table = random_table(np.random.default_rng(12), 25, 3, 3, (1, 3))
    reviews = {
        f"item{i}": {f"r{j}": (str(v) if v != MISSING else None) for j, v in enumerate(row)}
        for i, row in enumerate(table)
    }
    assert agreement_of_reviews(reviews, resamples=100) == agreement(
        ratings_of(table), resamples=100
    )


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reviews", "message"),
    [
        (
            {"i1": {"ann": 3}},
            "reviews['i1']['ann'] must be a tag (a non-empty string) or None, got 3",
        ),
        ({"i1": {"ann": ""}}, "reviews['i1']['ann'] must be a tag"),
        ({"i1": ["ann"]}, "reviews['i1'] must map reviewer -> tag, got list"),
        ({"i1": {"": "x"}}, "a reviewer name (item 'i1') must be a non-empty string"),
        ([("i1", {})], "reviews must map item -> {reviewer: tag}, got list"),
    ],
)
def test_a_bad_review_mapping_is_refused_naming_the_item_and_reviewer(reviews, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        agreement_of_reviews(reviews)


def test_a_tag_outside_the_given_tags_is_refused():
    with pytest.raises(ValueError, match=r"reviews\['i1'\]\['ann'\] is 'odd', which is not one"):
        agreement_of_reviews({"i1": {"ann": "odd", "bob": "x"}}, labels=("x", "y"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"resamples": 0}, "resamples must be a whole number of at least 1, got 0"),
        ({"seed": -1}, "seed must be a non-negative integer, got -1"),
        ({"confidence": 1.0}, "confidence must be strictly between 0 and 1"),
    ],
)
def test_bad_bootstrap_options_are_refused_by_name(options, message):
    with pytest.raises(ValueError, match=message):
        agreement_of_reviews({"i1": {"ann": "x", "bob": "x"}}, **options)
