"""OpenAI evals (oaieval) record files -> canonical runs, on a hand-built pair.

Fixtures (tests/data/openai_evals/README.md): one Match eval, `capital-cities.dev.v0`, 15
samples, run by gpt-3.5-turbo-instruct (string prompts, final report last) and gpt-4o-mini
(chat prompts, final report before the events, one sample with an error event). Malformed files
are edited copies written to tmp_path.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.compare.pairing import PairingOptions, pair_runs
from evaltui.core.errors import InputError
from evaltui.core.read.formats import LoadOptions, detect_format, load_run, openai_evals
from evaltui.core.read.runs import STAT_SCHEMA

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "openai_evals"
BASE = DATA / "230914161358ABCDEFGH_gpt-3.5-turbo-instruct_capital-cities.jsonl"
CAND = DATA / "230915094210QRSTUVWX_gpt-4o-mini_capital-cities.jsonl"
BASE_VERDICTS = "CCICCCICCICIICI"  # by sample index 0..14
CAND_VERDICTS = "CCCCICICCCCIECI"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def by_index(table: pl.DataFrame) -> str:
    """The verdicts as C/I/E in sample-index order."""
    out = {}
    for item_id, passed, status in zip(
        table["item_id"], table["passed"], table["status"], strict=True
    ):
        out[int(item_id.rsplit(".", 1)[1])] = "E" if status == "error" else "CI"[not passed]
    return "".join(out[i] for i in sorted(out))


@pytest.fixture(scope="module")
def base():
    return load_run(BASE)


@pytest.fixture(scope="module")
def cand():
    return load_run(CAND)


def test_rows_verdicts_and_types(base, cand):
    for run in (base, cand):
        assert run.source.format == "openai_evals"
        assert run.table.height == 15
        for column in ("item_id", "epoch", "passed", "status", "row"):
            assert run.table.schema[column] == STAT_SCHEMA[column]
        assert sorted(run.table["item_id"].to_list()) == sorted(
            f"capital-cities.dev.{i}" for i in range(15)
        )
        assert run.table["epoch"].to_list() == [1] * 15
        assert "score" not in run.table.columns
    assert by_index(base.table) == BASE_VERDICTS
    assert by_index(cand.table) == CAND_VERDICTS
    assert base.table["passed"].sum() == 9
    assert cand.table["passed"].sum() == 10
    errored = cand.table.filter(pl.col("status") == "error")
    assert errored["item_id"].to_list() == ["capital-cities.dev.12"]
    assert errored["passed"].to_list() == [False]


def test_rows_follow_the_event_order_not_the_flushes(base):
    # sample 14 was recorded first (event 0) in the baseline
    assert base.table["item_id"][0] == "capital-cities.dev.14"


def test_paired_table(base, cand):
    paired = pair_runs(base, cand)
    b, c = paired.verdicts()
    counts = (int((b & c).sum()), int((b & ~c).sum()), int((~b & c).sum()), int((~b & ~c).sum()))
    assert (paired.n, *counts) == (15, 8, 1, 2, 4)
    excluded = pair_runs(base, cand, PairingOptions(on_error="exclude"))
    b, c = excluded.verdicts()
    counts = (int((b & c).sum()), int((b & ~c).sum()), int((~b & c).sum()), int((~b & ~c).sum()))
    assert (excluded.n, *counts) == (14, 8, 1, 2, 3)


def test_metadata(base, cand):
    meta = cand.metadata
    assert meta["harness"] == "openai_evals"
    assert meta["eval_name"] == "capital-cities.dev.v0"
    assert meta["completion_fns"] == "gpt-4o-mini"
    assert meta["model"] == "gpt-4o-mini"
    assert meta["run_id"] == "230915094210QRSTUVWX"
    assert meta["eval_class"] == "evals.elsuite.basic.match:Match"
    assert meta["final_report.accuracy"] == str(10 / 14)
    assert meta["events"] == "sampling (14), match (14), error (1)"
    assert meta["sample_errors"] == "1"
    assert base.metadata["model"] == "gpt-3.5-turbo-instruct"
    assert base.metadata["final_report.accuracy"] == "0.6"


def test_transcripts(base, cand):
    row = base.table["item_id"].to_list().index("capital-cities.dev.2")
    t = base.transcripts.read(row)
    assert t.input == (
        "Answer with the name of the capital city only.\nQ: What is the capital of Brazil?\nA:"
    )
    assert t.output == " Rio de Janeiro"
    assert t.target == "Brasília"
    assert t.explanation == "picked: nothing (no expected answer found in the output)"
    assert t.messages == ()
    assert t.metadata["sample_id"] == "capital-cities.dev.2"
    assert t.metadata["match.correct"] == "false"
    row = cand.table["item_id"].to_list().index("capital-cities.dev.0")
    chat = cand.transcripts.read(row)
    assert [m.role for m in chat.messages] == ["system", "user"]
    assert chat.input == "What is the capital of Australia?"
    assert (chat.output, chat.target, chat.explanation) == (
        "Canberra",
        "Canberra",
        "picked: Canberra",
    )
    row = cand.table["item_id"].to_list().index("capital-cities.dev.12")
    err = cand.transcripts.read(row)
    assert err.explanation == "RateLimitError: Rate limit reached for requests"
    assert err.output is None
    assert cand.transcripts.read_field([row], "explanation") == [err.explanation]


# --- epochs, metrics, missing matches ---------------------------------------------------------


def test_several_matches_for_a_sample_are_epochs(tmp_path):
    records = lines(BASE)
    events = [r for r in records if "type" in r]
    extra = []
    next_id = max(e["event_id"] for e in events) + 1
    for e in events:
        if e["type"] == "match" and e["sample_id"] in (
            "capital-cities.dev.0",
            "capital-cities.dev.2",
        ):
            again = json.loads(json.dumps(e))
            again["event_id"] = next_id
            again["data"]["correct"] = not e["data"]["correct"]
            next_id += 1
            extra.append(again)
    run = load_run(write(tmp_path / "epochs.jsonl", records + extra))
    assert run.table.height == 17
    zero = run.table.filter(pl.col("item_id") == "capital-cities.dev.0")
    assert zero["epoch"].to_list() == [1, 2]
    assert zero["passed"].to_list() == [True, False]
    assert run.table.filter(pl.col("item_id") == "capital-cities.dev.2")["passed"].to_list() == [
        False,
        True,
    ]


def test_sample_without_match_is_an_error_record(tmp_path):
    records = [
        r
        for r in lines(BASE)
        if not (r.get("type") == "match" and r.get("sample_id") == "capital-cities.dev.5")
    ]
    run = load_run(write(tmp_path / "nomatch.jsonl", records))
    five = run.table.filter(pl.col("item_id") == "capital-cities.dev.5")
    assert five["status"].to_list() == ["error"] and five["passed"].to_list() == [False]
    row = run.table["item_id"].to_list().index("capital-cities.dev.5")
    t = run.transcripts.read(row)
    assert t.explanation == "no match event was recorded for this sample"
    assert t.output == " Wellington"


def test_metric_option_reads_metrics_events(tmp_path):
    records = [lines(BASE)[0]]
    for i in range(4):
        sid = f"mg.dev.{i}"
        records.append(
            {
                "run_id": "230914161358ABCDEFGH",
                "event_id": i,
                "sample_id": sid,
                "type": "metrics",
                "data": {"choice": "Y", "score": i / 4},
            }
        )
    path = write(tmp_path / "graded.jsonl", records)
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert "no 'match' events" in str(caught.value) and "choice, score" in str(caught.value)
    run = load_run(path, options=LoadOptions.of(metric="score"))
    assert run.table["score"].to_list() == [0.0, 0.25, 0.5, 0.75]
    assert "passed" not in run.table.columns
    with pytest.raises(InputError, match=r"field 'data.bleu': no match or metrics event records"):
        load_run(path, options=LoadOptions.of(metric="bleu"))


# --- malformed files -------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "shown"), [("1", "1"), ('"yes"', '"yes"'), ("null", "null")])
def test_correct_that_is_not_a_boolean_names_line_and_field(tmp_path, value, shown):
    records = lines(BASE)
    index = next(i for i, r in enumerate(records) if r.get("type") == "match")
    records[index]["data"]["correct"] = json.loads(value)
    path = write(tmp_path / "bad.jsonl", records)
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert str(caught.value) == (
        f"{path}:{index + 1}: field 'data.correct': expected true or false, got {shown}"
    )
    assert (caught.value.line, caught.value.field) == (index + 1, "data.correct")


def test_bad_json_line(tmp_path):
    text = BASE.read_text(encoding="utf-8").splitlines(keepends=True)
    text[4] = text[4][:50] + "\n"
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(text), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert str(caught.value).startswith(f"{path}:5: the line is not valid JSON")


def test_events_of_two_runs_are_refused(tmp_path):
    records = lines(BASE)
    records[7]["run_id"] = "230101000000ZZZZZZZZ"
    with pytest.raises(
        InputError, match=r":8: field 'run_id': run_id '230101000000ZZZZZZZZ' differs"
    ):
        load_run(write(tmp_path / "two.jsonl", records))


def test_event_without_type_or_with_bad_sample_id(tmp_path):
    records = lines(BASE)
    del records[3]["type"]
    with pytest.raises(InputError, match=r":4: field 'type': expected the event type"):
        load_run(write(tmp_path / "notype.jsonl", records), "openai_evals")
    records = lines(BASE)
    records[2]["sample_id"] = ["x"]
    with pytest.raises(InputError, match=r":3: field 'sample_id': expected the sample id"):
        load_run(write(tmp_path / "badid.jsonl", records))


def test_second_spec_and_no_events(tmp_path):
    records = lines(BASE)
    with pytest.raises(InputError, match=r":32: field 'spec': a second spec line"):
        load_run(write(tmp_path / "spec2.jsonl", records[:31] + [records[0]]))
    with pytest.raises(InputError, match=r"holds no sample events"):
        load_run(write(tmp_path / "spec.jsonl", records[:1]))


def test_file_changed_after_loading(tmp_path):
    path = tmp_path / BASE.name
    shutil.copyfile(BASE, path)
    run = load_run(path)
    path.write_text(path.read_text(encoding="utf-8")[:-100], encoding="utf-8")
    with pytest.raises(InputError, match="changed on disk"):
        run.transcripts.read(0)


# --- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", [BASE, CAND])
def test_detection_by_content(tmp_path, fixture):
    assert detect_format(fixture) == "openai_evals"
    for suffix in (".txt", ".json", ".csv", ".eval", ".parquet", ""):
        misnamed = tmp_path / f"misnamed{suffix}"
        shutil.copyfile(fixture, misnamed)
        assert detect_format(misnamed) == "openai_evals", suffix
    assert load_run(tmp_path / "misnamed.txt").table.height == 15


def test_detection_without_spec_and_with_a_long_spec_line(tmp_path):
    events_only = write(tmp_path / "events.jsonl", lines(BASE)[1:])
    assert detect_format(events_only) == "openai_evals"
    records = lines(BASE)
    records[0]["spec"]["run_config"]["command"] = "x" * 100_000
    long = write(tmp_path / "long.jsonl", records)
    assert long.read_bytes().index(b"\n") > 64 * 1024
    assert detect_format(long) == "openai_evals"


def test_sniff_is_specific():
    sniff = openai_evals.sniff
    assert not sniff(Path("x"), b'{"item_id": "a", "passed": true}\n')
    assert not sniff(Path("x"), b'{"item_id": "a", "type": "x", "run_id": "r", "passed": true}\n')
    assert not sniff(Path("x"), b'{"spec": "not an object"}\n')
    assert not sniff(Path("x"), b'{"doc_id": 0, "doc": {}, "resps": []}\n')
    assert not sniff(Path("x"), b'[{"instance_id": "id1"}]')
    assert sniff(Path("x"), b'{"run_id": "r", "event_id": 0, "sample_id": "s", "type": "match"}\n')
