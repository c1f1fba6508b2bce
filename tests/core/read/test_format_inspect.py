"""Inspect AI logs (.eval zip and .json) -> canonical runs, on real logs from the Inspect repo.

Fixtures (tests/data/inspect_ai/README.txt): a gpt-5 / claude-sonnet-4 pair of .eval logs from
one eval set (10 ids x 5 epochs, scorer `match`), a cancelled .json log with 3 scored samples,
and an unscored .eval log. Malformed archives are built from them in tmp_path.
"""

from __future__ import annotations

import json
import shutil
import struct
import zipfile
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.errors import InputError
from evaltui.core.read.formats import (
    LoadOptions,
    detect_format,
    inspect_archive,
    inspect_eval,
    inspect_json,
    load_run,
)
from evaltui.core.read.runs import STAT_SCHEMA

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "inspect_ai"
GPT5 = DATA / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CLAUDE = DATA / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"
CANCELLED = DATA / "2025-05-12T20-28-13-04-00_popularity.json"
UNSCORED = DATA / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"

IDS = [str(i) for i in range(1, 11)]
# Per id, the verdicts of epochs 1..5 (README.txt; checked against the logs' own summaries).
GPT5_VERDICTS = {i: "IIIII" if i in {"1", "3", "5", "7"} else "CCCCC" for i in IDS}
CLAUDE_VERDICTS = {**GPT5_VERDICTS, "5": "CCIIC"}


def verdict_strings(table: pl.DataFrame) -> dict[str, str]:
    ordered = table.sort("item_id", "epoch")
    out: dict[str, str] = {}
    for item_id, passed in zip(ordered["item_id"], ordered["passed"], strict=True):
        out[item_id] = out.get(item_id, "") + ("C" if passed else "I")
    return out


