"""The release policy: parsing and checking the file, and the gates on the demo pair.

The demo pair is the reading list's release walk-through (002): overall V2 wins 162 vs 150 of
200, but on the 30 drug-interaction questions V1 passes 25 and V2 passes 19, and 002's advice is
a no-regression rule written down beforehand rather than a significance test on that slice.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace

import msgspec
import pytest

from evaltui.core.analysis.pair import analyze
from evaltui.core.canonical import canonical_sha256
from evaltui.core.compare.options import AnalysisOptions
from evaltui.core.compare.pairing import pair_runs
from evaltui.core.decide.gates import GateResult, evaluate_gates, gates_status
from evaltui.core.errors import InputError
from evaltui.core.policy import GATE_KINDS, Gate, Policy, load_policy, loads_policy
from evaltui.core.policy.declaration import GATE_KIND_DECLARATIONS, Settings, gate_keys, meaning
from evaltui.core.read.formats import load_run
from evaltui.core.record.journal import ReviewSession
from tests.conftest import SAMPLE_RUNS

POLICY = SAMPLE_RUNS / "policy.toml"
DRUG_REGRESSIONS = (
    "pharm-0020",
    "pharm-0103",
    "pharm-0112",
    "pharm-0130",
    "pharm-0156",
    "pharm-0172",
    "pharm-0187",
)
ALL_REGRESSIONS = (
    "pharm-0020",
    "pharm-0063",
    "pharm-0103",
    "pharm-0112",
    "pharm-0113",
    "pharm-0130",
    "pharm-0156",
    "pharm-0172",
    "pharm-0187",
)


@pytest.fixture(scope="module")
def demo():
    paired = pair_runs(
        load_run(SAMPLE_RUNS / "baseline.jsonl"), load_run(SAMPLE_RUNS / "candidate.jsonl")
    )
    return paired, analyze(paired)


@pytest.fixture(scope="module")
def policy():
    return load_policy(POLICY)


def session_for(tmp_path, demo) -> ReviewSession:
    paired, _ = demo
    return ReviewSession.open(
        SAMPLE_RUNS / "baseline.jsonl",
        SAMPLE_RUNS / "candidate.jsonl",
        paired.baseline.source.sha256,
        paired.candidate.source.sha256,
        root=tmp_path / "state",
    )


def by_kind(results, kind) -> GateResult:
    (result,) = [r for r in results if r.kind == kind]
    return result


# ============================================================================================
# The example policy file
# ============================================================================================


def test_sample_policy_loads_with_its_settings(policy):
    assert isinstance(policy, Policy)
    assert policy.primary_metric == "passed"
    assert policy.alpha == 0.05
    assert policy.ci_method == "newcombe"
    assert policy.confidence == 0.95
    assert policy.multiplicity == "holm"
    assert policy.min_effect == 0.02
    assert [g.kind for g in policy.gates] == [
        "no_regressions",
        "min_pass_rate",
        "no_tag",
        "all_triaged",
        "min_effect",
    ]
    rate_gate = policy.gates[1]
    assert (rate_gate.slice, rate_gate.arm, rate_gate.rate) == ("dosage", "candidate", 0.75)
    assert policy.gates[2].tag == "confirmed regression"
    assert policy.gates[4].name == "overall gain worth shipping"
    assert policy.source_path == str(POLICY)
    assert policy.sha256 == hashlib.sha256(POLICY.read_bytes()).hexdigest()
    assert re.fullmatch(r"[0-9a-f]{64}", policy.hash)
    assert policy.hash != policy.sha256


def test_gates_remember_their_position_and_line(policy):
    lines = POLICY.read_text().splitlines()
    for index, gate in enumerate(policy.gates, start=1):
        assert gate.index == index
        assert lines[gate.line - 1].strip() == "[[gates]]"


def test_default_gate_names_are_plain_words(policy):
    assert [g.name for g in policy.gates[:4]] == [
        "no regressions in drug_interactions",
        "candidate pass rate on dosage >= 75%",
        "no 'confirmed regression' tag in drug_interactions",
        "all regressions triaged",
    ]


# ============================================================================================
# The gates on the demo pair
# ============================================================================================


def test_demo_without_a_session(policy, demo):
    paired, analysis = demo
    results = evaluate_gates(policy, paired, analysis, None)
    assert len(results) == 5
    assert all(isinstance(r, GateResult) for r in results)

    drug = by_kind(results, "no_regressions")
    assert drug.status == "failed"
    assert drug.item_ids == DRUG_REGRESSIONS
    assert drug.slice == "drug_interactions"
    assert "7 regressions" in drug.detail
    assert "baseline 25 -> candidate 19 passes of 30" in drug.detail
    for item in DRUG_REGRESSIONS:
        assert item in drug.detail

    dosage = by_kind(results, "min_pass_rate")
    assert dosage.status == "passed"  # 24/30 = 80% >= 75%
    assert "24/30 = 80.0%" in dosage.detail
    assert dosage.item_ids == ()

    no_tag = by_kind(results, "no_tag")
    assert no_tag.status == "pending"
    assert no_tag.item_ids == DRUG_REGRESSIONS

    triaged = by_kind(results, "all_triaged")
    assert triaged.status == "pending"
    assert triaged.detail.startswith("9 of 9 regressions untriaged")
    assert triaged.item_ids == ALL_REGRESSIONS

    # Tango 95% (the default) for 141/9/21/29 is [+0.0067, +0.1169] (Newcombe's, the default
    # before issue 30: [+0.0059, +0.1147], see test_binary_published), but the
    # demo's items come from 31 source documents: the gate reads the cluster-aware interval
    # the verdict rests on, whose lower bound is below zero, let alone the 2-point minimum.
    effect = by_kind(results, "min_effect")
    assert analysis.binary.delta_ci.lower == pytest.approx(0.0067, abs=1e-4)
    assert effect.status == "failed"
    assert "-0.67 pts < minimum effect +2.00 pts" in effect.detail
    assert "+6.00 pts" in effect.detail
    assert "wild cluster bootstrap-t 95%, 31 clusters" in effect.detail

    assert gates_status(results) == "failed"


def test_demo_with_every_regression_tagged_acceptable(policy, demo, tmp_path):
    paired, analysis = demo
    session = session_for(tmp_path, demo)
    for item in ALL_REGRESSIONS:
        session.set_tag(item, "acceptable")
    results = evaluate_gates(policy, paired, analysis, session)
    assert by_kind(results, "all_triaged").status == "passed"
    assert by_kind(results, "all_triaged").detail == "all 9 regressions in all items are tagged"
    assert by_kind(results, "no_tag").status == "passed"
    # Rules on counts do not care about tags: the drug-interaction gate still fails.
    assert by_kind(results, "no_regressions").status == "failed"


def test_demo_partly_triaged_with_one_confirmed_regression(policy, demo, tmp_path):
    paired, analysis = demo
    session = session_for(tmp_path, demo)
    session.set_tag("pharm-0103", "confirmed regression")
    session.set_tag("pharm-0063", "flaky")
    results = evaluate_gates(policy, paired, analysis, session)
    no_tag = by_kind(results, "no_tag")
    assert no_tag.status == "failed"
    assert no_tag.item_ids == ("pharm-0103",)
    assert "1 of 7 regressions" in no_tag.detail
    triaged = by_kind(results, "all_triaged")
    assert triaged.status == "pending"
    assert triaged.detail.startswith("7 of 9 regressions untriaged")
    assert "pharm-0103" not in triaged.item_ids and len(triaged.item_ids) == 7


@pytest.fixture(scope="module")
def unclustered():
    """The demo pair without its cluster column: the item-level interval decides."""
    runs = [load_run(SAMPLE_RUNS / name) for name in ("baseline.jsonl", "candidate.jsonl")]
    runs = [replace(run, table=run.table.drop("cluster")) for run in runs]
    paired = pair_runs(*runs)
    return paired, analyze(paired)


def test_min_effect_on_clustered_items_reads_the_cluster_interval(demo, unclustered):
    policy = loads_policy('min_effect = -0.005\n[[gates]]\nkind = "min_effect"\n')
    (clustered,) = evaluate_gates(policy, *demo, None)
    (items,) = evaluate_gates(policy, *unclustered, None)
    assert items.status == "passed"  # Newcombe lower bound +0.59 >= -0.5
    assert clustered.status == "failed"  # the cluster-aware lower bound -0.67 < -0.5
    assert "wild cluster bootstrap-t" in clustered.detail


def test_min_effect_follows_the_lower_bound(unclustered):
    paired, analysis = unclustered
    loose = loads_policy('min_effect = 0.005\n[[gates]]\nkind = "min_effect"\n')
    (result,) = evaluate_gates(loose, paired, analysis, None)
    assert result.status == "passed"  # +0.0059 >= +0.005
    # A negative min_effect is a non-inferiority margin.
    margin = loads_policy('min_effect = -0.02\n[[gates]]\nkind = "min_effect"\n')
    assert evaluate_gates(margin, paired, analysis, None)[0].status == "passed"
    # The policy's interval method is used, whatever the analysis options were.
    wald = loads_policy('ci_method = "wald"\nmin_effect = 0.0059\n[[gates]]\nkind = "min_effect"\n')
    (result,) = evaluate_gates(wald, paired, analysis, None)
    assert "Wald lower bound +0.70 pts" in result.detail  # 002: Wald CI [0.007, 0.113]
    assert result.status == "passed"


def test_min_effect_on_a_slice(demo):
    paired, analysis = demo
    policy = loads_policy(
        'min_effect = 0.0\n[[gates]]\nkind = "min_effect"\nslice = "drug_interactions"\n'
    )
    (result,) = evaluate_gates(policy, paired, analysis, None)
    assert result.status == "failed"
    assert "delta on slice drug_interactions -20.00 pts" in result.detail


def test_min_pass_rate_failure_lists_the_failed_items(demo):
    paired, analysis = demo
    policy = loads_policy(
        '[[gates]]\nkind = "min_pass_rate"\nslice = "drug_interactions"\nrate = 0.8\n'
        '[[gates]]\nkind = "min_pass_rate"\nslice = "drug_interactions"\narm = "baseline"\n'
        "rate = 0.8\n"
        '[[gates]]\nkind = "min_pass_rate"\nrate = 0.81\n'
    )
    candidate, baseline, overall = evaluate_gates(policy, paired, analysis, None)
    assert candidate.status == "failed"
    assert "19/30 = 63.3% < required 80%" in candidate.detail
    assert len(candidate.item_ids) == 11
    assert set(DRUG_REGRESSIONS) <= set(candidate.item_ids)
    assert baseline.status == "passed"  # 25/30
    assert overall.status == "passed"  # 162/200 = 0.81 >= 0.81 exactly
    assert "162/200 = 81.0% >= required 81%" in overall.detail


def test_gates_without_regressions_in_scope_pass(demo, tmp_path):
    paired, analysis = demo
    policy = loads_policy(
        '[[gates]]\nkind = "no_regressions"\nslice = "shipping"\n'
        '[[gates]]\nkind = "all_triaged"\nslice = "shipping"\n'
        '[[gates]]\nkind = "no_tag"\ntag = "flaky"\nslice = "shipping"\n'
    )
    results = evaluate_gates(policy, paired, analysis, None)
    assert [r.status for r in results] == ["passed", "passed", "passed"]
    assert results[0].detail.startswith("no regressions in slice shipping")


def test_items_without_a_slice_form_the_unsliced_scope(write_jsonl):
    def records(verdicts):
        slices = ["a", None, None, "a"]
        return [
            {"item_id": f"q{i}", "passed": v, **({"slice": s} if s else {})}
            for i, (v, s) in enumerate(zip(verdicts, slices, strict=True))
        ]

    paired = pair_runs(
        load_run(write_jsonl("b.jsonl", records([True, True, True, False]))),
        load_run(write_jsonl("c.jsonl", records([True, False, True, True]))),
    )
    policy = loads_policy(
        '[[gates]]\nkind = "no_regressions"\nslice = "(no slice)"\n'
        '[[gates]]\nkind = "no_regressions"\nslice = "a"\n'
        '[[gates]]\nkind = "min_pass_rate"\nslice = "(no slice)"\nrate = 0.9\n'
    )
    unsliced, sliced, rate = evaluate_gates(policy, paired, analyze(paired), None)
    assert (unsliced.status, unsliced.item_ids) == ("failed", ("q1",))
    assert "baseline 2 -> candidate 1 passes of 2" in unsliced.detail
    assert (sliced.status, sliced.item_ids) == ("passed", ())
    assert (rate.status, rate.item_ids) == ("failed", ("q1",))


def test_no_gates_means_passed(demo):
    paired, analysis = demo
    assert evaluate_gates(loads_policy(""), paired, analysis, None) == ()
    assert gates_status(()) == "passed"


def test_gates_status_order():
    def r(status):
        return GateResult("g", "no_regressions", status, "")

    assert gates_status([r("passed"), r("pending")]) == "pending"
    assert gates_status([r("pending"), r("failed"), r("passed")]) == "failed"


def test_analysis_options_do_not_change_count_gates(policy, demo):
    paired, _ = demo
    other = analyze(paired, AnalysisOptions(ci_method="tango", confidence=0.9))
    a = evaluate_gates(policy, paired, demo[1], None)
    b = evaluate_gates(policy, paired, other, None)
    assert a == b  # min_effect uses the policy's Newcombe 95%, not the analysis' Tango 90%


# ============================================================================================
# Hashes
# ============================================================================================


# Computed with the single-module policy.py before it became a package: sign-off records cite
# this value as "the policy used", so no refactoring may change it for the same file.
SAMPLE_POLICY_HASH = "e8639ca40298d8cb04b531c4c2244ee4384b99c6a6e939058dff8a0c1a9b7a4b"


def test_sample_policy_hash_is_the_one_sign_off_records_cite(policy):
    assert policy.hash == SAMPLE_POLICY_HASH
    assert policy.hash == canonical_sha256(policy.canonical())
    assert policy.sha256 == hashlib.sha256(POLICY.read_bytes()).hexdigest()


def test_sample_policy_canonical_form_is_pinned(policy):
    assert policy.canonical() == {
        "schema": "evaltui.policy/1",
        "primary_metric": "passed",
        "alpha": 0.05,
        "ci_method": "newcombe",
        "confidence": 0.95,
        "multiplicity": "holm",
        "min_effect": 0.02,
        "monitor": [],
        "gates": [
            {
                "kind": "no_regressions",
                "name": "no regressions in drug_interactions",
                "slice": "drug_interactions",
            },
            {
                "kind": "min_pass_rate",
                "name": "candidate pass rate on dosage >= 75%",
                "slice": "dosage",
                "arm": "candidate",
                "rate": 0.75,
            },
            {
                "kind": "no_tag",
                "name": "no 'confirmed regression' tag in drug_interactions",
                "slice": "drug_interactions",
                "tag": "confirmed regression",
            },
            {"kind": "all_triaged", "name": "all regressions triaged", "slice": None},
            {"kind": "min_effect", "name": "overall gain worth shipping", "slice": None},
        ],
    }


def test_hash_ignores_comments_order_and_spelt_out_defaults():
    a = loads_policy(
        'alpha = 0.05\nmin_effect = 0.02\n[[gates]]\nkind = "no_regressions"\nslice = "x"\n'
    )
    b = loads_policy(
        "# the same rules, written differently\n"
        'min_effect = 0.02\nprimary_metric = "passed"\nmultiplicity = "holm"\n'
        'ci_method = "tango"\nconfidence = 0.95\n\n'
        '[[gates]]\nslice = "x"  # safety slice\nkind = "no_regressions"\n'
    )
    assert a.hash == b.hash
    assert a.sha256 != b.sha256


@pytest.mark.parametrize(
    "changed",
    [
        'alpha = 0.05\nmin_effect = 0.03\n[[gates]]\nkind = "no_regressions"\nslice = "x"\n',
        'alpha = 0.01\nmin_effect = 0.02\n[[gates]]\nkind = "no_regressions"\nslice = "x"\n',
        'alpha = 0.05\nmin_effect = 0.02\n[[gates]]\nkind = "no_regressions"\nslice = "y"\n',
        "alpha = 0.05\nmin_effect = 0.02\n",
        'alpha = 0.05\nmin_effect = 0.02\n[[gates]]\nkind = "no_regressions"\nslice = "x"\n'
        'name = "safety"\n',
    ],
)
def test_hash_changes_with_any_rule(changed):
    base = loads_policy(
        'alpha = 0.05\nmin_effect = 0.02\n[[gates]]\nkind = "no_regressions"\nslice = "x"\n'
    )
    assert loads_policy(changed).hash != base.hash


def test_confidence_defaults_to_one_minus_alpha():
    assert loads_policy("alpha = 0.1").confidence == 0.9
    assert loads_policy("alpha = 0.1\nconfidence = 0.95").confidence == 0.95


def test_every_declared_key_has_a_type_and_a_one_line_meaning():
    for declaration in (Settings, *GATE_KIND_DECLARATIONS):
        for field in msgspec.inspect.type_info(declaration).fields:
            text = meaning(declaration, field.encode_name)
            assert text.strip() and "\n" not in text, field.name
    kinds = (
        "no_regressions",
        "min_pass_rate",
        "no_tag",
        "all_triaged",
        "min_effect",
        "max_cost_growth",
        "max_limit_hits_growth",
    )
    assert tuple(msgspec.inspect.type_info(d).tag for d in GATE_KIND_DECLARATIONS) == kinds
    assert all(d.__doc__ and "\n" not in d.__doc__.strip() for d in GATE_KIND_DECLARATIONS)


def test_a_gate_hashes_its_kind_name_and_exactly_its_declared_keys():
    policy = loads_policy(
        "min_effect = 0.02\n"
        + "".join(
            f'[[gates]]\nkind = "{kind}"\n'
            + ("rate = 0.5\n" if kind == "min_pass_rate" else "")
            + ('tag = "t"\n' if kind == "no_tag" else "")
            + ("growth = 0.2\n" if kind.startswith("max_") else "")
            for kind in GATE_KINDS
        )
    )
    for gate in policy.gates:
        assert set(gate.canonical()) == {"kind", "name", *gate_keys(gate.kind)}


def test_canonical_form_is_plain_json():
    policy = loads_policy('min_effect = 0.02\n[[gates]]\nkind = "min_effect"\n')
    canonical = policy.canonical()
    assert canonical["schema"] == "evaltui.policy/1"
    assert canonical["gates"] == [{"kind": "min_effect", "name": "effect >= +2 pts", "slice": None}]
    assert isinstance(policy.gates[0], Gate)


# ============================================================================================
# Bad policy files: InputError naming the file, the place and what was expected
# ============================================================================================


def write(tmp_path, text, name="policy.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_bad_toml_names_the_line(tmp_path):
    path = write(tmp_path, "alpha = 0.05\nci_method = newcombe\n")
    with pytest.raises(InputError) as err:
        load_policy(path)
    assert err.value.path == str(path)
    assert err.value.line == 2
    assert str(err.value).startswith(f"{path}:2: not valid TOML")


def test_toml_error_at_the_end_of_the_file(tmp_path):
    path = write(tmp_path, "alpha = 0.05\ngates = [\n")
    with pytest.raises(InputError, match="not valid TOML: .* at the end of the file") as err:
        load_policy(path)
    assert err.value.line == 2


def test_missing_file_and_non_utf8(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_policy(tmp_path / "nope.toml")
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"alpha = 0.05\n# caf\xe9\n")
    with pytest.raises(InputError, match="not UTF-8") as err:
        load_policy(bad)
    assert err.value.line == 2


@pytest.mark.parametrize(
    "text, field, fragment",
    [
        ("alpah = 0.05", "alpah", "unknown setting; expected one of primary_metric, alpha"),
        ('alpha = "0.05"', "alpha", "expected a number, got '0.05'"),
        ("alpha = 5", "alpha", "strictly between 0 and 1, got 5"),
        ("alpha = true", "alpha", "expected a number, got True"),
        ("confidence = 1.0", "confidence", "strictly between 0 and 1"),
        ('ci_method = "exact"', "ci_method", "expected one of 'tango', 'newcombe'"),
        ('multiplicity = "BH"', "multiplicity", "expected one of 'holm', 'bh', 'bonferroni'"),
        ("min_effect = 2", "min_effect", "between -1 and 1"),
        ("primary_metric = 3", "primary_metric", "expected a non-empty string, got 3"),
        ('gates = "none"', "gates", "expected [[gates]] tables"),
        ("gates = [1, 2]", "gates", "expected [[gates]] tables"),
    ],
)
def test_wrong_top_level_settings(tmp_path, text, field, fragment):
    path = write(tmp_path, "# policy\n\n" + text + "\n")
    with pytest.raises(InputError, match=re.escape(fragment)) as err:
        load_policy(path)
    assert err.value.field == field
    assert err.value.path == str(path)
    assert err.value.line == 3


@pytest.mark.parametrize(
    "gate, field, line, fragment",
    [
        ('kind = "no_regression"', "kind", 6, "unknown gate kind 'no_regression'; expected one of"),
        ('slice = "x"', "kind", 5, "has no 'kind'"),
        ("kind = 3", "kind", 6, "unknown gate kind 3"),
        (
            'kind = "no_regressions"\nslise = "x"',
            "slise",
            7,
            "no_regressions gates take no 'slise'",
        ),
        ('kind = "no_regressions"\nslice = 3', "slice", 7, "expected a non-empty string, got 3"),
        ('kind = "no_regressions"\nname = ""', "name", 7, "expected a non-empty string"),
        ('kind = "min_pass_rate"\nslice = "x"', "rate", 5, "min_pass_rate gates need 'rate'"),
        ('kind = "min_pass_rate"\nrate = 1.5', "rate", 7, "between 0 and 1 (0.9 = 90%), got 1.5"),
        ('kind = "min_pass_rate"\nrate = "90%"', "rate", 7, "got '90%'"),
        ('kind = "min_pass_rate"\nrate = 0.9\narm = "v2"', "arm", 8, "'candidate' or 'baseline'"),
        ('kind = "no_tag"', "tag", 5, "no_tag gates need 'tag'"),
        ('kind = "min_effect"', "min_effect", 5, "need the top-level 'min_effect' setting"),
        ('kind = "all_triaged"\nrate = 0.9', "rate", 7, "all_triaged gates take no 'rate'"),
        ('kind = "max_cost_growth"\ngrowth = -2', "growth", 7, "share of the baseline's mean"),
        (
            'kind = "max_limit_hits_growth"\ngrowth = -2',
            "growth",
            7,
            "share of the baseline's count of items stopped by a limit (0 = no more than the "
            "baseline), got -2",
        ),
    ],
)
def test_wrong_gates_name_the_entry_and_the_line_of_the_key_at_fault(
    tmp_path, gate, field, line, fragment
):
    # The gate's header is line 5; a key written in its table is placed at its own line, a
    # missing one (or one the gate cannot hold a line for) at the header.
    text = '# policy\n[[gates]]\nkind = "all_triaged"\n\n[[gates]]\n' + gate + "\n"
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        load_policy(path)
    message = str(err.value)
    assert err.value.field == field
    assert err.value.line == line
    assert "[[gates]] entry 2" in message
    assert fragment in message


def test_an_integer_too_large_for_a_float_is_out_of_range_not_a_crash():
    huge = "9" * 400
    with pytest.raises(InputError, match="strictly between 0 and 1") as err:
        loads_policy(f"alpha = {huge}\n", "p.toml")
    assert (err.value.line, err.value.field) == (1, "alpha")
    with pytest.raises(InputError, match=r"between 0 and 1 \(0.9 = 90%\)") as err:
        loads_policy(f'[[gates]]\nkind = "min_pass_rate"\nrate = {huge}\n', "p.toml")
    assert (err.value.line, err.value.field) == (3, "rate")


def test_inline_gates_have_no_line_but_still_an_entry(tmp_path):
    path = write(tmp_path, 'gates = [{kind = "no_regressions"}, {kind = "bogus"}]\n')
    with pytest.raises(InputError, match=r"\[\[gates\]\] entry 2: unknown gate kind") as err:
        load_policy(path)
    assert err.value.line is None


# --------------------------------------------------------------------------------------------
# The line of an error: tomllib gives none, so it is found in the text
# --------------------------------------------------------------------------------------------

INLINE_GATES = (
    "# gates written as inline tables, one per line\n"  # 1
    "alpha = 0.05\n"  # 2
    "gates = [\n"  # 3
    '  {kind = "all_triaged"},\n'  # 4
    "  # a comment with {braces} and [[gates]]\n"  # 5
    "  {GATE},\n"  # 6
    "]\n"  # 7
)


@pytest.mark.parametrize(
    "gate, field, fragment",
    [
        ('kind = "no_regressions", slcie = "x"', "slcie", "no_regressions gates take no 'slcie'"),
        ('kind = "no_regressions", slice = 3', "slice", "expected a non-empty string, got 3"),
        ('kind = "no_regresion"', "kind", "unknown gate kind 'no_regresion'"),
        ('kind = "min_pass_rate", rate = "90%"', "rate", "got '90%'"),
    ],
)
def test_inline_gate_errors_name_the_line_the_gate_opens_on(tmp_path, gate, field, fragment):
    path = write(tmp_path, INLINE_GATES.replace("GATE", gate))
    with pytest.raises(InputError) as err:
        load_policy(path)
    assert err.value.line == 6
    assert err.value.field == field
    assert str(err.value).startswith(f"{path}:6: field '{field}': [[gates]] entry 2: ")
    assert fragment in str(err.value)


def test_unknown_gate_key_message_names_file_line_gate_and_the_keys_it_takes(tmp_path):
    path = write(
        tmp_path,
        '[[gates]]\nkind = "all_triaged"\n\n[[gates]]\nkind = "no_regressions"\nslcie = "x"\n',
    )
    with pytest.raises(InputError) as err:
        load_policy(path)
    assert str(err.value) == (
        f"{path}:6: field 'slcie': [[gates]] entry 2: no_regressions gates take no 'slcie'; "
        "expected one of kind, name, slice"
    )


@pytest.mark.parametrize(
    "text, line, field",
    [
        # unknown top-level keys, however they are written
        ('alpha = 0.05\n\n"alpah" = 0.05\n', 3, "alpah"),
        ("alpha = 0.05\nthreshold.rate = 0.9\n", 2, "threshold"),
        ('alpha = 0.05\n\n[[gate]]\nkind = "no_regressions"\n', 3, "gate"),
        ('[[gates]]\nkind = "all_triaged"\n[extra]\nx = 1\n', 3, "extra"),
        # wrong types
        ("min_effect = 0.02\n[alpha]\nx = 1\n", 2, "alpha"),
        ('min_effect = 0.02\nmonitor = [\n  "a",\n  1,\n]\n', 2, "monitor"),
        ('alpha = 0.05\ngates = [{kind = "all_triaged"}, 1]\n', 2, "gates"),
        # a key spelt inside a string or a comment is not the key
        ('# alpha = 0.05\nprimary_metric = """\nalpha = 2\n"""\nalpha = 2\n', 5, "alpha"),
    ],
)
def test_top_level_errors_name_the_line_of_the_key(tmp_path, text, line, field):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        load_policy(path)
    assert (err.value.line, err.value.field) == (line, field)
    assert str(err.value).startswith(f"{path}:{line}: field '{field}': ")


def test_gate_headers_inside_strings_and_comments_do_not_shift_the_gate_lines(tmp_path):
    text = (
        "# [[gates]] tables follow\n"  # 1
        "[[gates]]\n"  # 2
        'kind = "no_regressions"\n'  # 3
        'name = """\n'  # 4
        "[[gates]]\n"  # 5
        '"""  # [[gates]]\n'  # 6
        "  [[ gates ]]  # spaced out\n"  # 7
        'kind = "bogus"\n'  # 8
    )
    with pytest.raises(InputError, match=r"\[\[gates\]\] entry 2: unknown gate kind") as err:
        load_policy(write(tmp_path, text))
    assert err.value.line == 8  # the kind of the gate whose header is line 7


