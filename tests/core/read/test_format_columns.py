"""Generic column mapping for the native formats (options id_col, pass_col, ...).

The user's columns are read under the canonical names in JSONL, CSV and Parquet, and every error
still names the user's column and the line or row. The last section checks that the new harness
formats' detection leaves every other fixture where it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.errors import InputError, UsageError
from evaltui.core.read.formats import REGISTRY, LoadOptions, detect_format, load_run
from evaltui.core.read.formats.columns import ColumnOptions, column_map
from evaltui.core.read.runs import STAT_SCHEMA

DATA = Path(__file__).resolve().parent.parent.parent / "data"

MAPPED = LoadOptions.of(
    id_col="qid",
    pass_col="is_correct",
    slice_col="topic",
    cluster_col="doc",
    text_cols=("question", "answer", "gold", "rationale=explanation"),
)
ROWS = [
    {
        "qid": 101,
        "is_correct": True,
        "topic": "math",
        "doc": "d1",
        "question": "2+2?",
        "answer": "4",
        "gold": "4",
        "rationale": "matches",
        "model": "m1",
    },
    {
        "qid": 102,
        "is_correct": False,
        "topic": "math",
        "doc": "d1",
        "question": "3*3?",
        "answer": "6",
        "gold": "9",
        "rationale": "wrong product",
        "model": "m1",
    },
    {
        "qid": 103,
        "is_correct": True,
        "topic": "geo",
        "doc": "d2",
        "question": "Capital of France?",
        "answer": "Paris",
        "gold": "Paris",
        "rationale": "exact",
        "model": "m1",
    },
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_csv(path: Path, rows: list[dict]) -> Path:
    frame = pl.DataFrame(rows).with_columns(pl.col("is_correct").cast(pl.String).str.to_lowercase())
    frame.write_csv(path)
    return path


def write_parquet(path: Path, rows: list[dict]) -> Path:
    pl.DataFrame(rows).write_parquet(path)
    return path


WRITERS = {"jsonl": write_jsonl, "csv": write_csv, "parquet": write_parquet}


# --- mapping in all three formats ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_mapped_columns_load_as_canonical(tmp_path, kind):
    path = WRITERS[kind](tmp_path / f"run.{kind}", ROWS)
    run = load_run(path, options=MAPPED)
    assert run.source.format == kind
    table = run.table
    assert table["item_id"].to_list() == ["101", "102", "103"]
    assert table["passed"].to_list() == [True, False, True]
    assert table["slice"].to_list() == ["math", "math", "geo"]
    assert table["cluster"].to_list() == ["d1", "d1", "d2"]
    for column in ("item_id", "epoch", "passed", "status", "slice", "cluster", "row"):
        assert table.schema[column] == STAT_SCHEMA[column]
    t = run.transcripts.read(1)
    assert (t.input, t.output, t.target, t.explanation) == ("3*3?", "6", "9", "wrong product")
    assert run.transcripts.read_field([2, 0], "input") == ["Capital of France?", "2+2?"]
    assert run.transcripts.read_field([1], "explanation") == ["wrong product"]


def test_without_mapping_the_same_file_has_no_item_id(tmp_path):
    path = write_jsonl(tmp_path / "run.jsonl", ROWS)
    with pytest.raises(InputError, match=r"field 'item_id': no 'item_id' column"):
        load_run(path)


def test_score_column_and_jsonl_metadata(tmp_path):
    rows = [dict(r, f1=0.5 + i / 10) for i, r in enumerate(ROWS)]
    path = write_jsonl(tmp_path / "run.jsonl", rows)
    run = load_run(path, options=LoadOptions.of(id_col="qid", score_col="f1"))
    assert run.table["score"].to_list() == [0.5, 0.6, 0.7]
    assert "passed" not in run.table.columns
    meta = run.transcripts.read(0).metadata
    assert meta["model"] == "m1" and "qid" not in meta and "f1" not in meta
    assert meta["is_correct"] == "true"  # unmapped columns stay metadata


def test_files_own_canonical_column_is_replaced_by_the_mapped_one(tmp_path):
    rows = [dict(r, passed="n/a") for r in ROWS]  # would be refused if it were read
    path = write_jsonl(tmp_path / "run.jsonl", rows)
    run = load_run(path, options=MAPPED)
    assert run.table["passed"].to_list() == [True, False, True]
    assert run.transcripts.read(0).metadata["original passed"] == "n/a"
    csv = write_csv(tmp_path / "run.csv", rows)
    assert load_run(csv, options=MAPPED).table["passed"].to_list() == [True, False, True]


# --- errors name the user's column -----------------------------------------------------------


# 1 was refused here before issue 16 (item 11): --pass-col takes 0/1 now, so 2 stands for it.
@pytest.mark.parametrize(("value", "shown"), [('"yes"', '"yes"'), ("2", "2")])
def test_jsonl_bad_verdict_names_the_users_column_and_line(tmp_path, value, shown):
    lines = [json.dumps(r) for r in ROWS]
    lines[2] = lines[2].replace('"is_correct": true', f'"is_correct": {value}')
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        load_run(path, options=MAPPED)
    message = str(caught.value)
    assert message.startswith(f"{path}:3: field 'is_correct': expected true or false")
    assert shown in message
    assert (caught.value.line, caught.value.field) == (3, "is_correct")


def test_jsonl_missing_verdict_and_missing_id_name_the_users_columns(tmp_path):
    rows = [dict(r) for r in ROWS]
    rows[1]["is_correct"] = None
    with pytest.raises(InputError, match=r"run.jsonl:2: field 'is_correct': missing"):
        load_run(write_jsonl(tmp_path / "run.jsonl", rows), options=MAPPED)
    rows = [dict(r) for r in ROWS]
    del rows[2]["qid"]
    with pytest.raises(InputError, match=r"noid.jsonl:3: field 'qid': missing"):
        load_run(write_jsonl(tmp_path / "noid.jsonl", rows), options=MAPPED)


def test_csv_bad_verdict_names_the_users_column_and_row(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("qid,is_correct\na,true\nb,maybe\n")
    with pytest.raises(
        InputError, match=r"run.csv \(record data row 2\): field 'is_correct': .*'maybe'"
    ):
        load_run(path, options=LoadOptions.of(id_col="qid", pass_col="is_correct"))


def test_parquet_bad_verdict_names_the_users_column(tmp_path):
    path = tmp_path / "run.parquet"
    # [1, 0] was refused here before issue 16 (item 11): --pass-col takes 0/1 now.
    pl.DataFrame({"qid": ["a", "b"], "is_correct": [2, 0]}).write_parquet(path)
    with pytest.raises(InputError, match=r"field 'is_correct': expected true or false.*, got 2"):
        load_run(path, options=LoadOptions.of(id_col="qid", pass_col="is_correct"))


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_mapped_column_that_does_not_exist_lists_the_columns(tmp_path, kind):
    path = WRITERS[kind](tmp_path / f"run.{kind}", ROWS)
    with pytest.raises(InputError) as caught:
        load_run(path, options=LoadOptions.of(id_col="qid", pass_col="correct"))
    message = str(caught.value)
    assert message.startswith(
        f"{path}: field 'correct': no column 'correct' (given with --pass-col"
    )
    assert "'qid', 'is_correct', 'topic', 'doc', 'question'" in message
    with pytest.raises(InputError, match=r"no column 'prompt' \(given with --text-cols"):
        load_run(path, options=LoadOptions.of(id_col="qid", text_cols=("prompt=input",)))


# --- building the mapping --------------------------------------------------------------------


def test_text_cols_by_position_pairs_and_gaps():
    mapping = column_map(ColumnOptions(text_cols=("q", "", "gold", "conv=messages")))
    pairs = [(e.source, e.target) for e in mapping.entries]
    assert pairs == [("q", "input"), ("gold", "target"), ("conv", "messages")]
    mapping = column_map(ColumnOptions(text_cols=("prompt=input", "response=output")))
    assert [(e.source, e.target) for e in mapping.entries] == [
        ("prompt", "input"),
        ("response", "output"),
    ]
    assert not column_map(ColumnOptions()).active


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (ColumnOptions(text_cols=("a", "b", "c", "d", "e")), "entry 5"),
        (ColumnOptions(text_cols=("a=answer",)), "FIELD one of input"),
        (ColumnOptions(text_cols=("=input",)), "cannot read"),
        (ColumnOptions(text_cols=("q", "q2=input")), "'input' is mapped twice"),
        (ColumnOptions(id_col=""), "--id-col needs a column name"),
    ],
)
def test_bad_mapping_options_are_usage_errors(options, message):
    with pytest.raises(UsageError, match=message):
        column_map(options)


def test_one_column_can_feed_two_canonical_names(tmp_path):
    rows = [{"question": r["question"], "ok": r["is_correct"]} for r in ROWS]
    path = write_jsonl(tmp_path / "run.jsonl", rows)
    run = load_run(
        path, options=LoadOptions.of(id_col="question", pass_col="ok", text_cols=("question",))
    )
    assert run.table["item_id"].to_list() == ["2+2?", "3*3?", "Capital of France?"]
    assert run.transcripts.read(0).input == "2+2?"


# --- detection of everything else is unchanged -----------------------------------------------


def test_new_formats_sit_before_the_native_ones():
    native = REGISTRY.index("parquet")
    for name in ("promptfoo", "openai_evals", "helm"):
        assert REGISTRY.index(name) < native
        assert REGISTRY.index(name) > REGISTRY.index("lm_eval")


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        (
            "inspect_ai/2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval",
            "inspect_eval",
        ),
        (
            "inspect_ai/2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval",
            "inspect_eval",
        ),
        ("inspect_ai/2025-05-12T20-28-13-04-00_popularity.json", "inspect_json"),
        ("lm_eval/sshleifer__tiny-gpt2/samples_copa_2026-10-01T23-15-32.942677.jsonl", "lm_eval"),
        ("promptfoo/eval-two-providers.json", "promptfoo"),
        (
            "openai_evals/230914161358ABCDEFGH_gpt-3.5-turbo-instruct_capital-cities.jsonl",
            "openai_evals",
        ),
        ("helm/mmlu-anatomy-pythia-6.9b/display_predictions.json", "helm"),
    ],
)
def test_every_fixture_detects_as_its_format(relative, expected):
    assert detect_format(DATA / relative) == expected


def test_native_files_still_detect_as_native(tmp_path):
    jsonl = write_jsonl(tmp_path / "run.jsonl", [{"item_id": "a", "passed": True}])
    assert detect_format(jsonl) == "jsonl"
    # native records with keys the harness formats also use
    tricky = write_jsonl(
        tmp_path / "tricky.jsonl",
        [{"item_id": "a", "passed": True, "type": "match", "run_id": "r", "results": []}],
    )
    assert detect_format(tricky) == "jsonl"
    mapped = write_jsonl(tmp_path / "mapped.jsonl", ROWS)
    assert detect_format(mapped) == "jsonl"
    csv = tmp_path / "run.csv"
    csv.write_text("item_id,passed,instance_id,predicted_text\na,true,1,x\n")
    assert detect_format(csv) == "csv"
    parquet = write_parquet(tmp_path / "run.parquet", ROWS)
    assert detect_format(parquet) == "parquet"


def test_pass_col_takes_0_and_1_in_every_native_file_type_and_says_so(tmp_path):
    """Issue 16 item 11: exported tables mostly hold 0/1 verdicts; --pass-col takes them."""
    import json

    import polars as pl

    from evaltui.core.errors import InputError
    from evaltui.core.read.formats import LoadOptions, load_run

    (tmp_path / "a.csv").write_text("qid,correct\nq1,1\nq2,0\nq3,true\n")
    (tmp_path / "a.jsonl").write_text(
        "".join(
            json.dumps({"qid": f"q{i + 1}", "correct": v}) + "\n"
            for i, v in enumerate((1, 0, True))
        )
    )
    pl.DataFrame({"qid": ["q1", "q2", "q3"], "correct": [1, 0, 1]}).write_parquet(
        tmp_path / "a.parquet"
    )
    options = LoadOptions.of(id_col="qid", pass_col="correct")
    for name in ("a.csv", "a.jsonl", "a.parquet"):
        run = load_run(tmp_path / name, options=options)
        assert run.table["passed"].to_list()[:2] == [True, False], name
    (tmp_path / "bad.csv").write_text("qid,correct\nq1,1\nq2,2\n")
    with pytest.raises(InputError) as caught:
        load_run(tmp_path / "bad.csv", options=options)
    assert caught.value.field == "correct"
    assert "expected true or false (or 0/1, which --pass-col takes too), got '2'" in str(
        caught.value
    )


def test_the_run_format_itself_still_refuses_0_and_1_for_passed(tmp_path):
    from evaltui.core.errors import InputError
    from evaltui.core.read.formats import load_run

    (tmp_path / "a.csv").write_text("item_id,passed\nq1,1\n")
    with pytest.raises(InputError, match="expected true or false"):
        load_run(tmp_path / "a.csv")