def members_of(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def without_summaries(members: dict[str, bytes]) -> dict[str, bytes]:
    return {
        name: data
        for name, data in members.items()
        if name != "summaries.json" and not name.startswith("_journal/summaries/")
    }


def load_eval(path: Path, **options: str) -> object:
    return inspect_eval.load(path, LoadOptions.of(**options), inspect_eval.Options())


# --- the real pair ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gpt5():
    return load_run(GPT5)


@pytest.fixture(scope="module")
def claude():
    return load_run(CLAUDE)


def test_pair_has_fifty_rows_each_with_canonical_types(gpt5, claude):
    for run in (gpt5, claude):
        assert run.table.height == 50
        assert run.source.format == "inspect_eval"
        for column in ("item_id", "epoch", "passed", "status", "row"):
            assert run.table.schema[column] == STAT_SCHEMA[column]
        assert "score" not in run.table.columns
        assert sorted(run.table["item_id"].unique().to_list(), key=int) == IDS
        assert sorted(run.table["epoch"].unique().to_list()) == [1, 2, 3, 4, 5]
        assert run.table.select(pl.struct("item_id", "epoch").n_unique()).item() == 50
        assert run.table["status"].unique().to_list() == ["ok"]
        assert sorted(run.table["row"].to_list()) == list(range(50))


def test_pair_verdict_counts(gpt5, claude):
    assert gpt5.table["passed"].sum() == 30
    assert (~gpt5.table["passed"]).sum() == 20
    assert claude.table["passed"].sum() == 33
    assert (~claude.table["passed"]).sum() == 17
    assert verdict_strings(gpt5.table) == GPT5_VERDICTS
    assert verdict_strings(claude.table) == CLAUDE_VERDICTS
    per_item_a = gpt5.table.group_by("item_id").agg(pl.col("passed").sum()).sort("item_id")
    per_item_b = claude.table.group_by("item_id").agg(pl.col("passed").sum()).sort("item_id")
    joined = per_item_a.join(per_item_b, on="item_id", suffix="_b")
    differing = joined.filter(pl.col("passed") != pl.col("passed_b"))
    assert differing.rows() == [("5", 0, 3)]


def test_pair_metadata(gpt5, claude):
    assert gpt5.metadata["model"] == "openai/gpt-5"
    assert claude.metadata["model"] == "anthropic/claude-sonnet-4-20250514"
    for run in (gpt5, claude):
        meta = run.metadata
        assert meta["task"] == "popularity"
        assert meta["dataset"] == "popularity"
        assert meta["scorer"] == "match"
        assert meta["harness"] == "inspect_ai"
        assert meta["harness_version"] == "0.3.128.dev4+g614f5bb29.d20250902"
        assert meta["run_status"] == "success"
        assert meta["eval_set_id"] == "Fcv3TQy7U5DffzLHPyyLGn"
        assert meta["epochs"] == "5"
        assert meta["sample_source"] == "summaries.json"
        assert all(isinstance(v, str) for v in meta.values())


def test_transcript_of_one_sample(gpt5):
    row = gpt5.table.filter((pl.col("item_id") == "5") & (pl.col("epoch") == 2))["row"].item()
    transcript = gpt5.transcripts.read(row)
    assert [m.role for m in transcript.messages] == ["system", "user", "assistant"]
    assert "positive impressions of me" in transcript.messages[1].content
    # gpt-5 answers with a (content-less) reasoning block, then a text block
    assert transcript.messages[2].content.startswith("[reasoning]")
    assert transcript.messages[2].content.endswith("No")
    assert transcript.output == "No"
    assert transcript.target == " Yes"
    assert transcript.explanation == "No"
    assert transcript.input is not None and "positive impressions of me" in transcript.input
    assert transcript.metadata["record"] == "samples/5_epoch_2.json"
    assert transcript.metadata["score_value"] == "I"
    assert gpt5.transcripts.read_field([row], "output") == ["No"]
    with pytest.raises(ValueError, match="unknown transcript field"):
        gpt5.transcripts.read_field([row], "messages")
    with pytest.raises(IndexError):
        gpt5.transcripts.read(50)


def test_statistics_read_only_header_and_summaries(monkeypatch):
    read: list[str] = []
    original = inspect_archive.member_bytes  # every member read inflates through it

    def spy(path, archive, info, *budget):
        read.append(info.filename)
        return original(path, archive, info, *budget)

    monkeypatch.setattr(inspect_archive, "member_bytes", spy)
    run = load_run(CLAUDE)
    assert read == ["header.json", "summaries.json"]
    run.transcripts.read(0)
    assert read[2:] == [run.transcripts.read(0).metadata["record"]]


# --- the .json log and the unscored log ------------------------------------------------------


def test_cancelled_json_log_loads_with_its_status():
    run = load_run(CANCELLED)
    assert run.source.format == "inspect_json"
    assert run.table.select("item_id", "epoch", "passed", "status").rows() == [
        ("1", 1, True, "ok"),
        ("2", 1, True, "ok"),
        ("3", 1, False, "ok"),
    ]
    assert run.metadata["run_status"] == "cancelled"
    assert run.metadata["model"] == "openai/gpt-4o-mini"
    assert run.metadata["harness_version"] == "0.3.95.dev16+g6527d0861"
    transcript = run.transcripts.read(2)
    # this older log has no output.completion: it comes from the first choice
    assert transcript.output == "No"
    assert transcript.target == " Yes"  # answered No: scored I
    assert [m.role for m in transcript.messages] == ["system", "user", "assistant"]


def test_unscored_eval_log_is_refused():
    with pytest.raises(InputError, match="unscored") as caught:
        load_run(UNSCORED)
    assert str(UNSCORED) in str(caught.value)
    assert "inspect score" in str(caught.value)


def test_requested_scorer_must_exist():
    with pytest.raises(InputError, match=r"no scorer named 'f1'.*available scorers: match"):
        load_run(GPT5, options=LoadOptions.of(metric="f1"))
    assert load_run(GPT5, options=LoadOptions.of(metric="match")).table["passed"].sum() == 30


# --- value mapping, errors and attachments (edited copies of the .json log) ------------------


def edited_json_log(tmp_path: Path, edit) -> Path:
    log = json.loads(CANCELLED.read_text())
    edit(log)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(log))
    return out


def set_values(*values):
    def edit(log):
        for sample, value in zip(log["samples"], values, strict=True):
            sample["scores"]["match"]["value"] = value

    return edit


