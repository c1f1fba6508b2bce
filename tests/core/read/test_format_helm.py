"""HELM run directories (display_predictions.json + display_requests.json) -> canonical runs.

Fixtures (tests/data/helm/README.md): an MMLU-anatomy-style run of pythia-1b-v0 and of
pythia-6.9b, 10 instances plus 3 dialect-perturbed copies each, metric exact_match. Malformed
files are edited copies written to tmp_path.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.compare.pairing import pair_runs
from evaltui.core.errors import InputError
from evaltui.core.read.formats import LoadOptions, detect_format, helm, load_run
from evaltui.core.read.runs import STAT_SCHEMA

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "helm"
SMALL_DIR = DATA / "mmlu-anatomy-pythia-1b-v0"
LARGE_DIR = DATA / "mmlu-anatomy-pythia-6.9b"
SMALL = SMALL_DIR / "display_predictions.json"
LARGE = LARGE_DIR / "display_predictions.json"
ORIGINALS = ["id41", "id7", "id112", "id63", "id90", "id15", "id128", "id54", "id3", "id77"]
IDS = ORIGINALS + ["id41/dialect", "id63/dialect", "id54/dialect"]


def copy_run(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target / "display_predictions.json"


def predictions(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def write(path: Path, data) -> Path:
    path.write_text(json.dumps(data, indent=2))
    return path


@pytest.fixture(scope="module")
def small():
    return load_run(SMALL)


@pytest.fixture(scope="module")
def large():
    return load_run(LARGE)


def test_rows_ids_and_verdicts(small, large):
    for run in (small, large):
        assert run.source.format == "helm"
        for column in ("item_id", "epoch", "passed", "status", "row"):
            assert run.table.schema[column] == STAT_SCHEMA[column]
        assert run.table["item_id"].to_list() == IDS
        assert run.table["epoch"].to_list() == [1] * 13
        assert run.table["status"].unique().to_list() == ["ok"]
        assert "score" not in run.table.columns
    assert "".join("1" if p else "0" for p in small.table["passed"]) == "1001010010100"
    assert "".join("1" if p else "0" for p in large.table["passed"]) == "1101101010110"
    assert small.table["passed"].sum() == 5
    assert large.table["passed"].sum() == 8


def test_paired_table(small, large):
    paired = pair_runs(small, large)
    b, c = paired.verdicts()
    counts = (int((b & c).sum()), int((b & ~c).sum()), int((~b & c).sum()), int((~b & ~c).sum()))
    assert (paired.n, *counts) == (13, 4, 1, 4, 4)
    assert paired.items.filter(pl.col("item_id") == "id41/dialect").height == 1


def test_metadata(small):
    meta = small.metadata
    assert meta["harness"] == "helm"
    assert meta["metric"] == "exact_match"
    assert meta["model"] == "eleutherai/pythia-1b-v0"
    assert meta["run"] == (
        "mmlu:subject=anatomy,method=multiple_choice_joint,model=eleutherai_pythia-1b-v0,"
        "data_augmentation=dialect"
    )
    assert meta["adapter_method"] == "multiple_choice_joint"
    assert meta["perturbations"] == "dialect"
    assert meta["predictions"] == "13" and meta["instances"] == "10"
    assert meta["display_requests.json"] == "present"


def test_transcript_reads_requests_and_instances_lazily(tmp_path):
    path = copy_run(SMALL_DIR, tmp_path / "run")
    run = load_run(path)
    (tmp_path / "run" / "display_requests.json").rename(tmp_path / "moved.json")
    # requests are read on the first transcript, not when the run opens: without them the
    # input falls back to the instance's own text (instances.json)
    assert run.transcripts.read(0).input == "Which bone forms the lateral side of the forearm?"
    shutil.move(tmp_path / "moved.json", tmp_path / "run" / "display_requests.json")
    fresh = load_run(path)
    t = fresh.transcripts.read(0)
    assert t.input.startswith("The following are multiple choice questions")
    assert t.input.endswith(
        "Question: Which bone forms the lateral side of the forearm?\n"
        "A. Ulna\nB. Radius\nC. Humerus\nD. Fibula\nAnswer:"
    )
    assert t.output == " B"
    assert t.target == "Radius"
    assert t.metadata["mapped_output"] == "Radius"
    assert t.metadata["stat.exact_match"] == "1.0"
    perturbed = fresh.transcripts.read(10)
    assert "Which one bone forms" in perturbed.input  # the perturbed copy's own request
    assert json.loads(perturbed.metadata["perturbation"])["name"] == "dialect"
    assert fresh.transcripts.read_field([1], "target") == ["mitral valve"]


def test_metric_option_and_graded_metric(tmp_path):
    run = load_run(SMALL, options=LoadOptions.of(metric="quasi_exact_match"))
    assert run.table["passed"].sum() == 5
    tokens = load_run(SMALL, options=LoadOptions.of(metric="num_prompt_tokens"))
    assert "passed" not in tokens.table.columns and tokens.table["score"][0] == 113.0
    with pytest.raises(InputError) as caught:
        load_run(SMALL, options=LoadOptions.of(metric="f1_score"))
    message = str(caught.value)
    assert message.startswith(f"{SMALL} (record [0]): field 'stats.f1_score': no value")
    assert "exact_match" in message and "--metric" in message
    data = predictions(SMALL)
    data[2]["stats"]["exact_match"] = 0.5
    graded = load_run(write(tmp_path / "half.json", data))
    assert graded.table["score"].sum() == pytest.approx(5.5)


def test_train_trials_are_epochs(tmp_path):
    data = predictions(SMALL)
    second = json.loads(json.dumps(data))
    for p in second:
        p["train_trial_index"] = 1
    run = load_run(write(tmp_path / "trials.json", data + second))
    assert run.table.height == 26
    assert run.table["epoch"].to_list() == [1] * 13 + [2] * 13
    assert run.metadata["train_trials"] == "2"


# --- malformed files -------------------------------------------------------------------------


def test_duplicate_prediction_is_refused(tmp_path):
    data = predictions(SMALL)
    data.append(data[10])
    with pytest.raises(InputError) as caught:
        load_run(write(tmp_path / "dup.json", data))
    message = str(caught.value)
    assert "(record [13]): field 'instance_id': instance 'id41/dialect'" in message
    assert "first at [10]" in message


@pytest.mark.parametrize(
    ("key", "value", "field", "expected"),
    [
        ("instance_id", None, "instance_id", "expected the instance id"),
        ("train_trial_index", "0", "train_trial_index", 'expected an integer >= 0, got "0"'),
        ("stats", [1], "stats", "expected the stats"),
        ("predicted_text", 7, "predicted_text", "expected a string"),
        ("perturbation", "dialect", "perturbation", "expected a perturbation description"),
    ],
)
def test_bad_field_names_record_and_field(tmp_path, key, value, field, expected):
    data = predictions(SMALL)
    data[4][key] = value
    path = write(tmp_path / "bad.json", data)
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert str(caught.value).startswith(f"{path} (record [4]): field '{field}': {expected}")


def test_metric_value_that_is_not_a_number(tmp_path):
    data = predictions(SMALL)
    data[6]["stats"]["exact_match"] = "yes"
    with pytest.raises(
        InputError, match=r"\(record \[6\]\): field 'stats.exact_match': cannot read the value"
    ):
        load_run(write(tmp_path / "yes.json", data))


def test_not_json_not_a_list_and_empty(tmp_path):
    cut = tmp_path / "cut.json"
    cut.write_text(SMALL.read_text()[:700])
    with pytest.raises(InputError) as caught:
        load_run(cut)
    assert "not valid JSON" in str(caught.value) and caught.value.line is not None
    with pytest.raises(InputError, match=r"expected a list of predictions"):
        helm.load(write(tmp_path / "obj.json", {"instance_id": "x"}), LoadOptions(), helm.Options())
    with pytest.raises(InputError, match=r"holds no predictions"):
        helm.load(write(tmp_path / "empty.json", []), LoadOptions(), helm.Options())


def test_broken_requests_file_is_named_when_a_transcript_is_opened(tmp_path):
    path = copy_run(SMALL_DIR, tmp_path / "run")
    (tmp_path / "run" / "display_requests.json").write_text("[{")
    run = load_run(path)
    with pytest.raises(InputError) as caught:
        run.transcripts.read(0)
    assert str(caught.value).startswith(str(tmp_path / "run" / "display_requests.json"))


# --- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", [SMALL, LARGE])
def test_detection_by_content(tmp_path, fixture):
    assert detect_format(fixture) == "helm"
    for suffix in (".txt", ".jsonl", ".csv", ".eval", ".parquet", ""):
        misnamed = tmp_path / f"misnamed{suffix}"
        shutil.copyfile(fixture, misnamed)
        assert detect_format(misnamed) == "helm", suffix
    assert load_run(tmp_path / "misnamed.txt").table.height == 13


def test_sniff_is_specific():
    assert not helm.sniff(Path("x"), (SMALL_DIR / "display_requests.json").read_bytes())
    assert not helm.sniff(Path("x"), (SMALL_DIR / "instances.json").read_bytes())
    assert not helm.sniff(Path("x"), b'{"instance_id": "id1", "predicted_text": "x"}\n')
    assert not helm.sniff(Path("x"), b'[[{"instance_id": "id1", "predicted_text": "x"}]]')
    assert not helm.sniff(Path("x"), b'[{"a": {"instance_id": 1, "predicted_text": 2}}]')
    head = b'[{"instance_id": "id1", "train_trial_index": 0, "predicted_text": " B", "sta'
    assert helm.sniff(Path("x"), head)  # the head may end anywhere


# --- suite v4 run directories (tests/data/helm/benchmark_output, make_v4.py) ----------------

V4 = DATA / "benchmark_output" / "runs" / "v4"
V4_SMALL = V4 / "mmlu_subject=anatomy_model=eleutherai_pythia-1b-v0"
V4_LARGE = V4 / "mmlu_subject=anatomy_model=eleutherai_pythia-6.9b"


def test_per_instance_stats_is_detected_and_read():
    path = V4_SMALL / "per_instance_stats.json"
    assert detect_format(path) == "helm"
    run = load_run(path)
    assert run.metadata["metric"] == "exact_match" and run.table["passed"].sum() == 5
    assert run.table.height == 13 and "id41/dialect" in run.table["item_id"].to_list()


def test_a_run_directory_is_a_run_read_from_its_per_instance_stats():
    run = load_run(V4_SMALL)
    assert Path(run.source.path).name == "per_instance_stats.json"
    assert run.metadata["metrics_from"] == "per_instance_stats.json"
    transcript = run.transcripts.read(0)
    assert transcript.output == " B"  # predicted_text, from display_predictions.json beside it
    assert transcript.input.startswith("The following are multiple choice questions")


def test_display_predictions_without_a_correctness_stat_take_it_from_beside():
    run = load_run(V4_SMALL / "display_predictions.json")
    assert run.metadata["metrics_from"] == "per_instance_stats.json"
    assert run.table["passed"].sum() == 5


def test_display_predictions_without_correctness_and_nothing_beside_say_where_it_is(tmp_path):
    shutil.copy(V4_SMALL / "display_predictions.json", tmp_path / "display_predictions.json")
    with pytest.raises(
        InputError, match="per_instance_stats.json beside this file, which is absent"
    ):
        load_run(tmp_path / "display_predictions.json")


def test_two_run_directories_pair_like_their_hand_built_originals():
    from evaltui.core.analysis.pipeline import compare_files

    v4 = compare_files(V4_SMALL, V4_LARGE)
    old = compare_files(DATA / "mmlu-anatomy-pythia-1b-v0", DATA / "mmlu-anatomy-pythia-6.9b")
    assert v4.binary.table == old.binary.table
    assert (v4.binary.table.both_pass, v4.binary.table.regressions) == (4, 1)


def test_a_directory_that_is_no_run_and_helms_stats_json_are_refused_saying_why():
    with pytest.raises(InputError, match="is a directory, not a run.*evaltui DIR"):
        load_run(V4)
    with pytest.raises(InputError, match="HELM's stats.json.*per_instance_stats.json"):
        load_run(V4_SMALL / "stats.json")
