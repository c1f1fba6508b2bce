"""The sign-off record of an agent pair carries the report's cost block (declared in the
record's msgspec declaration); verify recomputes it from the files and compares; a record made
before the block was recorded (none) still verifies."""

from __future__ import annotations

import json

import msgspec
import pytest

from evaltui.cli.main import main
from evaltui.core.analysis.cost import cost_comparison
from evaltui.core.record.shape import SignOffRecord
from evaltui.core.record.signoff import HASH_FIELD, _hash
from evaltui.core.report.cost import cost_dict
from tests.core.agent_fixtures import BASE, CAND, agent_pair


@pytest.fixture(scope="module")
def agent_record(tmp_path_factory):
    """One signed record of the agent pair (module-scoped: a sign-off costs a second)."""
    tmp = tmp_path_factory.mktemp("agent_signoff")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVALTUI_STATE_DIR", str(tmp / "state"))
        code = main(
            ["signoff", str(BASE), str(CAND), "--decision", "block", "--reviewer", "dana",
             "--rationale", "slower agent", "--output", str(tmp / "so")]
        )  # fmt: skip
    assert code == 0
    return json.loads((tmp / "so.json").read_text())


def verify(capsys, tmp_path, record, *files):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    capsys.readouterr()
    code = main(["verify", str(path), *map(str, files)])
    out, err = capsys.readouterr()
    return code, out + err


def rehashed(record):
    body = {k: v for k, v in record.items() if k != HASH_FIELD}
    return {**body, HASH_FIELD: _hash(body)}  # as a forger who knows the recipe would


def test_the_record_carries_the_reports_cost_block(agent_record):
    cost = agent_record["results"]["cost"]
    assert cost == json.loads(json.dumps(cost_dict(cost_comparison(agent_pair()))))
    tokens = next(f for f in cost["figures"] if f["figure"] == "total_tokens")
    assert round(tokens["difference"]["mean"]) == -5985  # the closing note's figure
    assert cost["limits"]["items"] == [1, 1] and cost["limits"]["exact_p"] is None
    decoded = msgspec.convert(agent_record, SignOffRecord)  # declared, not only written
    assert decoded.results.cost.n_items == cost["n_items"]


def test_verify_recomputes_the_cost_block_and_names_a_changed_figure(
    agent_record, capsys, tmp_path
):
    assert verify(capsys, tmp_path, agent_record, BASE, CAND)[0] == 0
    forged = json.loads(json.dumps(agent_record))
    forged["results"]["cost"]["limits"]["items"] = [0, 1]
    code, out = verify(capsys, tmp_path, rehashed(forged), BASE, CAND)
    assert code == 1 and "cost.limits.items" in out and out.count("\n") == 1


def test_a_record_made_before_the_cost_block_still_verifies(agent_record, capsys, tmp_path):
    old = json.loads(json.dumps(agent_record))
    del old["results"]["cost"]
    old = rehashed(old)  # (its hash was over the record without the block)
    assert verify(capsys, tmp_path, old)[0] == 0
    code, out = verify(capsys, tmp_path, old, BASE, CAND)
    assert code == 0 and "statistics recompute" in out


def test_a_record_with_the_old_relative_interval_still_verifies_and_a_forged_one_does_not(
    agent_record, capsys, tmp_path
):
    """Records signed before the relative cost interval became the ratio of means per
    resample hold the difference's interval over the baseline's mean (tokens: [-173%, +0%]);
    they claimed that, from numbers verify still checks, so they verify. Any other value is a
    changed figure."""
    old = json.loads(json.dumps(agent_record))
    for figure in old["results"]["cost"]["figures"]:
        d = figure["difference"]
        if d is not None:
            d["relative_ci"] = [v / figure["mean"][0] for v in d["ci"]]
    tokens = old["results"]["cost"]["figures"][0]
    assert round(tokens["difference"]["relative_ci"][0], 2) == -1.73
    assert verify(capsys, tmp_path, rehashed(old), BASE, CAND)[0] == 0
    forged = json.loads(json.dumps(agent_record))
    forged["results"]["cost"]["figures"][0]["difference"]["relative_ci"] = [-0.5, 0.0]
    code, out = verify(capsys, tmp_path, rehashed(forged), BASE, CAND)
    assert code == 1 and "cost.figures[0].difference.relative_ci[0]" in out


def test_an_old_records_cost_gate_detail_with_the_old_interval_still_verifies(capsys, tmp_path):
    from evaltui.cli.main import main

    policy = tmp_path / "policy.toml"
    policy.write_text(
        "[[gates]]\nkind = 'max_cost_growth'\nfigure = 'total_tokens'\ngrowth = 0.1\n"
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
        code = main(
            ["signoff", str(BASE), str(CAND), "--policy", str(policy), "--decision", "block",
             "--reviewer", "dana", "--rationale", "x", "--output", str(tmp_path / "so")]
        )  # fmt: skip
    assert code == 0
    record = json.loads((tmp_path / "so.json").read_text())
    (gate,) = record["gates"]
    assert gate["detail"] == (
        "total tokens -60.5% per item (95% CI [-79.5%, +0.0%], 4 items), bound +10%"
    )
    old = json.loads(json.dumps(record))
    for figure in old["results"]["cost"]["figures"]:
        d = figure["difference"]
        if d is not None:
            d["relative_ci"] = [v / figure["mean"][0] for v in d["ci"]]
    # What the gate said before: the difference's interval over the baseline's mean.
    old["gates"][0]["detail"] = (
        "total tokens -60.5% per item (95% CI [-173.3%, +0.0%], 4 items), bound +10%"
    )
    assert verify(capsys, tmp_path, rehashed(old), BASE, CAND)[0] == 0
    forged = json.loads(json.dumps(old))
    forged["gates"][0]["detail"] = forged["gates"][0]["detail"].replace("4 items", "5 items")
    code, out = verify(capsys, tmp_path, rehashed(forged), BASE, CAND)
    assert code == 1 and "gates[0].detail" in out