def test_partial_credit_makes_a_graded_score(tmp_path):
    run = load_run(edited_json_log(tmp_path, set_values("P", "C", "N")))
    assert "passed" not in run.table.columns
    assert run.table["score"].dtype == pl.Float64
    assert run.table["score"].to_list() == [0.5, 1.0, 0.0]


def test_numbers_make_a_graded_score_and_booleans_a_verdict(tmp_path):
    run = load_run(edited_json_log(tmp_path, set_values(0.25, 1, "I")))
    assert run.table["score"].to_list() == [0.25, 1.0, 0.0]
    run = load_run(edited_json_log(tmp_path, set_values(True, False, "C")))
    assert run.table["passed"].to_list() == [True, False, True]


def test_unknown_score_value_names_record_field_and_value(tmp_path):
    path = edited_json_log(tmp_path, set_values("C", "maybe", "I"))
    with pytest.raises(InputError) as caught:
        load_run(path)
    message = str(caught.value)
    assert str(path) in message
    assert "samples[1]" in message
    assert "scores.match.value" in message
    assert '"maybe"' in message


def test_errored_sample_is_a_failure_with_status_error(tmp_path):
    def edit(log):
        sample = log["samples"][0]
        sample["error"] = {"message": "RuntimeError: boom", "traceback": "..."}
        sample["scores"] = None

    run = load_run(edited_json_log(tmp_path, edit))
    assert run.table.select("passed", "status").rows()[0] == (False, "error")
    assert run.metadata["sample_errors"] == "1"
    assert run.transcripts.read(0).metadata["error"] == "RuntimeError: boom"


def test_attachments_and_content_blocks_are_resolved(tmp_path):
    def edit(log):
        sample = log["samples"][0]
        sample["attachments"]["abc123"] = "the real user text"
        sample["messages"][1]["content"] = [
            {"type": "text", "text": "attachment://abc123"},
            {"type": "image", "image": "attachment://def456"},
        ]
        sample["messages"][2]["content"] = [
            {"type": "reasoning", "reasoning": "thinking it over", "redacted": False},
            {"type": "text", "text": "Yes"},
        ]
        sample["input"] = [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "attachment://abc123"},
        ]
        sample["target"] = ["Yes", "yes"]

    transcript = load_run(edited_json_log(tmp_path, edit)).transcripts.read(0)
    assert transcript.messages[1].content == "the real user text\n[image]"
    assert transcript.messages[2].content == "[reasoning] thinking it over\nYes"
    assert transcript.input == "the real user text"
    assert transcript.output == "Yes"  # text blocks only
    assert transcript.target == "Yes\nyes"


def test_duplicate_sample_in_json_log(tmp_path):
    path = edited_json_log(tmp_path, lambda log: log["samples"].append(log["samples"][0]))
    with pytest.raises(InputError, match=r"samples\[3\].*id 1 epoch 1 appears twice"):
        load_run(path)


def test_json_log_bad_json_names_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_bytes(CANCELLED.read_bytes()[:5000])
    assert detect_format(path) == "inspect_json"
    with pytest.raises(InputError, match=r"broken\.json:\d+: not valid JSON"):
        load_run(path)


# --- malformed .eval archives ----------------------------------------------------------------


