"""A release policy can declare which way is better for a metric (`[metrics.NAME] direction`):
a metric whose log declares no direction (lm-eval `mae` samples without their results file)
then gets a directional verdict from the policy, the same one `--direction lower` or the
results file gives; `--direction` still wins, a policy contradicting the log is refused, and
the policy's hash covers the table only when it is stated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.policy.schema import loads_policy
from tests.cli.test_comparability_cli import mae_pair

HEAD = 'primary_metric = "score"\n'  # (lm-eval's single metric is the column `score`)
LOWER = '[metrics.mae]\ndirection = "lower"\n'


@pytest.fixture(autouse=True)
def _private_state(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))


def policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return path


def report_json(capsys, *args) -> tuple[int, dict]:
    code = main(["report", *map(str, args), "--format", "json"])
    out, err = capsys.readouterr()
    assert out, err
    return code, json.loads(out)


def test_the_policys_direction_gives_the_verdict_the_user_would(capsys, tmp_path):
    base, cand = mae_pair(tmp_path, with_results=False)
    _, given = report_json(capsys, base, cand, "--direction", "lower")
    code, stated = report_json(capsys, base, cand, "--policy", policy(tmp_path, HEAD + LOWER))
    assert stated["direction"] == {
        "higher_is_better": False,
        "source": 'the policy: [metrics.mae] direction = "lower"',
        "inferred": False,
    }
    assert stated["decision"]["status"] != "not_enough_data"  # a verdict, not "direction unknown"
    assert stated["regressions"] == given["regressions"] and given["regressions"]
    assert stated["verdict"] == given["verdict"]
    assert stated["spec"]["analysis"]["policy_directions"] == [["mae", "lower"]]
    assert code == given["decision"]["exit_code"]


def test_the_command_lines_direction_wins_over_the_policy(capsys, tmp_path):
    base, cand = mae_pair(tmp_path, with_results=False)
    stated = policy(tmp_path, HEAD + LOWER)
    _, data = report_json(capsys, base, cand, "--policy", stated, "--direction", "higher")
    assert data["direction"]["source"] == "--direction higher"


def test_a_policy_that_contradicts_the_logs_declaration_is_refused_in_one_line(capsys, tmp_path):
    base, cand = mae_pair(tmp_path, with_results=True)  # the results file: lower is better
    higher = policy(tmp_path, HEAD + '[metrics.mae]\ndirection = "higher"\n')
    code = main(["report", str(base), str(cand), "--policy", str(higher)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "the policy says higher is better for mae, but the runs declare the opposite" in err


def test_a_direction_that_is_neither_higher_nor_lower_names_file_line_and_field(capsys, tmp_path):
    path = policy(tmp_path, 'alpha = 0.05\n[metrics.mae]\ndirection = "down"\n')
    base, cand = mae_pair(tmp_path, with_results=False)
    code = main(["report", str(base), str(cand), "--policy", str(path)])
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1
    assert f"{path}:2:" in err
    assert '[metrics.mae] direction: expected "higher" or "lower", got \'down\'' in err


def test_the_hash_covers_metrics_only_when_stated():
    plain = 'primary_metric = "passed"\nsecondary = ["x"]\n'
    # the hash this policy had before `[metrics]` existed, under the Tango default interval
    # (a policy that states no ci_method means the default, which is part of its hash: it was
    # d1e2ac1e... under the Newcombe default, main at 3aad0c7); records cite it
    before = "891cbad38afd5fff3da65bc2176e8a130c37625a42776b87d5261c6b9c8a51b7"
    assert loads_policy(plain).hash == before
    assert loads_policy(plain + LOWER).hash != before
    assert (
        loads_policy(plain + LOWER).hash
        != loads_policy(plain + LOWER.replace("lower", "higher")).hash
    )


def test_a_record_made_under_the_policys_direction_verifies_without_the_policy_file(
    capsys, tmp_path
):
    """The direction is in the record's spec and its policy rules (`[metrics]` rebuilt as a
    table), so verify recomputes the same regressions with the file gone."""
    base, cand = mae_pair(tmp_path, with_results=False)
    path = policy(tmp_path, HEAD + LOWER)
    prefix = tmp_path / "record"
    signed = main(
        [
            "signoff", str(base), str(cand), "--policy", str(path), "--decision", "approve",
            "--rationale", "r", "--override-reason", "o", "--output", str(prefix),
        ]
    )  # fmt: skip
    assert signed == 0, capsys.readouterr().err
    record = json.loads(prefix.with_suffix(".json").read_text(encoding="utf-8"))
    assert record["policy"]["rules"]["metrics"] == {"mae": {"direction": "lower"}}
    path.unlink()
    capsys.readouterr()
    assert main(["verify", str(prefix.with_suffix(".json")), str(base), str(cand)]) == 0, (
        capsys.readouterr()
    )
