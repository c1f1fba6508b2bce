"""Text from eval runs is untrusted: every core sink (CSV, Markdown, the one-line text path)
keeps it inert, and the exports are safe to open in a spreadsheet or a Markdown renderer.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.record.signoff import CSV_COLUMNS, record_csv
from evaltui.core.textsafe import csv_cell, inert, inert_json, md_cell, one_line

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"
FORMULA = ("=", "+", "-", "@")
RAW_TAG = re.compile(r"(?<!\\)<img")  # `\<img` is Markdown's escaped, literal text
RAW_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _payloads() -> list[str]:
    return json.loads((PAYLOADS / "payloads.json").read_text(encoding="utf-8"))["payloads"]


# ---------------------------------------------------------------------------------------------
# CSV


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("x\r@SUM(1+1)", "x\n'@SUM(1+1)"),
        ("x\r\n=1+1", "x\n'=1+1"),
        ("a\nb\n-c", "a\nb\n'-c"),
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("tab\there", "tab␉here"),
        ("a\x1b]52;c;cHduZWQ=\x07b", "a␛]52;c;cHduZWQ=␇b"),
        ("a\x9bc", "a\\x9bc"),
        ("plain", "plain"),
    ],
    ids=["bare-cr-formula", "crlf-formula", "lf-formula", "formula", "tab", "osc52", "c1", "plain"],
)
def test_a_csv_cell_has_lf_breaks_no_controls_and_the_formula_guard_on_every_line(value, expected):
    assert csv_cell(value) == expected


def _items(values: list[str]) -> list[dict]:
    return [
        {
            "item_id": value,
            "direction": "regression",
            "slice": value,
            "cluster": None,
            "tag": value,
            "note": value,
            "tagged_by": value,
            "tagged_at": None,
        }
        for value in values
    ]


def test_no_cell_of_the_csv_export_starts_a_row_or_a_formula_of_its_own():
    values = ["x\r@SUM(1+1)", "a\r\n=cmd|' /C calc'!A0", "\n+1", "ok", *_payloads()]
    text = record_csv({"items": _items(values)})
    assert not RAW_CONTROL.search(text), "a raw control character in the CSV"
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == len(values) + 1 and tuple(rows[0]) == CSV_COLUMNS
    for row in rows[1:]:
        for cell in row:
            for line in cell.split("\n"):
                assert not line.startswith(FORMULA), (cell, line)
    # a spreadsheet that ignores quoting and splits at every line break still sees no formula
    for line in text.split("\n"):
        for cell in line.split(","):
            assert not cell.lstrip('"').startswith(FORMULA), line
    # a reader that takes a bare CR for a row end sees the same rows (there is none)
    assert "\r" not in text


def test_random_text_in_every_cell_keeps_the_row_count_and_the_guard():
    rng = random.Random(7)
    alphabet = ["a", " ", ",", '"', "\r", "\n", "\t", "=", "+", "-", "@", "\x1b", "\x9b", "é"]
    for _ in range(300):
        values = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))]
        text = record_csv({"items": _items(values * 3)})
        rows = list(csv.reader(io.StringIO(text, newline="")))
        assert len(rows) == 4
        assert not RAW_CONTROL.search(text)
        for cell in rows[1]:
            assert not any(line.startswith(FORMULA) for line in cell.split("\n"))


# ---------------------------------------------------------------------------------------------
# Markdown


def _graded_pair(tmp_path: Path, names: list[str]) -> tuple[Path, Path]:
    rng = random.Random(3)
    paths = []
    for arm in ("base", "cand"):
        path = tmp_path / f"{arm}.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            for i in range(60):
                record = {"item_id": f"q{i}", **{name: rng.random() for name in names}}
                handle.write(json.dumps(record) + "\n")
        paths.append(path)
    return paths[0], paths[1]


@pytest.mark.parametrize("names", [["score:<img src=x onerror=alert(1)>"],
                                   ["score:<img src=x onerror=alert(1)>", "score:b"]],
                         ids=["one-metric", "metric-table"])  # fmt: skip
def test_a_graded_sign_off_markdown_holds_no_raw_html_from_a_metric_name(
    tmp_path, capsys, names, monkeypatch
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    base, cand = _graded_pair(tmp_path, names)
    prefix = tmp_path / "signoff"
    args = ["signoff", str(base), str(cand), "--decision", "block", "--rationale", "x"]
    assert main([*args, "--reviewer", "r", "--output", str(prefix)]) == 0
    markdown = prefix.with_suffix(".md").read_text(encoding="utf-8")
    assert "onerror" in markdown  # the name is shown...
    assert not RAW_TAG.search(markdown)  # ...escaped, not a tag (not even inside a code span)
    capsys.readouterr()
    assert main(["report", str(base), str(cand), "--format", "markdown"]) in (0, 1, 4)
    assert not RAW_TAG.search(capsys.readouterr().out)


def test_every_payload_is_inert_through_the_core_text_helpers():
    for payload in _payloads():
        for shown in (inert(payload), one_line(payload), md_cell(payload), csv_cell(payload)):
            assert "\x1b" not in shown and "\x9b" not in shown and "\x07" not in shown
            assert not re.search(r"[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2028\u2029]", shown)
        assert "\n" not in one_line(payload) and "\n" not in md_cell(payload)
        assert "<" not in md_cell(payload).replace("\\<", "")


@pytest.mark.parametrize(
    "char", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u2028", "\u2029"]
)
def test_invisible_characters_and_line_separators_in_an_id_are_shown_not_hidden(char):
    """Two ids that look alike must not read alike: each such character shows as <U+XXXX>."""
    shown = f"<U+{ord(char):04X}>"
    assert one_line(f"pharm{char}0020") == f"pharm{shown}0020"
    assert inert(f"a{char}b") == f"a{shown}b"
    assert "U+" in md_cell(f"a{char}b") and char not in md_cell(f"a{char}b")


# ---------------------------------------------------------------------------------------------
# JSON documents (reports, records)

HOSTILE_ID = "q\u202e1\x1b[31m\x9b\u200b\u2028"


def _hostile_pair(tmp_path: Path) -> tuple[Path, Path]:
    paths = []
    for arm, flip in (("base", False), ("cand", True)):
        path = tmp_path / f"{arm}.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            for i in range(40):
                item = HOSTILE_ID + str(i) if i < 10 else f"q{i}"
                passed = (i % 3 == 0) != (flip and i < 15)
                handle.write(json.dumps({"item_id": item, "passed": passed}) + "\n")
        paths.append(path)
    return paths[0], paths[1]


def test_json_reports_and_records_escape_controls_and_bidi_yet_read_back_the_same(
    tmp_path, capsys, monkeypatch
):
    from evaltui.core.verify.record_file import read_record

    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    base, cand = _hostile_pair(tmp_path)
    main(["report", str(base), str(cand), "--format", "json"])
    text = capsys.readouterr().out
    assert not RAW_CONTROL.search(text) and "\u200b" not in text and "\u2028" not in text
    assert "\\u202e" in text
    assert any(i.startswith(HOSTILE_ID) for i in json.loads(text)["regressions"])
    prefix = tmp_path / "rec"
    args = ["signoff", str(base), str(cand), "--decision", "block", "--rationale", "x"]
    assert main([*args, "--reviewer", "r", "--output", str(prefix)]) == 0
    written = prefix.with_suffix(".json").read_text(encoding="utf-8")
    assert not RAW_CONTROL.search(written) and "\u200b" not in written
    record = read_record(prefix.with_suffix(".json"))
    assert any(i["item_id"].startswith(HOSTILE_ID) for i in record["items"])
    capsys.readouterr()
    assert main(["verify", str(prefix.with_suffix(".json")), str(base), str(cand)]) == 0


def test_inert_json_writes_long_id_lists_as_json_dumps_does_with_controls_escaped():
    """The fast path for long lists of ids gives json.dumps' own indented text, then the same
    escapes: nested lists, tuples, dicts in lists, and ids holding quotes, controls, bidi."""
    odd = ['a"b', "back\\slash", "new\nline", "\x1b[31mred", "\u202eevil", "é", "\x7f"]
    ids = [f"item-{i:05d}{odd[i % len(odd)]}" for i in range(300)]
    document = {
        "regressions": ids,
        "nested": {"reasons": [{"item_ids": tuple(ids[:70]), "kind": "x"}, {"item_ids": []}]},
        "lists": [ids[:64], ids[:63], [1, 2, 3]],
        "short": ids[:3],
    }
    text = inert_json(document)
    assert "\x1b" not in text and "\u202e" not in text and "\x7f" not in text
    assert json.loads(text) == json.loads(json.dumps(document))
    expected = json.dumps(document, indent=2, ensure_ascii=False)
    for char in ("\x7f", "\u202e"):  # json escapes the C0 controls itself
        expected = expected.replace(char, f"\\u{ord(char):04x}")
    assert text == expected