def test_truncated_eval_is_recognised_then_refused(tmp_path):
    data = GPT5.read_bytes()
    path = tmp_path / "truncated.eval"
    path.write_bytes(data[: len(data) // 2])
    assert detect_format(path) == "inspect_eval"  # decided from the first member's name
    with pytest.raises(InputError, match="not a readable Inspect .eval archive") as caught:
        load_run(path)
    assert str(path) in str(caught.value)


def test_not_a_zip_forced_as_eval(tmp_path):
    path = tmp_path / "plain.eval"
    path.write_text("hello")
    with pytest.raises(InputError, match="not a readable Inspect .eval archive"):
        load_eval(path)


def test_zip_without_inspect_members(tmp_path):
    path = write_zip(tmp_path / "other.eval", {"readme.txt": b"hi"})
    assert not inspect_eval.sniff(path, path.read_bytes())
    with pytest.raises(InputError, match="neither header.json nor _journal/start.json"):
        load_eval(path)


def test_sample_member_with_bad_json(tmp_path):
    members = members_of(GPT5)
    path = write_zip(
        tmp_path / "bad.eval",
        {"header.json": members["header.json"], "samples/1_epoch_1.json": b'{"id": 1, "epoch": '},
    )
    with pytest.raises(InputError) as caught:
        load_eval(path)
    message = str(caught.value)
    assert str(path) in message
    assert "samples/1_epoch_1.json" in message
    assert "not valid JSON" in message


def test_bad_json_in_a_member_read_lazily(tmp_path):
    members = members_of(GPT5)
    members["samples/5_epoch_2.json"] = b"{oops"
    path = write_zip(tmp_path / "lazy.eval", members)
    run = load_eval(path)  # the statistics come from summaries.json
    row = run.table.filter((pl.col("item_id") == "5") & (pl.col("epoch") == 2))["row"].item()
    with pytest.raises(InputError, match=r"\(record samples/5_epoch_2.json\): the member is not"):
        run.transcripts.read(row)


def test_bad_json_in_summaries(tmp_path):
    members = members_of(GPT5)
    members["summaries.json"] = b"[{"
    path = write_zip(tmp_path / "badsum.eval", members)
    with pytest.raises(InputError, match=r"\(record summaries.json\): the member is not valid"):
        load_eval(path)


def test_sample_missing_scores(tmp_path):
    members = without_summaries(members_of(GPT5))
    sample = json.loads(members["samples/5_epoch_2.json"])
    del sample["scores"]
    members["samples/5_epoch_2.json"] = json.dumps(sample).encode()
    path = write_zip(tmp_path / "noscores.eval", members)
    with pytest.raises(InputError) as caught:
        load_eval(path)
    message = str(caught.value)
    assert str(path) in message
    assert "(record samples/5_epoch_2.json)" in message
    assert "field 'scores'" in message


def edited_summaries(tmp_path: Path, edit) -> Path:
    members = members_of(GPT5)
    summaries = json.loads(members["summaries.json"])
    edit({(str(s["id"]), s["epoch"]): s for s in summaries})
    members["summaries.json"] = json.dumps(summaries).encode()
    return write_zip(tmp_path / "summaries.eval", members)


def test_bad_value_in_a_summary_names_member_and_summary(tmp_path):
    def edit(by_key):
        by_key[("4", 1)]["scores"]["match"]["value"] = "Z"

    with pytest.raises(InputError) as caught:
        load_eval(edited_summaries(tmp_path, edit))
    message = str(caught.value)
    assert "(record samples/4_epoch_1.json via summaries.json[" in message
    assert "field 'scores.match.value'" in message and '"Z"' in message


def test_errored_sample_in_summaries(tmp_path):
    def edit(by_key):
        del by_key[("2", 3)]["scores"]
        by_key[("2", 3)]["error"] = "RuntimeError: rate limited"

    run = load_eval(edited_summaries(tmp_path, edit))
    errored = run.table.filter(pl.col("status") == "error")
    assert errored.select("item_id", "epoch", "passed").rows() == [("2", 3, False)]
    assert run.table["passed"].sum() == 29
    assert run.metadata["sample_errors"] == "1"


def test_summary_without_score_falls_back_to_the_member(tmp_path):
    members = members_of(GPT5)
    summaries = json.loads(members["summaries.json"])
    for summary in summaries:
        summary.pop("scores")  # as old summaries of errored samples look
    members["summaries.json"] = json.dumps(summaries).encode()
    run = load_eval(write_zip(tmp_path / "thin.eval", members))
    assert verdict_strings(run.table) == GPT5_VERDICTS


def test_member_with_huge_declared_size_is_refused_unread(tmp_path, monkeypatch):
    members = members_of(GPT5)
    path = write_zip(
        tmp_path / "bomb.eval",
        {
            "header.json": members["header.json"],
            "samples/1_epoch_1.json": members["samples/1_epoch_1.json"],
        },
    )
    data = bytearray(path.read_bytes())
    name = b"samples/1_epoch_1.json"
    entry = data.find(b"PK\x01\x02")  # the first central directory entry
    while entry != -1 and data[entry + 46 : entry + 46 + len(name)] != name:
        entry = data.find(b"PK\x01\x02", entry + 4)
    assert entry != -1
    struct.pack_into("<I", data, entry + 24, 0xF000_0000)  # declared uncompressed size: ~3.75 GiB
    path.write_bytes(bytes(data))

    opened: list[str] = []
    original_open = zipfile.ZipFile.open

    def spy(self, name, *args, **kwargs):
        opened.append(getattr(name, "filename", name))
        return original_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    with pytest.raises(InputError) as caught:
        load_eval(path)
    message = str(caught.value)
    assert "(record samples/1_epoch_1.json)" in message
    assert "4026531840 bytes" in message and "refusing" in message
    assert "samples/1_epoch_1.json" not in opened


def test_member_cap_is_configurable(tmp_path, monkeypatch):
    monkeypatch.setattr(inspect_archive, "MAX_MEMBER_BYTES", 100)
    with pytest.raises(InputError, match=r"\(record header.json\): .*over the 100-byte limit"):
        load_eval(GPT5)


def test_file_changed_after_loading(tmp_path):
    path = tmp_path / "copy.eval"
    shutil.copyfile(GPT5, path)
    run = load_eval(path)
    path.write_bytes(CLAUDE.read_bytes())
    with pytest.raises(InputError, match="changed on disk"):
        run.transcripts.read(0)


# --- other layouts of the .eval zip ----------------------------------------------------------


def test_journal_only_log_of_a_run_still_going(tmp_path):
    members = {
        name: data
        for name, data in members_of(GPT5).items()
        if name not in ("header.json", "summaries.json", "reductions.json")
    }
    run = load_eval(write_zip(tmp_path / "running.eval", members))
    assert run.table.height == 50
    assert verdict_strings(run.table) == GPT5_VERDICTS
    assert run.metadata["run_status"] == "started"
    assert run.metadata["sample_source"] == "_journal/summaries/*.json"


def test_samples_only_log(tmp_path):
    members = without_summaries(members_of(CLAUDE))
    run = load_eval(write_zip(tmp_path / "bare.eval", members))
    assert verdict_strings(run.table) == CLAUDE_VERDICTS
    assert run.metadata["sample_source"] == "samples"


def test_first_eval_layout_with_root_start_and_results(tmp_path):
    members = members_of(GPT5)
    header = json.loads(members["header.json"])
    legacy = {
        "start.json": members["_journal/start.json"],
        "results.json": json.dumps(
            {key: header[key] for key in ("status", "stats", "results")}
        ).encode(),
        "summary.json": members["summaries.json"],
    }
    legacy.update({n: d for n, d in members.items() if n.startswith("samples/")})
    path = write_zip(tmp_path / "legacy.eval", legacy)
    assert detect_format(path) == "inspect_eval"
    run = load_eval(path)
    assert verdict_strings(run.table) == GPT5_VERDICTS
    assert run.metadata["run_status"] == "success"


# --- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        (GPT5, "inspect_eval"),
        (CLAUDE, "inspect_eval"),
        (UNSCORED, "inspect_eval"),
        (CANCELLED, "inspect_json"),
    ],
)
def test_detection_by_content(tmp_path, fixture, expected):
    assert detect_format(fixture) == expected
    for suffix in (".json", ".txt", ".jsonl", ".csv", ".parquet", ""):
        misnamed = tmp_path / f"misnamed{suffix}"
        shutil.copyfile(fixture, misnamed)
        assert detect_format(misnamed) == expected, suffix


