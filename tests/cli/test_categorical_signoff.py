"""The sign-off record keeps the outcome categories' comparison, and verify rebuilds it."""

from __future__ import annotations

import json
from pathlib import Path

from evaltui.cli.main import main
from evaltui.core.record.signoff import _hash
from tests.conftest import schema_errors

DATA = Path(__file__).resolve().parent.parent / "data" / "categorical"
PAIR = [str(DATA / "baseline.jsonl"), str(DATA / "candidate.jsonl")]


def _sign(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    prefix = tmp_path / "rec"
    args = ["signoff", *PAIR, "--decision", "block", "--rationale", "r", "--output", str(prefix)]
    assert main(args) == 0
    return prefix.with_suffix(".json")


def test_the_record_carries_the_outcome_categories(tmp_path, monkeypatch, capsys):
    record = json.loads(_sign(tmp_path, monkeypatch).read_text())
    categories = record["results"]["categories"]
    assert categories["stuart_maxwell"]["p"] < 0.05
    assert schema_errors("signoff", record) == []
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "rec.json"), *PAIR]) == 0


def test_verify_catches_an_edited_outcome_test_in_a_rehashed_record(tmp_path, monkeypatch, capsys):
    path = _sign(tmp_path, monkeypatch)
    record = json.loads(path.read_text())
    record["results"]["categories"]["stuart_maxwell"]["p"] = 0.5
    record.pop("content_hash")
    record["content_hash"] = _hash(record)
    path.write_text(json.dumps(record))
    capsys.readouterr()
    assert main(["verify", str(path), *PAIR]) == 1
    assert "categories" in capsys.readouterr().err
