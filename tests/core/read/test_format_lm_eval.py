"""lm-evaluation-harness --log_samples files -> canonical runs, on a real pair.

Fixtures (tests/data/lm_eval/README.txt): copa, 20 docs, metric acc, filter "none", from
sshleifer/tiny-gpt2 (acc 12/20) and hf-internal-testing/tiny-random-gpt2 (acc 16/20). Malformed
files are edited copies written to tmp_path.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.errors import InputError
from evaltui.core.read.formats import LoadOptions, detect_format, lm_eval, load_run
from evaltui.core.read.runs import STAT_SCHEMA

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "lm_eval"
TINY = DATA / "sshleifer__tiny-gpt2" / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
RANDOM = (
    DATA / "hf-internal-testing__tiny-random-gpt2" / "samples_copa_2026-10-01T23-15-52.736695.jsonl"
)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_records(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def tiny():
    return load_run(TINY)


@pytest.fixture(scope="module")
def random_gpt2():
    return load_run(RANDOM)


def test_rows_and_pass_counts(tiny, random_gpt2):
    for run in (tiny, random_gpt2):
        assert run.source.format == "lm_eval"
        assert run.table.height == 20
        for column in ("item_id", "epoch", "passed", "status", "row"):
            assert run.table.schema[column] == STAT_SCHEMA[column]
        assert run.table["item_id"].to_list() == [str(i) for i in range(20)]
        assert run.table["epoch"].unique().to_list() == [1]
        assert run.table["row"].to_list() == list(range(20))
        assert "score" not in run.table.columns
    assert tiny.table["passed"].sum() == 12
    assert random_gpt2.table["passed"].sum() == 16


def test_paired_table(tiny, random_gpt2):
    joined = tiny.table.join(random_gpt2.table, on="item_id", suffix="_random")
    assert joined.height == 20
    a, b = pl.col("passed"), pl.col("passed_random")
    assert joined.filter(a & b).height == 10
    assert joined.filter(~a & ~b).height == 2
    assert joined.filter(~a & b).height == 6  # right only in tiny-random-gpt2
    assert joined.filter(a & ~b).height == 2  # right only in tiny-gpt2


def test_doc_hash_column_matches_across_the_pair(tiny, random_gpt2):
    assert tiny.table.schema["doc_hash"] == pl.String
    joined = tiny.table.join(random_gpt2.table, on="item_id", suffix="_random")
    assert joined.filter(pl.col("doc_hash") != pl.col("doc_hash_random")).height == 0
    assert tiny.table["doc_hash"][0] == (
        "a324b0d0e55f9082c0342fa1f6228c5d97b857027a3eb0c102802705b8ccee67"
    )


def test_metadata(tiny, random_gpt2):
    assert tiny.metadata["model"] == "sshleifer/tiny-gpt2"
    assert random_gpt2.metadata["model"] == "hf-internal-testing/tiny-random-gpt2"
    for run in (tiny, random_gpt2):
        assert run.metadata["harness"] == "lm_eval"
        assert run.metadata["task"] == "copa"
        assert run.metadata["metric"] == "acc"
        assert run.metadata["filter"] == "none"
        assert run.metadata["filters"] == "none (20 lines)"
        assert run.metadata["lines_ignored"] == "0"


def test_transcript_shows_prompt_choices_and_target(tiny):
    transcript = tiny.transcripts.read(0)
    assert transcript.input == "The man turned on the faucet therefore"
    assert transcript.target == " water flowed from the spout."
    # loglikelihood multiple choice: one line per choice, the model's pick marked with '*'
    assert transcript.output == (
        "* [0] '  the toilet filled with water.'  loglikelihood -75.8263\n"
        "  [1] '  water flowed from the spout.'  loglikelihood -86.5208"
    )
    assert transcript.metadata["doc_id"] == "0"
    assert transcript.metadata["metric.acc"] == "0.0"
    assert json.loads(transcript.metadata["doc"])["premise"] == "The man turned on the faucet."
    last = tiny.transcripts.read(19)
    assert last.metadata["doc_id"] == "19" and last.metadata["line"] == "20"
    assert tiny.transcripts.read_field([0, 19], "input")[0] == transcript.input


def test_generation_tasks_and_old_argument_lists(tmp_path):
    rows = records(TINY)[:2]
    rows[0]["arguments"] = [["Q: 2+2?\nA:", {"until": ["\n"]}]]  # lm-eval < 0.4.3 shape
    rows[0]["resps"] = [["4"]]
    rows[0]["filtered_resps"] = ["4"]
    rows[0]["target"] = ["4", "four"]
    run = load_run(write_records(tmp_path / "gen.jsonl", rows))
    transcript = run.transcripts.read(0)
    assert transcript.input == "Q: 2+2?\nA:"
    assert transcript.output == "4"
    assert transcript.target == "4\nfour"


# --- filters and metrics ---------------------------------------------------------------------


def two_filters(tmp_path: Path) -> Path:
    rows = []
    for row in records(TINY):
        rows.append(row)
        strict = dict(row, filter="strict-match", acc=1.0)
        rows.append(strict)
    return write_records(tmp_path / "filters.jsonl", rows)


def test_default_filter_is_the_first_seen_and_others_are_ignored(tmp_path):
    run = load_run(two_filters(tmp_path))
    assert run.table.height == 20
    assert run.table["passed"].sum() == 12
    assert run.metadata["filter"] == "none"
    assert run.metadata["filters"] == "none (20 lines), strict-match (20 lines)"
    assert run.metadata["lines_ignored"] == "20"
    assert run.transcripts.read(1).metadata["line"] == "3"  # rows skip the other filter's lines


def test_filter_option(tmp_path):
    path = two_filters(tmp_path)
    run = load_run(path, options=LoadOptions.of(filter="strict-match"))
    assert run.table["passed"].sum() == 20
    assert run.transcripts.read(0).metadata["filter"] == "strict-match"
    with pytest.raises(InputError, match=r"no lines for filter 'maj@8'.*'none', 'strict-match'"):
        load_run(path, options=LoadOptions.of(filter="maj@8"))


def test_graded_metric_and_metric_option(tmp_path):
    rows = records(TINY)
    for i, row in enumerate(rows):
        row["f1"] = i / 20
        row["metrics"] = ["acc", "f1"]
    path = write_records(tmp_path / "graded.jsonl", rows)
    assert load_run(path).metadata["metric"] == "acc"
    run = load_run(path, options=LoadOptions.of(metric="f1"))
    assert "passed" not in run.table.columns
    assert run.table["score"].dtype == pl.Float64
    assert run.table["score"].to_list() == [i / 20 for i in range(20)]
    with pytest.raises(InputError, match=r":1: field 'bleu': no value for metric 'bleu'.*acc, f1"):
        load_run(path, options=LoadOptions.of(metric="bleu"))


def test_acc_with_values_other_than_0_1_is_a_score(tmp_path):
    rows = records(TINY)
    rows[0]["acc"] = 0.5
    run = load_run(write_records(tmp_path / "half.jsonl", rows))
    assert run.table["score"].sum() == pytest.approx(12.5)


def test_results_file_beside_the_samples_gives_model_and_version(tmp_path):
    directory = tmp_path / "some__model"
    samples = directory / TINY.name
    directory.mkdir()
    shutil.copyfile(TINY, samples)
    (directory / "results_2026-10-01T23-15-32.942677.json").write_text(
        json.dumps(
            {
                "model_name": "sshleifer/tiny-gpt2",
                "lm_eval_version": "0.4.9",
                "git_hash": "abc1234",
                "versions": {"copa": 1.0},
                "n-shot": {"copa": 0},
                "configs": {"copa": {"dataset_path": "super_glue", "dataset_name": "copa"}},
                "config": {"model": "hf", "model_args": "pretrained=sshleifer/tiny-gpt2"},
            }
        )
    )
    meta = load_run(samples).metadata
    assert meta["model"] == "sshleifer/tiny-gpt2"
    assert meta["model_source"] == "results_2026-10-01T23-15-32.942677.json"
    assert meta["harness_version"] == "0.4.9"
    assert meta["dataset"] == "super_glue/copa"
    assert meta["task_version"] == "1.0"
    assert meta["config_model_args"] == "pretrained=sshleifer/tiny-gpt2"


# --- malformed files -------------------------------------------------------------------------


def test_bad_json_line_names_file_and_line(tmp_path):
    lines = TINY.read_text().splitlines(keepends=True)
    lines[2] = lines[2][:40] + "\n"
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines))
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert str(caught.value).startswith(f"{path}:3: the line is not valid JSON")
    assert caught.value.line == 3


def test_acc_value_yes_names_line_field_and_value(tmp_path):
    rows = records(TINY)
    rows[4]["acc"] = "yes"
    path = write_records(tmp_path / "yes.jsonl", rows)
    with pytest.raises(InputError) as caught:
        load_run(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:5: field 'acc': ")
    assert 'value "yes"' in message
    assert (caught.value.line, caught.value.field) == (5, "acc")


def test_duplicate_doc_id_for_one_filter(tmp_path):
    rows = records(TINY)
    rows.append(dict(rows[7], acc=1.0 - rows[7]["acc"]))  # the same doc_id, another record
    path = write_records(tmp_path / "dup.jsonl", rows)
    with pytest.raises(InputError, match=r":21: field 'doc_id': doc_id 7 appears twice .*line 8"):
        load_run(path)


def test_missing_doc_id(tmp_path):
    rows = records(TINY)
    del rows[1]["doc_id"]
    with pytest.raises(InputError, match=r":2: field 'doc_id': expected doc_id"):
        load_run(write_records(tmp_path / "noid.jsonl", rows), format_name="lm_eval")


def test_non_object_line(tmp_path):
    path = tmp_path / "list.jsonl"
    path.write_text(TINY.read_text().splitlines()[0] + "\n[1, 2]\n")
    with pytest.raises(InputError, match=r":2: expected a JSON object per line, got list"):
        load_run(path)


def test_file_changed_after_loading(tmp_path):
    path = tmp_path / TINY.name
    shutil.copyfile(TINY, path)
    run = load_run(path)
    path.write_text(path.read_text()[:-200])
    with pytest.raises(InputError, match="changed on disk"):
        run.transcripts.read(0)


# --- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", [TINY, RANDOM])
def test_detection_by_content(tmp_path, fixture):
    assert detect_format(fixture) == "lm_eval"
    for suffix in (".txt", ".json", ".csv", ".eval", ".parquet", ""):
        misnamed = tmp_path / f"misnamed{suffix}"
        shutil.copyfile(fixture, misnamed)
        assert detect_format(misnamed) == "lm_eval", suffix
    loaded = load_run(tmp_path / "misnamed.txt")
    assert loaded.table["passed"].sum() == (12 if fixture == TINY else 16)


def test_detection_when_the_first_line_is_longer_than_the_head(tmp_path):
    rows = records(TINY)
    rows[0]["doc"] = {**rows[0]["doc"], "premise": "x" * 100_000}
    path = write_records(tmp_path / "long.jsonl", rows)
    assert path.read_bytes().index(b"\n") > 64 * 1024
    assert detect_format(path) == "lm_eval"


def test_sniff_rejects_other_jsonl():
    assert not lm_eval.sniff(Path("x.jsonl"), b'{"item_id": "1", "passed": true}\n')
    assert not lm_eval.sniff(Path("x.jsonl"), b'{"doc_id": 1, "doc": {}}\n')  # no responses
    assert not lm_eval.sniff(Path("x.jsonl"), b"PK\x03\x04")


def test_doc_hash_mismatch_names_the_ids_in_baseline_order_every_time(tmp_path):
    """Issue 16 item 10: the ids of a doc_hash error came out in a different order per run."""
    from evaltui.core.compare.pairing import pair_runs
    from evaltui.core.errors import PairingError

    rows = records(TINY)
    changed = [dict(r, doc_hash=f"other-{r['doc_id']}") if r["doc_id"] % 2 else r for r in rows]
    cand = write_records(tmp_path / "m" / "samples_copa_2026-01-01T00-00-00.jsonl", changed)
    messages = set()
    for _ in range(8):
        with pytest.raises(PairingError, match="doc_hash differs") as caught:
            pair_runs(load_run(TINY), load_run(cand))
        messages.add(str(caught.value))
    assert len(messages) == 1
    assert "'1', '3', '5', '7', '9'" in messages.pop()


# --- lm-eval 0.4.0-0.4.2: one indented JSON array (tests/data/lm_eval/v0.4.2, make_layouts.py)

OLD_TINY = DATA / "v0.4.2" / "pretrained__sshleifer__tiny-gpt2_copa.jsonl"
OLD_RANDOM = DATA / "v0.4.2" / "pretrained__hf-internal-testing__tiny-random-gpt2_copa.jsonl"


def test_indented_json_array_of_lm_eval_0_4_2_is_detected_and_loads_the_same_verdicts(tiny):
    assert detect_format(OLD_TINY) == "lm_eval"
    old = load_run(OLD_TINY)
    assert old.table["item_id"].to_list() == tiny.table["item_id"].to_list()
    assert old.table["passed"].to_list() == tiny.table["passed"].to_list()
    assert old.metadata["layout"] == "json array (lm-eval 0.4.0-0.4.2)"
    assert old.metadata["doc_hash"].startswith("absent")


def test_json_array_records_are_read_back_by_offset_for_drilldown(tiny):
    old = load_run(OLD_TINY)
    transcript = old.transcripts.read(3)
    assert transcript.input == tiny.transcripts.read(3).input
    assert transcript.metadata["doc_id"] == "3"
    assert int(transcript.metadata["line"]) > 3  # the line the object starts on, indented


def test_json_array_pair_gives_the_real_pairs_table():
    from evaltui.core.compare.pairing import pair_runs

    paired = pair_runs(load_run(OLD_TINY), load_run(OLD_RANDOM))
    base, cand = paired.verdicts()
    assert (int((base & cand).sum()), int((base & ~cand).sum())) == (10, 2)
    assert (int((~base & cand).sum()), int((~base & ~cand).sum())) == (6, 2)


def test_json_array_bad_value_names_the_line_and_the_element(tmp_path):
    text = OLD_TINY.read_text().replace('"acc": 1.0', '"acc": "yes"', 1)
    path = tmp_path / "old.jsonl"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_run(path)
    line = text[: text.index('"acc": "yes"')].count("\n")
    assert caught.value.field == "acc" and caught.value.line is not None
    assert caught.value.line <= line + 1 and "(record [" in str(caught.value)


def test_truncated_json_array_is_one_error_naming_its_line(tmp_path):
    text = OLD_TINY.read_text()
    path = tmp_path / "cut.jsonl"
    path.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match=r"cut.jsonl:\d+: not valid JSON"):
        load_run(path, format_name="lm_eval")


# --- repeated lines (tests/data/lm_eval/repeated: the real files appended to themselves) ----

REPEATED_TINY = DATA / "repeated" / TINY.parent.name / TINY.name
REPEATED_RANDOM = DATA / "repeated" / RANDOM.parent.name / RANDOM.name


def test_byte_identical_repeated_lines_are_collapsed_with_a_warning_saying_how_many(tiny):
    run = load_run(REPEATED_TINY)
    assert run.table.drop("row").equals(tiny.table.drop("row"))
    assert run.metadata["repeated_lines"] == "20"
    warning = run.metadata["warning.repeated_lines"]
    assert "20 record(s) repeat an earlier one byte for byte" in warning
    assert "first repeat on line 21" in warning


def test_collapsed_repeats_reach_the_report_warnings(capsys):
    from evaltui.cli.main import main

    code = main(["report", str(REPEATED_TINY), str(REPEATED_RANDOM), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code != 2  # a result (its exit code is the decision's), not a load error
    assert report["table"] == {"both_pass": 10, "regressions": 2, "improvements": 6, "both_fail": 2}
    said = [w for w in report["warnings"] if "repeat an earlier one byte for byte" in w]
    assert len(said) == 2 and "40 record(s)" in said[1]


def test_a_repeated_line_that_differs_by_one_byte_stays_an_error(tmp_path):
    lines = TINY.read_bytes().splitlines(keepends=True)
    changed = lines[4].replace(b'"acc": 1.0', b'"acc": 1.00')
    assert changed != lines[4]
    path = tmp_path / TINY.parent.name / TINY.name
    path.parent.mkdir()
    path.write_bytes(b"".join(lines) + changed)
    with pytest.raises(InputError, match=r":21: field 'doc_id': doc_id 4 appears twice .*differ"):
        load_run(path)


# --- non-finite values (an edited copy of the real tiny-gpt2 file) --------------------------


def with_infinity(tmp_path: Path, doc_ids=(6,)) -> Path:
    lines = TINY.read_text().splitlines(keepends=True)
    for i in doc_ids:
        assert '"acc": ' in lines[i]
        lines[i] = lines[i].rsplit('"acc": ', 1)[0] + '"acc": Infinity}\n'
    path = tmp_path / TINY.parent.name / TINY.name
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(lines))
    return path


def test_one_infinite_value_is_an_error_naming_its_line_and_field_and_the_option(tmp_path):
    with pytest.raises(InputError) as caught:
        load_run(with_infinity(tmp_path))
    assert (caught.value.line, caught.value.field) == (7, "acc")
    assert "Infinity" in str(caught.value) and "--exclude-nonfinite" in str(caught.value)


def test_exclude_nonfinite_makes_them_errored_items_with_a_count(tmp_path):
    run = load_run(with_infinity(tmp_path, (6, 11)), options=LoadOptions.of(exclude_nonfinite=True))
    assert run.table.height == 20
    errored = run.table.filter(pl.col("status") == "error")
    assert errored["item_id"].to_list() == ["6", "11"]
    assert errored["passed"].to_list() == [False, False]
    assert run.metadata["nonfinite_records"] == "2"
    assert "2 record(s) with a non-finite acc" in run.metadata["warning.nonfinite"]
    assert "lines 7, 12" in run.metadata["warning.nonfinite"]


def test_exclude_nonfinite_from_the_command_line_counts_them_like_errors(tmp_path, capsys):
    from evaltui.cli.main import main

    bad = with_infinity(tmp_path, (6,))
    args = ["report", str(RANDOM), str(bad), "--format", "json", "--exclude-nonfinite"]
    assert main([*args, "--on-error", "exclude"]) != 2  # a result, not a load error
    report = json.loads(capsys.readouterr().out)
    assert report["pairing"]["paired"] == 19
    assert any("non-finite acc" in w for w in report["warnings"])
    assert main(["report", str(RANDOM), str(bad)]) == 2
    assert "--exclude-nonfinite" in capsys.readouterr().err


# --- honest refusals (tests/data/lm_eval/results: a results_<date>.json beside the samples) -

RESULTS_DIR = DATA / "results" / TINY.parent.name
RESULTS = RESULTS_DIR / "results_2026-10-01T23-15-32.942677.json"


@pytest.mark.parametrize("forced", [None, "lm_eval"])
def test_the_results_file_is_refused_saying_what_it_is_and_which_file_to_open(forced):
    with pytest.raises(InputError) as caught:
        load_run(RESULTS, format_name=forced)
    message = str(caught.value)
    assert "lm-eval's results file" in message and "no per-item data" in message
    assert "cannot tell" not in message and "not valid JSON" not in message
    assert f"beside it: {TINY.name}" in message


def test_a_corpus_level_metric_says_there_is_no_per_item_value(tmp_path):
    rows = records(TINY)
    for row in rows:
        row["metrics"] = ["f1"]
        row["f1"] = [row["doc"]["label"], int(row.pop("acc"))]  # (gold, pred), as lm-eval logs
    path = write_records(tmp_path / "m" / "samples_cb_2026-01-01T00-00-00.jsonl", rows)
    with pytest.raises(InputError) as caught:
        load_run(path)
    message = str(caught.value)
    assert caught.value.field == "f1" and caught.value.line == 1
    assert "computes f1 over the whole corpus" in message and "no per-item f1" in message


def test_a_per_item_metric_is_chosen_over_a_corpus_level_one(tmp_path):
    rows = records(TINY)
    for row in rows:
        row["metrics"] = ["f1", "acc"]
        row["f1"] = [row["doc"]["label"], int(row["acc"])]
    path = write_records(tmp_path / "m" / "samples_cb_2026-01-01T00-00-00.jsonl", rows)
    run = load_run(path)
    assert run.metadata["metric"] == "acc" and run.table["passed"].sum() == 12


# --- direction (tests/data/lm_eval/mae: a lower-is-better metric, results files beside) -----

MAE_TINY = next((DATA / "mae" / TINY.parent.name).glob("samples_*.jsonl"))
MAE_RANDOM = next((DATA / "mae" / RANDOM.parent.name).glob("samples_*.jsonl"))


def mae_deltas() -> dict[str, float]:
    base = {r["doc_id"]: r["mae"] for r in records(MAE_TINY)}
    cand = {r["doc_id"]: r["mae"] for r in records(MAE_RANDOM)}
    return {str(i): cand[i] - base[i] for i in base}


def test_higher_is_better_is_read_from_the_results_file_beside_the_samples():
    run = load_run(MAE_TINY)
    assert run.metadata["higher_is_better"] == "false"
    assert run.metadata["direction_source"] == MAE_TINY.name.replace(
        "samples_copa_distance", "results"
    ).replace(".jsonl", ".json")
    assert "mae is lower-is-better" in run.metadata["warning.direction"]
    assert not any(key.startswith("higher_is_better.") for key in run.metadata)


def test_a_lower_is_better_metric_lists_the_items_whose_value_rose_as_regressions():
    from evaltui.core.analysis.pipeline import compare_files

    analysis = compare_files(MAE_TINY, MAE_RANDOM)
    deltas = mae_deltas()
    assert analysis.regressions and analysis.improvements
    assert set(analysis.regressions) == {i for i, d in deltas.items() if d > 0}
    assert set(analysis.improvements) == {i for i, d in deltas.items() if d < 0}
    assert any("mae is lower-is-better" in w for w in analysis.warnings)


def test_the_flag_gives_the_direction_when_no_results_file_says_it(tmp_path):
    from evaltui.core.analysis.pipeline import compare_files

    copies = []
    for path in (MAE_TINY, MAE_RANDOM):
        copy = tmp_path / path.parent.name / path.name
        copy.parent.mkdir()
        shutil.copy(path, copy)
        copies.append(copy)
    assert load_run(copies[0]).metadata["higher_is_better"].startswith("unknown")
    deltas = mae_deltas()
    naive = compare_files(*copies)  # unknown: no item is called either way (issue 24)
    assert not naive.direction.known and "mae" in naive.direction.source
    assert naive.regressions == () and naive.improvements == ()
    flagged = compare_files(*copies, format_options={"higher_is_better": False})
    assert set(flagged.regressions) == {i for i, d in deltas.items() if d > 0}
    assert flagged.paired.baseline.metadata["direction_source"] == "--higher-is-better"


def test_the_direction_is_in_the_report_inputs_and_warnings(capsys):
    from evaltui.cli.main import main

    main(["report", str(MAE_TINY), str(MAE_RANDOM), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["inputs"]["baseline"]["metadata"]["higher_is_better"] == "false"
    assert any("lower-is-better" in w for w in report["warnings"])
    main(
        ["report", str(MAE_TINY), str(MAE_RANDOM), "--format", "json", "--higher-is-better", "true"]
    )
    report = json.loads(capsys.readouterr().out)
    meta = report["inputs"]["candidate"]["metadata"]
    assert meta["higher_is_better"] == "true"
    assert meta["direction_source"] == "--higher-is-better (the results file says false)"


@pytest.mark.parametrize("path", [TINY, MAE_TINY, RESULTS_DIR / TINY.name])
def test_the_one_pass_polars_read_gives_what_the_line_by_line_reader_gives(path, monkeypatch):
    fast = load_run(path)
    monkeypatch.setattr(lm_eval, "_fast_load", lambda *args: None)
    slow = load_run(path)
    assert fast.table.equals(slow.table)
    assert dict(fast.metadata) == dict(slow.metadata)
    assert fast.source == slow.source
    assert fast.transcripts.read(7) == slow.transcripts.read(7)


# --- one field of many rows (the previews and the search index) ------------------------------


@pytest.mark.parametrize(
    "path", [TINY, OLD_TINY, REPEATED_TINY, MAE_TINY], ids=lambda p: p.parent.name
)
def test_read_field_gives_each_rows_field_as_its_transcript_does(path):
    run = load_run(path)
    reader = run.transcripts
    n = run.table.height
    rows = [n - 1, 0, *range(n), 0]  # out of file order, and a row asked for twice
    for name in ("input", "output", "target", "explanation"):
        assert reader.read_field(rows, name) == [getattr(reader.read(r), name) for r in rows]
    assert reader.read_field([], "input") == []


def test_read_field_refuses_a_file_changed_after_loading(tmp_path):
    path = tmp_path / TINY.name
    shutil.copyfile(TINY, path)
    run = load_run(path)
    path.write_text(path.read_text()[:-200])
    with pytest.raises(InputError, match="changed on disk"):
        run.transcripts.read_field([0, 1], "input")


@pytest.mark.parametrize("path", [TINY, OLD_TINY, REPEATED_TINY], ids=lambda p: p.parent.name)
def test_the_source_hash_is_the_files_sha256_on_the_fast_and_the_line_by_line_path(path):
    assert load_run(path).source.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