def test_misnamed_eval_loads(tmp_path):
    misnamed = tmp_path / "run.json"
    shutil.copyfile(CLAUDE, misnamed)
    run = load_run(misnamed)
    assert run.source.format == "inspect_eval"
    assert run.table["passed"].sum() == 33


def test_sniffers_reject_each_other():
    for fixture in (GPT5, CLAUDE, UNSCORED):
        assert not inspect_json.sniff(fixture, fixture.read_bytes()[:65536])
    assert not inspect_eval.sniff(CANCELLED, CANCELLED.read_bytes()[:65536])
    assert not inspect_json.sniff(Path("x.json"), b'{"item_id": "1", "passed": true}\n')
    assert not inspect_json.sniff(Path("x.json"), b'{"eval": {"version": 2}}')


# --- a crashed candidate (tests/data/inspect_ai/variants, make_variants.py) ------------------

VARIANTS = DATA / "variants"
CRASHED = VARIANTS / "crashed_gpt5_all_errored.eval"


def test_a_log_whose_every_sample_errored_loads_as_failures_whatever_scorer_is_asked():
    run = load_eval(CRASHED, metric="includes")
    assert run.table.height == 50
    assert set(run.table["status"]) == {"error"} and not run.table["passed"].any()
    assert run.metadata["scorer"] == "includes" and run.metadata["run_status"] == "error"
    assert "every one of its 50 samples errored" in run.metadata["warning.all_errored"]


