"""`evaltui verify`: an untouched record passes; an edit, a swapped file or altered numbers fail."""

from __future__ import annotations

import json

import pytest

from evaltui.cli.main import main
from evaltui.core.record.signoff import HASH_FIELD, _hash


@pytest.fixture
def record_path(tmp_path, sample_pair, monkeypatch, capsys):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    code = main(
        [
            "signoff",
            *map(str, sample_pair),
            "--decision",
            "block",
            "--reviewer",
            "dana",
            "--rationale",
            "drug interactions regressed",
            "--output",
            str(tmp_path / "so"),
        ]
    )
    capsys.readouterr()
    assert code == 0
    return tmp_path / "so.json"


def verify(capsys, *args):
    code = main(["verify", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out + err


def test_untouched_record_verifies_alone_and_with_its_files(capsys, record_path, sample_pair):
    assert verify(capsys, record_path)[0] == 0
    code, text = verify(capsys, record_path, *sample_pair)
    assert code == 0 and "statistics recompute" in text


def test_one_character_edit_is_caught(capsys, record_path):
    text = record_path.read_text()
    record_path.write_text(text.replace('"dana"', '"dane"', 1))
    code, out = verify(capsys, record_path)
    assert code == 1 and "edited" in out and out.count("\n") == 1


def test_altered_tag_is_caught(capsys, record_path):
    record = json.loads(record_path.read_text())
    record["items"][0]["tag"] = "acceptable"
    record_path.write_text(json.dumps(record))
    assert verify(capsys, record_path)[0] == 1


def test_swapped_input_file_is_caught(capsys, record_path, sample_pair):
    code, out = verify(capsys, record_path, sample_pair[1], sample_pair[0])
    assert code == 1 and "is not the baseline that was reviewed" in out


def test_numbers_changed_and_rehashed_are_caught_by_recomputation(capsys, record_path, sample_pair):
    record = json.loads(record_path.read_text())
    record["results"]["mcnemar"]["exact_p"] = 0.01
    body = {k: v for k, v in record.items() if k != HASH_FIELD}
    record[HASH_FIELD] = _hash(body)  # a forger who knows the hash recipe
    record_path.write_text(json.dumps(record))
    assert verify(capsys, record_path)[0] == 0  # the hash alone cannot tell
    code, out = verify(capsys, record_path, *sample_pair)
    assert code == 1 and "mcnemar.exact_p" in out


def test_unreadable_record_exits_2(capsys, tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    code, out = verify(capsys, bad)
    assert code == 2 and "x.json" in out


def test_a_file_rewritten_between_the_hash_and_the_rebuild_is_said_to_have_changed(
    capsys, tmp_path, sample_pair, monkeypatch
):
    """verify hashes each file, then reads it again to rebuild the record (a URL is looked at
    again): a writer in between is named as such, not as the first field its bytes move."""
    from evaltui.core.verify import rebuild

    copies = [tmp_path / path.name for path in sample_pair]
    for source, copy in zip(sample_pair, copies, strict=True):
        copy.write_bytes(source.read_bytes())
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    assert main(["signoff", *map(str, copies), "--decision", "block", "--reviewer", "dana",
                 "--rationale", "checked", "--output", str(tmp_path / "so")]) == 0  # fmt: skip
    capsys.readouterr()
    real = rebuild._analysis

    def rewritten_first(record, baseline, candidate, progress=None):
        # the same records in other bytes (the writer's own spacing), just before the rebuild
        lines = copies[0].read_text().splitlines()
        again = "".join(json.dumps(json.loads(line), indent=None) + "\n" for line in lines)
        respaced = again.replace('": ', '":  ')
        assert respaced.encode() != sample_pair[0].read_bytes()
        copies[0].write_text(respaced)
        return real(record, baseline, candidate, progress)

    monkeypatch.setattr(rebuild, "_analysis", rewritten_first)
    code, out = verify(capsys, tmp_path / "so.json", *copies)
    assert code == 1 and out.count("\n") == 1, out
    assert f"{copies[0]} changed while it was verified" in out
    assert "when read again to rebuild the record" in out