def test_one_inline_gate_on_its_own_line_has_that_line(tmp_path):
    path = write(tmp_path, 'alpha = 0.05\ngates = [{kind = "bogus"}]\n')
    with pytest.raises(InputError, match=r"\[\[gates\]\] entry 1: unknown gate kind") as err:
        load_policy(path)
    assert err.value.line == 2


def test_inline_gate_lines_reach_the_evaluation_errors(tmp_path, demo):
    paired, analysis = demo
    text = (
        'gates = [\n  {kind = "all_triaged"},\n  {kind = "no_regressions", slice = "dosge"},\n]\n'
    )
    policy = load_policy(write(tmp_path, text))
    assert [gate.line for gate in policy.gates] == [2, 3]
    with pytest.raises(InputError, match="unknown slice 'dosge'") as err:
        evaluate_gates(policy, paired, analysis, None)
    assert err.value.line == 3


def test_inline_and_table_gates_hash_the_same():
    tables = loads_policy('[[gates]]\nkind = "no_regressions"\nslice = "x"\n')
    inline = loads_policy('gates = [{slice = "x", kind = "no_regressions"}]\n')
    assert tables.hash == inline.hash


def test_unknown_slice_is_refused_at_evaluation(tmp_path, demo):
    paired, analysis = demo
    path = write(
        tmp_path,
        '[[gates]]\nkind = "all_triaged"\n[[gates]]\nkind = "no_regressions"\n'
        'slice = "drug_interaction"\n',
    )
    policy = load_policy(path)
    with pytest.raises(InputError) as err:
        evaluate_gates(policy, paired, analysis, None)
    message = str(err.value)
    assert err.value.path == str(path)
    assert err.value.field == "slice"
    assert err.value.line == 3
    assert "[[gates]] entry 2" in message
    assert "unknown slice 'drug_interaction'" in message
    assert "account, dosage, drug_interactions, prescriptions, refunds, shipping" in message


