"""Look-alike names: a Cyrillic `а` in `phаrmbot-v2`, a zero-width space, a change of case.
Refused for system names (`prefer`) and run names unless `--allow-lookalike-names`; a warning
naming both spellings for item ids, slice and cluster labels."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest

from evaltui.cli.main import main
from evaltui.core.lookalike import DATA, describe, key, lookalike_groups, shown, skeleton
from tests.conftest import SAMPLE_RUNS

CYRILLIC = "ph\u0430rmbot-v2"  # renders as pharmbot-v2


def test_the_vendored_confusables_are_unicodes_13_0_file_unchanged():
    text = gzip.decompress(DATA.read_bytes())
    assert hashlib.sha256(text).hexdigest() == (
        "96f2500ec78fd96f11561d4b40237435dfece70303b1db3c0974138a333aa206"
    )
    assert b"# Version: 13.0.0" in text[:400]


def test_skeletons_follow_tr39():
    # UTS #39 section 4's own examples: skeleton("paypal") == skeleton("pa\u0443pal") and
    # the Latin and Cyrillic "scope" share a skeleton
    assert skeleton("paypal") == skeleton("pa\u0443pal")
    assert skeleton("scope") == skeleton("\u0455\u0441\u043e\u0440\u0435")
    assert skeleton("\u0455\u0441\u043e\u0440\u0435") != "\u0455\u0441\u043e\u0440\u0435"
    assert key("A\u200bB") == key("ab")  # invisible and case: gone from the key


def test_groups_name_cyrillic_invisible_and_case_but_not_ascii_shapes():
    names = ["pharmbot-v2", CYRILLIC, "q1", "q1\u200b", "Dosage", "dosage", "modern", "modem"]
    assert lookalike_groups(names) == [
        ("Dosage", "dosage"),
        ("pharmbot-v2", CYRILLIC),
        ("q1", "q1\u200b"),
    ]
    assert lookalike_groups(["item-10", "item-IO", "a", "b"]) == []
    assert shown(CYRILLIC) == "ph<U+0430 CYRILLIC SMALL LETTER A>rmbot-v2"
    line = describe([("pharmbot-v2", CYRILLIC)], "system names")
    assert "'pharmbot-v2' and 'ph<U+0430 CYRILLIC SMALL LETTER A>rmbot-v2'" in line


def _preferences(tmp_path, second: str):
    """The demo preference file with one system written `second` on 8 of its lines."""
    lines = (SAMPLE_RUNS / "preferences.jsonl").read_text().splitlines()
    out, changed = [], 0
    for line in lines:
        record = json.loads(line)
        if changed < 8 and record["system_b"] == "pharmbot-v2":
            record["system_b"] = second
            changed += 1
        out.append(json.dumps(record, ensure_ascii=False))
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def test_prefer_refuses_a_system_written_with_a_cyrillic_letter(tmp_path, capsys):
    path = _preferences(tmp_path, CYRILLIC)
    assert main(["prefer", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0]
    assert "look-alike system names" in err[0] and "<U+0430 CYRILLIC SMALL LETTER A>" in err[0]
    assert "--allow-lookalike-names" in err[0]
    assert main(["prefer", str(path), "--allow-lookalike-names", "--format", "json"]) != 2
    report = json.loads(capsys.readouterr().out)
    assert CYRILLIC in json.dumps(report, ensure_ascii=False)


def test_run_names_that_look_alike_are_refused_unless_confirmed(tmp_path, capsys, write_jsonl):
    rows = [{"item_id": f"q{i}", "passed": i % 3 != 0} for i in range(30)]
    paths = [write_jsonl(n, rows) for n in ("base.jsonl", "cand.jsonl", "c\u0430nd.jsonl")]
    assert main(["report", *map(str, paths)]) == 2
    err = capsys.readouterr().err
    assert "look-alike run names" in err and "c<U+0430 CYRILLIC SMALL LETTER A>nd" in err
    assert main(["report", *map(str, paths), "--allow-lookalike-names"]) in (0, 1, 4)


def test_item_ids_and_slices_that_look_alike_are_a_pairing_warning(capsys, write_jsonl):
    base = [{"item_id": f"q{i}", "passed": True, "slice": "dosage"} for i in range(20)]
    cand = [dict(r) for r in base]
    cand[0]["item_id"] = "q0\u200b"
    cand[1]["slice"] = "d\u043esage"
    base[0]["slice"] = "Dosage"
    args = [str(write_jsonl("b.jsonl", base)), str(write_jsonl("c.jsonl", cand))]
    main(["report", *args, "--allow-missing", "--format", "json"])
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    ids = next(w for w in warnings if w.startswith("look-alike item ids"))
    assert "'q0' and 'q0<U+200B ZERO WIDTH SPACE>'" in ids
    slices = next(w for w in warnings if w.startswith("look-alike slice labels"))
    assert "'Dosage' and 'dosage' and 'd<U+043E CYRILLIC SMALL LETTER O>sage'" in slices


def test_ascii_ids_are_decided_without_building_a_skeleton(monkeypatch):
    ids = [f"pharm-{i:06d}" for i in range(20_000)]
    from evaltui.core import lookalike

    monkeypatch.setattr(lookalike, "key", lambda name: pytest.fail("skeleton built"))
    assert lookalike_groups(ids) == []


def test_ascii_ids_differing_only_in_case_across_the_runs_are_a_pairing_warning(
    capsys, write_jsonl
):
    # all ASCII: the vectorised shortcut may skip only when no id holds a capital letter
    base = [{"item_id": f"q{i}", "passed": True} for i in range(20)]
    cand = [dict(r) for r in base]
    cand[3]["item_id"] = "Q3"
    args = [str(write_jsonl("b.jsonl", base)), str(write_jsonl("c.jsonl", cand))]
    main(["report", *args, "--allow-missing", "--format", "json"])
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    ids = next(w for w in warnings if w.startswith("look-alike item ids"))
    assert "'Q3' and 'q3'" in ids


def test_the_shortcut_skips_exactly_the_ascii_characters_that_are_not_capitals():
    # lookalike_warnings skips a column none of whose values holds such a character
    import polars as pl

    from evaltui.core.compare.lookalikes import _NOT_LOWER_ASCII

    chars = [chr(c) for c in range(128)] + ["\u00e9", "\u200b", "\u043e", "\U0001f600"]
    flagged = pl.Series(chars).str.contains(_NOT_LOWER_ASCII).to_list()
    assert flagged == [not c.isascii() or "A" <= c <= "Z" for c in chars]
