"""A key written twice in one object is refused, naming the line: readers disagree on its value.

`{"passed": true, "passed": false}` is a pass to polars (first value) and a fail to Python and
jq (last value); I-JSON (RFC 7493) forbids it. Every JSON-based input format and the sign-off
record `verify` reads refuse it, and the native JSONL fast path (polars) finds it without
parsing the file in Python.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

import polars as pl
import pytest

from evaltui.cli.main import main
from evaltui.core.errors import InputError
from evaltui.core.read.formats import load_run
from evaltui.core.read.formats.jsonl_scan import scan_jsonl, suspect_lines
from evaltui.core.read.formats.jsontext import DuplicateKey, loads, locate_duplicate
from evaltui.core.verify.pair import verify_record
from evaltui.core.verify.record_file import read_record

DATA = Path(__file__).resolve().parent.parent.parent / "data"


def _duplicate(text: str, key: str, value: str = "null", nth: int = 0) -> str:
    """`text` with a second `key` (holding `value`) written just before its nth occurrence."""
    matches = list(re.finditer(rf'"{re.escape(key)}"\s*:', text))
    at = matches[nth].start()
    return text[:at] + f'"{key}": {value}, ' + text[at:]


def _line_of(text: str, key: str, nth: int = 0) -> int:
    at = [m.start() for m in re.finditer(rf'"{re.escape(key)}"\s*:', text)][nth]
    return text.count("\n", 0, at) + 1


def _records(n: int = 40) -> list[dict]:
    return [{"item_id": f"q{i}", "passed": i % 3 != 0} for i in range(n)]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# The decoder and the locator


def test_the_shared_decoder_refuses_a_key_written_twice_and_names_it():
    with pytest.raises(DuplicateKey) as caught:
        loads(b'{"a": 1, "b": {"c": 1, "c": 2}}')
    assert caught.value.key == "c"
    assert loads(b'{"a": 1, "b": [{"c": 1}, {"c": 2}]}') == {"a": 1, "b": [{"c": 1}, {"c": 2}]}


def test_the_locator_names_the_path_and_line_of_the_second_key_even_when_escaped():
    text = b'{"samples": [\n {"id": 1},\n {"id": 2,\n  "scores": {"v": 1, "\\u0076": 2}}]}'
    assert locate_duplicate(text) == ("samples[1].scores.v", 4)
    assert locate_duplicate(b'{"a": {"x": 1}, "b": {"x": 1}}') is None


# ---------------------------------------------------------------------------------------------
# Native JSONL: the polars fast path


@pytest.mark.parametrize(
    "line",
    [
        '{"item_id": "q2", "passed": true, "passed": false}',
        '{"item_id": "q2", "passed": false, "passed": true}',
        '{"item_id": "q2", "passed": true, "p\\u0061ssed": false}',
        '{"item_id": "q2", "passed": true, "passed" : null}',
        '{"item_id": "q2", "item_id": "q9", "passed": true}',
    ],
    ids=["true-then-false", "false-then-true", "escaped-second", "spaced-null", "id-twice"],
)
def test_a_jsonl_record_with_a_statistics_key_twice_is_refused_naming_its_line(tmp_path, line):
    lines = [json.dumps(r) for r in _records()]
    lines[2] = line
    path = _write(tmp_path / "run.jsonl", lines)
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == 3
    assert "appears twice" in caught.value.problem
    assert caught.value.field in ("passed", "item_id")


def test_the_cli_refuses_a_duplicated_verdict_with_one_line_and_exit_2(tmp_path, capsys):
    base = [json.dumps(r) for r in _records()]
    cand = list(base)
    cand[5] = '{"item_id": "q5", "passed": true, "passed": false}'
    a = _write(tmp_path / "base.jsonl", base)
    b = _write(tmp_path / "cand.jsonl", cand)
    assert main(["report", str(a), str(b)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "cand.jsonl:6" in err and "'passed'" in err and "appears twice" in err


def test_a_text_key_written_twice_is_refused_when_read_and_never_shown(tmp_path):
    """The statistics keys of every line are checked when the run opens, and every key of the
    first lines (read in Python to learn the columns); a text key repeated further down is
    refused when its item is opened, naming the line: one of its values is never shown."""
    lines = [json.dumps(r) for r in _records(1500)]
    lines[1] = '{"item_id": "q1", "passed": false, "output": "a", "output": "b"}'
    path = _write(tmp_path / "early.jsonl", lines)
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == 2 and caught.value.field == "output"
    lines[1] = json.dumps(_records(2)[1])
    lines[1200] = '{"item_id": "q1200", "passed": false, "output": "a", "output": "b"}'
    run = load_run(_write(tmp_path / "late.jsonl", lines))
    assert run.table.height == 1500
    with pytest.raises(InputError) as caught:
        run.transcripts.read(1200)
    assert caught.value.line == 1201 and caught.value.field == "output"
    with pytest.raises(InputError) as caught:  # the list's previews read it the same way
        run.transcripts.read_field([3, 1200], "output")
    assert caught.value.line == 1201 and caught.value.field == "output"


def test_the_block_by_block_scan_names_the_right_line_in_a_later_block(tmp_path):
    lines = [json.dumps({**r, "output": "x" * 200}) for r in _records(400)]
    lines[333] = '{"item_id": "q333", "passed": true, "output": "y", "passed": false}'
    path = _write(tmp_path / "big.jsonl", lines)
    schema = {"item_id": pl.String(), "passed": pl.Boolean()}
    scan = scan_jsonl(path, schema, block=4096, whole_file_max=0)
    assert scan.suspects.tolist() == [334]
    assert scan_jsonl(path, schema, block=4096).suspects.tolist() == [334]


def test_the_line_check_flags_repeats_and_escapes_but_not_quoted_json_inside_text():
    schema = {"item_id": pl.String(), "passed": pl.Boolean()}
    data = (
        b'{"item_id": "a", "passed": true, "output": "say \\"passed\\": no"}\n'
        b'{"item_id": "b", "passed": true, "output": "{\\"passed\\": false}"}\n'
        b"\n"
        b'{"item_id": "c", "passed": true, "passed": true}\n'
        b'{"item_id": "d", "pa\\u0073sed": true}\n'
    )
    assert suspect_lines(data, schema).tolist() == [4, 5]


def test_a_large_clean_file_has_no_suspect_lines(tmp_path):
    lines = [
        json.dumps({**r, "slice": "s", "output": 'He said "passed": yes \\ no'})
        for r in _records(2000)
    ]
    path = _write(tmp_path / "clean.jsonl", lines)
    schema = {"item_id": pl.String(), "passed": pl.Boolean(), "slice": pl.String()}
    scan = scan_jsonl(path, schema, texts=["slice"], ids=["item_id"])
    assert scan.suspects.size == 0


# ---------------------------------------------------------------------------------------------
# The harness formats


def test_an_inspect_json_log_with_a_score_written_twice_is_refused_naming_line_and_path(tmp_path):
    source = DATA / "inspect_ai" / "2025-05-12T20-28-13-04-00_popularity.json"
    text = source.read_text(encoding="utf-8")
    at = text.index('"value": "C"')  # the first sample's verdict
    nth = len(re.findall(r'"value"\s*:', text[:at]))
    changed = _duplicate(text, "value", '"I"', nth)
    path = tmp_path / source.name
    path.write_text(changed, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == _line_of(changed, "value", nth + 1)
    assert caught.value.field.startswith("samples[0].scores")
    assert "appears twice" in caught.value.problem


def test_an_inspect_eval_member_with_a_key_twice_is_refused_naming_the_member(tmp_path):
    source = (
        DATA / "inspect_ai" / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
    )
    path = tmp_path / source.name
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(path, "w") as dst:
        names = src.namelist()
        member = next(n for n in names if n.startswith("samples/"))
        for name in names:
            data = src.read(name)
            if name == member:
                data = _duplicate(data.decode("utf-8"), "scores").encode("utf-8")
            dst.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    with pytest.raises(InputError) as caught:
        run = load_run(path)
        for row in range(run.table.height):  # samples may be read on demand
            run.transcripts.read(row)
    assert caught.value.record == member
    assert "appears twice" in caught.value.problem


def test_an_lm_eval_samples_line_with_a_metric_twice_is_refused_naming_its_line(tmp_path):
    source = next((DATA / "lm_eval" / "sshleifer__tiny-gpt2").glob("samples_*.jsonl"))
    lines = source.read_text(encoding="utf-8").splitlines()
    lines[3] = _duplicate(lines[3], "acc", "0.0")
    path = _write(tmp_path / source.name, lines)
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == 4 and caught.value.field == "acc"


def test_an_lm_eval_results_file_with_a_direction_twice_is_ignored_and_says_why(tmp_path):
    source = DATA / "lm_eval" / "results" / "sshleifer__tiny-gpt2"
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    results = next(folder.glob("results_*.json"))
    results.write_text(
        _duplicate(results.read_text(encoding="utf-8"), "higher_is_better", "{}"),
        encoding="utf-8",
    )
    run = load_run(next(folder.glob("samples_*.jsonl")))
    assert "appears twice" in run.metadata["results_file"]
    assert "ignored" in run.metadata["results_file"]


def test_a_promptfoo_result_with_success_twice_is_refused(tmp_path):
    source = DATA / "promptfoo" / "eval-gpt-4.1-mini.json"
    changed = _duplicate(source.read_text(encoding="utf-8"), "success", "false")
    path = tmp_path / source.name
    path.write_text(changed, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == _line_of(changed, "success", 1)
    assert caught.value.field.endswith("success")


def test_an_openai_evals_event_with_a_verdict_twice_is_refused_naming_its_line(tmp_path):
    source = (
        DATA / "openai_evals" / "230914161358ABCDEFGH_gpt-3.5-turbo-instruct_capital-cities.jsonl"
    )
    lines = source.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines) if '"correct"' in line)
    lines[number] = _duplicate(lines[number], "correct", "true")
    path = _write(tmp_path / source.name, lines)
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == number + 1 and caught.value.field.endswith("correct")


def test_a_helm_per_instance_stats_file_with_a_mean_twice_is_refused(tmp_path):
    source = DATA / "helm" / "benchmark_output" / "runs" / "v4"
    run_dir = next(p for p in source.iterdir() if (p / "per_instance_stats.json").is_file())
    folder = tmp_path / run_dir.name
    shutil.copytree(run_dir, folder)
    stats = folder / "per_instance_stats.json"
    changed = _duplicate(stats.read_text(encoding="utf-8"), "mean", "1.0")
    stats.write_text(changed, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(folder)
    assert caught.value.line == _line_of(changed, "mean", 1)
    assert "appears twice" in caught.value.problem


def test_a_csv_header_naming_a_column_twice_is_refused(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("item_id,passed,passed\na,true,false\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == 1 and caught.value.field == "passed"


# ---------------------------------------------------------------------------------------------
# Sign-off records


def test_a_record_with_an_approval_placed_before_the_real_decision_does_not_verify(
    tmp_path, sample_pair, capsys, monkeypatch
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))  # a journal of its own
    prefix = tmp_path / "signoff"
    args = ["signoff", *map(str, sample_pair), "--decision", "block", "--rationale", "no"]
    assert main([*args, "--reviewer", "r", "--output", str(prefix)]) == 0
    capsys.readouterr()
    path = prefix.with_suffix(".json")
    text = path.read_text(encoding="utf-8")
    text = text.replace(
        '"reviewer_decision": "block"',
        '"reviewer_decision": "approve",\n  "reviewer_decision": "block"',
        1,
    )
    path.write_text(text, encoding="utf-8")
    record = read_record(path)
    result = verify_record(record, *sample_pair)
    assert not result.ok and "reviewer_decision" in result.reason and "twice" in result.reason
    assert main(["verify", str(path)]) == 1
    assert "twice" in capsys.readouterr().err