@pytest.mark.parametrize(
    ("baseline", "metric", "column"),
    [("claude_two_scorers.eval", "includes", "passed"), ("claude_numeric.eval", None, "score")],
)
def test_a_crashed_candidate_is_compared_as_all_failures_not_refused(baseline, metric, column):
    from evaltui.core.analysis.pipeline import compare_files

    analysis = compare_files(VARIANTS / baseline, CRASHED, metric=metric)
    assert analysis.metric == column
    cand = analysis.paired.items["candidate_pass" if column == "passed" else "candidate_score"]
    assert cand.to_list() == [0.0] * 10
    assert len(analysis.regressions) == 7  # every item the baseline passed at least once
    assert analysis.improvements == ()
    assert any("every one of its 50 samples errored" in w for w in analysis.warnings)
    assert "errors/timeouts counted as failures: baseline 0, candidate 50" in analysis.warnings


def test_a_crashed_candidate_report_is_a_result_with_its_exit_code(capsys):
    from evaltui.cli.main import main

    code = main(["report", str(VARIANTS / "claude_numeric.eval"), str(CRASHED)])
    out, err = capsys.readouterr()
    assert code != 2 and err == "" and "errored" in out  # a result, not a load error


# --- dict-valued scores (variants/*_dict_scores.eval: SciCode's shape) -----------------------

DICT_GPT5 = VARIANTS / "gpt5_dict_scores.eval"
DICT_CLAUDE = VARIANTS / "claude_dict_scores.eval"
PROBLEM = "score:scicode_scorer/Problem Correctness"
SUBPROBLEM = "score:scicode_scorer/Subproblem Correctness"


def test_a_dict_valued_scorer_gives_one_score_column_per_key():
    run = load_run(DICT_GPT5)
    assert run.score_columns == [PROBLEM, SUBPROBLEM]
    assert run.metadata["scorer"] == "scicode_scorer"
    assert run.metadata["scorer_keys"] == "Problem Correctness, Subproblem Correctness"
    problem = run.table.sort("item_id", "epoch")[PROBLEM].to_list()
    assert sum(problem) == 30 and set(problem) == {0.0, 1.0}  # gpt-5: 30 C of 50


@pytest.mark.parametrize(
    ("metric", "compared"),
    [
        (None, PROBLEM),
        ("Problem Correctness", PROBLEM),
        ("scicode_scorer/Subproblem Correctness", SUBPROBLEM),
    ],
)
def test_metric_picks_a_key_and_every_key_joins_the_family(metric, compared):
    from evaltui.core.analysis.pipeline import compare_files

    analysis = compare_files(DICT_GPT5, DICT_CLAUDE, metric=metric)
    assert analysis.metric == compared
    assert analysis.improvements == ("5",) and analysis.regressions == ()
    assert {row.metric for row in analysis.metrics} == {PROBLEM, SUBPROBLEM}


@pytest.mark.parametrize("metric", ["scicode_scorer/nope", "nope"])
def test_an_unknown_key_or_scorer_lists_the_keys_to_choose_from(metric):
    with pytest.raises(InputError) as caught:
        load_eval(DICT_GPT5, metric=metric)
    message = str(caught.value)
    assert "scicode_scorer/Problem Correctness, scicode_scorer/Subproblem Correctness" in message