def test_slice_gate_on_runs_without_slices(tmp_path, write_jsonl):
    paired = pair_runs(
        load_run(write_jsonl("b.jsonl", [{"item_id": f"q{i}", "passed": True} for i in range(3)])),
        load_run(write_jsonl("c.jsonl", [{"item_id": f"q{i}", "passed": False} for i in range(3)])),
    )
    policy = loads_policy('[[gates]]\nkind = "no_regressions"\nslice = "x"\n', "p.toml")
    with pytest.raises(InputError, match="these runs have no 'slice' column"):
        evaluate_gates(policy, paired, analyze(paired), None)
    overall = loads_policy('[[gates]]\nkind = "no_regressions"\n')
    (result,) = evaluate_gates(overall, paired, analyze(paired), None)
    assert result.status == "failed" and result.item_ids == ("q0", "q1", "q2")


def test_tag_unknown_to_the_session_is_refused(demo, tmp_path):
    paired, analysis = demo
    policy = loads_policy('[[gates]]\nkind = "no_tag"\ntag = "confirmed"\n', "p.toml")
    with pytest.raises(InputError, match="tag 'confirmed' is not one of the review's tags") as e:
        evaluate_gates(policy, paired, analysis, session_for(tmp_path, demo))
    assert e.value.field == "tag"


