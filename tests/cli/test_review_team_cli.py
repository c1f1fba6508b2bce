"""A review team on the command line (issue 26, item 2): `--reviewers`/`--reviews-per-item` or
the policy's [review] split the regressions; the report lists each reviewer's assigned, tagged
and open (JSON, Markdown, text) and the merged view; a bad team is one line, exit 2."""

from __future__ import annotations

import json

import pytest

from evaltui.cli.main import main
from evaltui.core.record.assignment import assign
from evaltui.core.record.journal import ReviewSession


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("EVALTUI_REVIEW_DIR", raising=False)


def _tag_as(reviewer, items, tag, sample_pair, team, tmp_path):
    from evaltui.core.read.formats import load_run

    runs = [load_run(p) for p in sample_pair]
    session = ReviewSession.open(
        sample_pair[0], sample_pair[1], runs[0].source.sha256, runs[1].source.sha256,
        root=tmp_path / f"state-{reviewer}", review_dir=team, reviewer=reviewer,
    )  # fmt: skip
    for item in items:
        session.set_tag(item, tag)
    session.close()


def test_the_report_lists_each_reviewers_share_and_the_merged_view(capsys, sample_pair, tmp_path):
    team = tmp_path / "team"
    code, out, _ = run(
        capsys, "report", *sample_pair, "--format", "json", "--review-dir", team,
        "--reviewers", "ana,ben,cy", "--reviews-per-item", "2",
    )  # fmt: skip
    first = json.loads(out)
    regressions = first["regressions"]
    dealt = assign(regressions, ["ana", "ben", "cy"], 2)
    _tag_as("ana", dealt.of("ana"), "acceptable", sample_pair, team, tmp_path)
    _tag_as("ben", dealt.of("ben")[:1], "flaky", sample_pair, team, tmp_path)
    code, out, _ = run(
        capsys, "report", *sample_pair, "--format", "json", "--review-dir", team,
        "--reviewers", "ana,ben,cy", "--reviews-per-item", "2",
    )  # fmt: skip
    review = json.loads(out)["review"]
    shares = {row["reviewer"]: row for row in review["reviewers"]}
    loads = dealt.loads()
    assert shares["ana"] == {
        "reviewer": "ana", "assigned": loads["ana"], "tagged": loads["ana"], "open": 0,
    }  # fmt: skip
    assert shares["ben"]["tagged"] == 1 and shares["ben"]["open"] == loads["ben"] - 1
    assert shares["cy"]["tagged"] == 0
    by_item = {item["item_id"]: item for item in review["items"]}
    both = dealt.of("ben")[0]
    if both in dealt.of("ana"):  # the same item tagged two ways: disputed, untriaged
        assert by_item[both]["disputed"] and by_item[both]["tag"] is None
    assert all(by_item[i]["tag"] in ("acceptable", None) for i in dealt.of("ana"))
    code, out, _ = run(
        capsys, "report", *sample_pair, "--format", "markdown", "--review-dir", team,
        "--reviewers", "ana,ben,cy", "--reviews-per-item", "2",
    )  # fmt: skip
    assert "| reviewer | assigned | tagged | open |" in out
    assert f"| ana | {loads['ana']} | {loads['ana']} | 0 |" in out
    code, out, _ = run(
        capsys, "report", *sample_pair, "--review-dir", team,
        "--reviewers", "ana,ben,cy", "--reviews-per-item", "2",
    )  # fmt: skip
    assert f"ana: assigned {loads['ana']}, tagged {loads['ana']}, open 0" in out
    assert "Review team: 3 reviewer(s), 2 review(s) per regression (from the command line)" in out


def test_the_policys_review_table_is_the_team_when_the_command_line_names_none(
    capsys, sample_pair, tmp_path
):
    policy = tmp_path / "team.toml"
    policy.write_text('[review]\nreviewers = ["ana", "ben"]\nreviews_per_item = 2\n')
    code, out, _ = run(capsys, "report", *sample_pair, "--policy", policy, "--format", "json")
    report = json.loads(out)
    assert report["review"]["team"]["source"] == f"the policy {policy}"
    n = len(report["regressions"])
    assert [row["assigned"] for row in report["review"]["reviewers"]] == [n, n]
    assert report["policy"]["rules"]["review"]["reviewers"] == ["ana", "ben"]
    code, out, _ = run(
        capsys, "report", *sample_pair, "--policy", policy, "--format", "json",
        "--reviewers", "cy",  "--reviews-per-item", "1",
    )  # fmt: skip
    assert [row["reviewer"] for row in json.loads(out)["review"]["reviewers"]] == ["cy"]


def test_a_report_without_a_team_or_a_shared_folder_has_no_review_block(capsys, sample_pair):
    code, out, _ = run(capsys, "report", *sample_pair, "--format", "json")
    assert "review" not in json.loads(out)


@pytest.mark.parametrize("command", ["report", "app"])
@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--reviewers", "ana,ben", "--reviews-per-item", "3"], "expected at most 2"),
        (["--reviewers", ""], "got an empty list"),
        (["--reviewers", "ana,ben,ana"], "names the reviewer 'ana' twice"),
        (["--reviews-per-item", "2"], "--reviews-per-item needs a reviewer list"),
    ],
)
def test_a_bad_team_is_one_line_and_exit_2(capsys, sample_pair, command, options, words):
    head = ["report"] if command == "report" else []
    code, out, err = run(capsys, *head, *sample_pair, *options)
    assert code == 2
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
