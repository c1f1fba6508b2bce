"""The decision: each status, what wins over what, the tags' meanings and the sensitivity view."""

from __future__ import annotations

import pytest

from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.decide.pair import decide
from evaltui.core.decide.vocabulary import EXIT_BLOCKED, EXIT_NO_VERDICT, EXIT_READY
from evaltui.core.policy import loads_policy
from evaltui.core.policy.tags import DEFAULT_MEANINGS, TagMeanings
from evaltui.core.record.session import decide_review, evaluate_policy_gates, start_review
from tests.conftest import table_records

ACCEPTABLE = "acceptable"


@pytest.fixture
def pair(write_jsonl):
    """An unclustered pair: 150 both pass, 10 regressions, 30 improvements, 10 both fail."""
    base, cand = table_records(150, 10, 30, 10)
    return write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand)


def review(paths, tmp_path, **choices):
    analysis = compare_files(*paths, **choices)
    session = start_review(analysis, state_root=tmp_path / "state", reviewer="dana")
    return analysis, session


def test_untriaged_regressions_need_review_and_exit_zero(pair, tmp_path):
    analysis, session = review(pair, tmp_path)
    decision = decide_review(analysis, (), session)
    assert analysis.verdict == "improved"
    assert decision.status == "needs_review" and decision.exit_code == EXIT_READY
    assert decision.line.startswith("NEEDS REVIEW · 10 of 10 untriaged · overall +10.0 pts")
    assert decision.line.endswith(", improved")


def test_every_regression_closed_is_ready_to_approve(pair, tmp_path):
    analysis, session = review(pair, tmp_path)
    for item in analysis.regressions:
        session.set_tag(item, ACCEPTABLE)
    decision = decide_review(analysis, (), session)
    assert decision.status == "ready" and decision.exit_code == EXIT_READY
    assert decision.line.startswith("READY TO APPROVE · all 10 regressions triaged · overall")
    assert decision.by_tag == {ACCEPTABLE: 10}


def test_an_open_tag_does_not_close_its_item(pair, tmp_path):
    analysis, session = review(pair, tmp_path)
    for item in analysis.regressions:
        session.set_tag(item, ACCEPTABLE)
    session.set_tag(analysis.regressions[0], "needs investigation")
    decision = decide_review(analysis, (), session)
    assert decision.status == "needs_review" and decision.untriaged == 1
    assert "1 of 10 regressions untriaged (1 tagged as still open)" in [
        r.text for r in decision.reasons
    ]


def test_a_confirmed_regression_blocks_whatever_the_interval_says(pair, tmp_path):
    analysis, session = review(pair, tmp_path)
    session.set_tag(analysis.regressions[3], "confirmed regression")
    decision = decide_review(analysis, (), session)
    assert analysis.verdict == "improved"
    assert decision.status == "blocked" and decision.exit_code == EXIT_BLOCKED
    assert decision.line.startswith("BLOCKED · 1 confirmed regression · 9 of 10 untriaged")
    blocking = [r for r in decision.reasons if r.blocking]
    assert [r.kind for r in blocking] == ["confirmed_regressions"]
    assert blocking[0].item_ids == (analysis.regressions[3],)


def test_a_regressed_verdict_blocks(write_jsonl, tmp_path):
    base, cand = table_records(150, 30, 5, 15)
    paths = write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand)
    analysis, session = review(paths, tmp_path)
    decision = decide_review(analysis, (), session)
    assert decision.status == "blocked" and "regressed" in decision.line.split(" · ")


def test_too_few_items_is_not_enough_data_and_exits_four(write_jsonl, tmp_path):
    base, cand = table_records(10, 1, 5, 4)
    paths = write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand)
    analysis, session = review(paths, tmp_path)
    decision = decide_review(analysis, (), session)
    assert decision.status == "not_enough_data" and decision.exit_code == EXIT_NO_VERDICT
    assert decision.line.startswith("NOT ENOUGH DATA · no verdict")


def test_a_failed_gate_outranks_not_enough_data(write_jsonl, tmp_path):
    base, cand = table_records(10, 1, 5, 4)
    paths = write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand)
    analysis, session = review(paths, tmp_path)
    policy = loads_policy('[[gates]]\nkind = "no_regressions"\n')
    from dataclasses import replace

    analysis = replace(analysis, policy=policy)
    gates = evaluate_policy_gates(analysis, session)
    decision = decide_review(analysis, gates, session)
    assert decision.status == "blocked"
    assert decision.line.startswith("BLOCKED · 1 gate failed (no regressions) · ")