def test_primary_metric_other_than_passed_cannot_be_evaluated(demo):
    paired, analysis = demo
    policy = loads_policy('primary_metric = "score:rubric"\n', "p.toml")
    with pytest.raises(InputError, match="primary_metric 'score:rubric'") as err:
        evaluate_gates(policy, paired, analysis, None)
    assert err.value.field == "primary_metric"


def test_every_kind_is_documented_in_the_example_policy():
    text = POLICY.read_text()
    for kind in GATE_KINDS:
        assert f'kind = "{kind}"' in text


def test_runs_with_epochs_count_the_analysis_regressions(write_jsonl):
    # Multi-epoch pass/fail is graded (per-item pass rates): the regressions the gates count
    # are the analysis's own, an item whose rate dropped (delta below -tolerance).
    base = [{"item_id": "q0", "epoch": e, "passed": True} for e in (1, 2)]
    base += [{"item_id": "q1", "epoch": e, "passed": e == 1} for e in (1, 2)]
    cand = [
        {"item_id": "q0", "epoch": 1, "passed": True},
        {"item_id": "q0", "epoch": 2, "passed": False},
    ] + [{"item_id": "q1", "epoch": e, "passed": e == 1} for e in (1, 2)]
    paired = pair_runs(
        load_run(write_jsonl("b.jsonl", base)), load_run(write_jsonl("c.jsonl", cand))
    )
    analysis = analyze(paired)
    assert analysis.binary is None and analysis.regressions == ("q0",)
    policy = loads_policy('[[gates]]\nkind = "no_regressions"\n')
    (result,) = evaluate_gates(policy, paired, analysis, None)
    assert result.status == "failed" and result.item_ids == ("q0",)


def test_a_gate_key_is_placed_in_its_own_table_not_a_later_gates(tmp_path):
    text = (
        "[[gates]]\n"  # 1
        'kind = "min_pass_rate"\n'  # 2
        "# rate = 0.5 (a comment is no key)\n"  # 3
        'name = """\nrate = 0.5\n"""\n'  # 4-6: a string is no key either
        "\n"  # 7
        "[[gates]]\n"  # 8
        'kind = "min_pass_rate"\n'  # 9
        "rate = 0.9\n"  # 10
    )
    with pytest.raises(InputError, match="min_pass_rate gates need 'rate'") as err:
        load_policy(write(tmp_path, text))
    assert (err.value.line, err.value.field) == (1, "rate")