def test_different_tasks_are_not_comparable_unless_accepted(pair, tmp_path):
    analysis, session = review(pair, tmp_path)
    analysis.paired.baseline.metadata["task"] = "mmlu"
    analysis.paired.candidate.metadata["task"] = "gsm8k"
    refused = decide(analysis, (), session, DEFAULT_MEANINGS)
    assert refused.status == "not_comparable" and refused.exit_code == EXIT_NO_VERDICT
    assert refused.line.startswith("NOT COMPARABLE · runs differ in task · ")
    accepted = decide(analysis, (), session, DEFAULT_MEANINGS, accept_mismatch=True)
    assert accepted.status == "needs_review"
    assert any(r.kind == "mismatch_accepted" for r in accepted.reasons)


def test_grader_errors_get_a_sensitivity_analysis_beside_the_headline(pair, tmp_path):
    analysis, session = review(pair, tmp_path)
    wrong = analysis.regressions[:4]
    for item in wrong:
        session.set_tag(item, "grader error")
    decision = decide_review(analysis, (), session)
    again = decision.sensitivity.analysis
    assert decision.sensitivity.removed == wrong
    t = again.binary.table
    assert (t.both_pass, t.regressions, t.improvements, t.both_fail) == (150, 6, 30, 10)
    assert decision.sensitivity.line.startswith("without the 4 grader-error items: +12.")
    assert analysis.binary.table.regressions == 10  # the headline is not replaced
    assert "4 grader errors" in decision.line


def test_a_policy_can_say_which_tags_mean_what(pair, tmp_path):
    meanings = TagMeanings(confirmed=("broken",), open=("look again",))
    analysis = compare_files(*pair)
    session = start_review(analysis, state_root=tmp_path / "state", tags=("broken", "fine"))
    session.set_tag(analysis.regressions[0], "broken")
    decision = decide(analysis, (), session, meanings)
    assert decision.status == "blocked" and decision.confirmed_by_slice == {}
    with pytest.raises(ValueError, match="listed as both confirmed and open"):
        TagMeanings(confirmed=("x",), open=("x",))


def test_policy_tags_table_is_parsed_and_keeps_old_hashes():
    plain = loads_policy("min_effect = 0.01\n")
    tagged = loads_policy('min_effect = 0.01\n[tags]\nconfirmed = ["broken"]\n')
    assert plain.tags is None and "tags" not in plain.canonical()
    assert tagged.tag_meanings.confirmed == ("broken",)
    assert tagged.tag_meanings.grader_error == ("grader error",)  # the default stays
    assert tagged.hash != plain.hash
    with pytest.raises(Exception, match="tags"):
        loads_policy('[tags]\nconfirmd = ["x"]\n')


def test_the_reviewer_is_the_flag_then_the_variable_then_git_or_the_login(monkeypatch):
    from evaltui.core.record.session import reviewer_identity

    monkeypatch.setenv("EVALTUI_REVIEWER", "from-env")
    assert reviewer_identity("from-flag") == "from-flag"
    assert reviewer_identity(None) == "from-env"
    monkeypatch.delenv("EVALTUI_REVIEWER")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")  # no git name: the login name
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir("/")
    import getpass

    assert reviewer_identity(None) == getpass.getuser()


def test_a_loss_that_falls_is_an_improvement_in_the_verdict_too(write_jsonl):
    """A loss marked lower-is-better in the metadata: the candidate's scores drop on every
    item, so it improved (the regression list and the verdict agree; the headline delta keeps
    its sign). A name that says nothing ("gap") is read higher-is-better until marked."""
    from evaltui.core.analysis.pair import analyze
    from evaltui.core.compare.pairing import pair_runs
    from evaltui.core.read.formats import load_run

    rows_b = [{"item_id": f"m{i}", "score:gap": 1.0 + (i % 7) / 10} for i in range(60)]
    rows_c = [{"item_id": f"m{i}", "score:gap": 0.8 + (i % 7) / 10} for i in range(60)]
    runs = [load_run(write_jsonl(n, r)) for n, r in (("b.jsonl", rows_b), ("c.jsonl", rows_c))]
    plain = analyze(pair_runs(*runs))
    assert plain.verdict == "regressed" and len(plain.regressions) == 60  # read as higher-better
    for run in runs:
        run.metadata["higher_is_better"] = "false"
    loss = analyze(pair_runs(*runs))
    assert loss.lower_is_better
    assert loss.graded.mean_delta < 0
    assert loss.verdict == "improved" and len(loss.improvements) == 60 and not loss.regressions
