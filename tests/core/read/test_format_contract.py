"""The format plug-in contract: every registered format is an `InputFormat` with its own
`Options`, and `load_run` hands each format its typed options, refusing the ones it does not
take instead of ignoring them."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.errors import InputError, UsageError
from evaltui.core.read.formats import (
    REGISTRY,
    InputFormat,
    LoadOptions,
    format_module,
    format_options,
    lm_eval,
    load_run,
)
from evaltui.core.read.formats.columns import ColumnOptions
from tests.conftest import DATA

COLUMN_OPTIONS = ("id_col", "pass_col", "score_col", "slice_col", "cluster_col", "text_cols")
OWN_OPTIONS = {
    "inspect_eval": (),
    "inspect_json": (),
    "lm_eval": ("filter", "exclude_nonfinite", "higher_is_better"),
    "promptfoo": ("arm",),
    "openai_evals": (),
    "helm": (),
    "parquet": COLUMN_OPTIONS,
    "jsonl": COLUMN_OPTIONS,
    "csv": COLUMN_OPTIONS,
}
LM_EVAL = next((DATA / "lm_eval" / "sshleifer__tiny-gpt2").glob("*.jsonl"))


def native_files(tmp_path: Path) -> dict[str, Path]:
    rows = {"item_id": ["a", "b"], "passed": [True, False], "input": ["q1", "q2"]}
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text('{"item_id": "a", "passed": true, "input": "q1"}\n')
    csv = tmp_path / "run.csv"
    csv.write_text("item_id,passed,input\na,true,q1\n")
    parquet = tmp_path / "run.parquet"
    pl.DataFrame(rows).write_parquet(parquet)
    return {"jsonl": jsonl, "csv": csv, "parquet": parquet}


def one_file_per_format(tmp_path: Path) -> dict[str, Path]:
    inspect_dir = DATA / "inspect_ai"
    return {
        "inspect_eval": inspect_dir
        / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval",
        "inspect_json": inspect_dir / "2025-05-12T20-28-13-04-00_popularity.json",
        "lm_eval": LM_EVAL,
        "promptfoo": DATA / "promptfoo" / "eval-gpt-4.1-mini.json",
        "openai_evals": next((DATA / "openai_evals").glob("*.jsonl")),
        "helm": DATA / "helm" / "mmlu-anatomy-pythia-1b-v0" / "display_predictions.json",
        **native_files(tmp_path),
    }


def test_the_registry_lists_every_format_with_its_expected_options():
    assert set(REGISTRY) == set(OWN_OPTIONS)


@pytest.mark.parametrize("name", REGISTRY)
def test_every_registered_format_satisfies_the_input_format_protocol(name):
    module = format_module(name)
    assert module is not None
    assert isinstance(module, InputFormat)
    assert name == module.NAME
    assert list(inspect.signature(module.sniff).parameters) == ["path", "head"]
    assert list(inspect.signature(module.load).parameters) == ["path", "options", "own"]


@pytest.mark.parametrize("name", REGISTRY)
def test_every_format_declares_its_name_and_options_once_in_its_light_options_module(name):
    from evaltui.core.read.formats.contract import DeclaresOptions

    declared = format_options(name)
    assert isinstance(declared, DeclaresOptions)
    assert declared.__name__ == f"evaltui.core.read.formats.{name}_options"
    module = format_module(name)
    assert declared.NAME == module.NAME == name
    assert module.Options is declared.Options  # the reader takes them from there: one place


@pytest.mark.parametrize("name", REGISTRY)
def test_each_format_options_are_a_frozen_dataclass_of_only_its_own_options(name):
    options_type = format_module(name).Options
    assert dataclasses.is_dataclass(options_type)
    assert options_type.__dataclass_params__.frozen
    assert tuple(f.name for f in dataclasses.fields(options_type)) == OWN_OPTIONS[name]
    defaults = options_type()  # every option has a default: none is required
    assert all(getattr(defaults, f) is None for f in OWN_OPTIONS[name])
    for common in ("metric", "defer_hash_check"):
        assert common not in OWN_OPTIONS[name]


def test_every_format_reads_its_transcripts_with_its_own_reader(tmp_path):
    for name, path in one_file_per_format(tmp_path).items():
        run = load_run(path)
        assert run.source.format == name
        reader = type(run.transcripts)
        own = f"evaltui.core.read.formats.{name}"  # the format's module, or its own part of it
        assert reader.__module__ in (own, f"{own}_transcripts"), name
        assert callable(reader.read) and callable(reader.read_field)
        run.transcripts.read(0)


# --- LoadOptions ---------------------------------------------------------------------------


def test_load_options_of_drops_unset_values_sorts_by_name_and_makes_lists_tuples():
    options = LoadOptions.of(
        metric="acc", text_cols=["q", "a"], id_col="qid", pass_col=None, arm="x"
    )
    assert options.metric == "acc"
    assert options.format_options == (("arm", "x"), ("id_col", "qid"), ("text_cols", ("q", "a")))
    assert options.format_dict() == {"arm": "x", "id_col": "qid", "text_cols": ("q", "a")}
    assert options.defer_hash_check is False
    assert LoadOptions.of(id_col="qid", arm="x") == LoadOptions.of(arm="x", id_col="qid")
    assert hash(options) == hash(
        LoadOptions.of(arm="x", text_cols=("q", "a"), id_col="qid", metric="acc")
    )
    assert LoadOptions.of() == LoadOptions()


# --- load_run hands each format its typed options ------------------------------------------


def test_a_format_load_gets_its_options_dataclass_and_no_option_bag(monkeypatch):
    seen = []
    real = lm_eval.load

    def spy(path, options, own):
        seen.append((options, own))
        return real(path, options, own)

    monkeypatch.setattr(lm_eval, "load", spy)
    load_run(LM_EVAL, options=LoadOptions.of(metric="acc", filter="none"))
    [(options, own)] = seen
    assert own == lm_eval.Options(filter="none")
    assert options.metric == "acc" and options.format_options == ()


def test_an_option_of_another_format_is_a_usage_error_naming_the_flag_and_the_files_format(
    tmp_path,
):
    path = native_files(tmp_path)["jsonl"]
    with pytest.raises(UsageError) as caught:
        load_run(path, options=LoadOptions.of(filter="strict-match"))
    message = str(caught.value)
    assert message.startswith(f"--filter is an option of lm_eval; {path} is read as jsonl")
    assert "(its options: --id-col, --pass-col, --score-col, --slice-col" in message
    assert "\n" not in message


def test_a_column_option_on_a_harness_log_is_refused_not_ignored():
    with pytest.raises(UsageError) as caught:
        load_run(LM_EVAL, options=LoadOptions.of(id_col="qid"))
    assert str(caught.value) == (
        f"--id-col is an option of parquet, jsonl and csv; {LM_EVAL} is read as lm_eval "
        "(its options: --filter, --exclude-nonfinite, --higher-is-better)"
    )
    helm = DATA / "helm" / "mmlu-anatomy-pythia-1b-v0" / "display_predictions.json"
    with pytest.raises(UsageError, match=r"--arm is an option of promptfoo; .* as helm "):
        load_run(helm, options=LoadOptions.of(arm="x"))
    with pytest.raises(UsageError, match=r"\(it takes no format options\)"):
        load_run(helm, options=LoadOptions.of(arm="x"))


def test_an_option_no_format_takes_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match=r"^--colour is not an option of any input format; "):
        load_run(native_files(tmp_path)["csv"], options=LoadOptions.of(colour="red"))


def test_a_forced_format_is_the_one_the_options_are_checked_against(tmp_path):
    path = native_files(tmp_path)["jsonl"]
    with pytest.raises(UsageError, match=r"--id-col is an option of .*read as lm_eval"):
        load_run(path, "lm_eval", LoadOptions.of(id_col="item_id"))


def test_a_text_option_given_another_type_is_a_usage_error_not_a_traceback():
    path = DATA / "promptfoo" / "eval-two-providers.json"
    with pytest.raises(UsageError, match=r"^--arm needs text, got 3 \(reading .* as promptfoo\)"):
        load_run(path, options=LoadOptions.of(arm=3))


def test_column_options_reach_the_native_loaders_typed(tmp_path):
    for path in native_files(tmp_path).values():
        renamed = path.with_name("renamed" + path.suffix)
        if path.suffix == ".parquet":
            pl.read_parquet(path).rename({"item_id": "qid"}).write_parquet(renamed)
        else:
            renamed.write_text(path.read_text().replace("item_id", "qid"))
        run = load_run(renamed, options=LoadOptions.of(id_col="qid", text_cols=["input"]))
        assert run.table["item_id"].to_list()[0] == "a"
        assert run.transcripts.read(0).input == "q1"
    assert ColumnOptions().text_cols is None


# --- the harness readers' shared checks ----------------------------------------------------

HARNESS = ("inspect_eval", "inspect_json", "lm_eval", "promptfoo", "openai_evals", "helm")


@pytest.mark.parametrize("name", HARNESS)
def test_a_harness_reader_refuses_a_row_out_of_range_and_an_unknown_field(tmp_path, name):
    run = load_run(one_file_per_format(tmp_path)[name])
    with pytest.raises(IndexError, match=r"row -1 is out of range \(0\.\."):
        run.transcripts.read(-1)
    with pytest.raises(ValueError, match="unknown transcript field 'prompt'"):
        run.transcripts.read_field([0], "prompt")


@pytest.mark.parametrize("name", ["inspect_eval", "lm_eval", "openai_evals"])
def test_a_harness_reader_refuses_a_file_rewritten_since_it_was_loaded(tmp_path, name):
    source = one_file_per_format(tmp_path)[name]
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    run = load_run(path)
    with path.open("ab") as handle:
        handle.write(b"\n")
    with pytest.raises(InputError, match="changed on disk since it was loaded; reload the run"):
        run.transcripts.read(0)


# --- what the command line and the log-directory lister learn from each format ---------------


@pytest.mark.parametrize("name", REGISTRY)
def test_every_format_option_declares_the_flag_that_offers_it(name):
    from evaltui.core.read.formats.contract import FLAG, Flag

    for options_field in dataclasses.fields(format_module(name).Options):
        flag = options_field.metadata.get(FLAG)
        assert isinstance(flag, Flag) and flag.help, (name, options_field.name)


@pytest.mark.parametrize("name", ["inspect_eval", "inspect_json", "lm_eval", "helm"])
def test_the_harnesses_that_write_log_directories_recognise_and_describe_their_runs(name):
    from evaltui.core.read.formats.contract import ListsInDirectories

    module = format_module(name)
    assert isinstance(module, ListsInDirectories)
    assert list(inspect.signature(module.recognise).parameters) == ["path"]
    assert list(inspect.signature(module.describe_run).parameters) == ["entry"]


def test_the_flag_parsers_turn_text_into_the_options_types():
    from evaltui.core.read.formats.contract import parse_bool, parse_list

    assert (parse_bool("true"), parse_bool("false")) == (True, False)
    assert parse_list("input,output") == ("input", "output") and parse_list("") is None


HARNESS_READERS = ("inspect_eval", "inspect_json", "lm_eval", "promptfoo", "openai_evals", "helm")


def test_naming_a_plain_jsonl_or_parquet_run_imports_no_harness_reader(tmp_path):
    """Every harness format is asked first, through `harness_sniffs`: a native run's detection
    no longer imports Inspect's, lm-eval's, promptfoo's, OpenAI evals' and HELM's readers."""
    pl.DataFrame({"item_id": ["a", "b"], "passed": [True, False]}).write_parquet(
        tmp_path / "run.parquet"
    )
    (tmp_path / "run.jsonl").write_text('{"item_id": "a", "passed": true}\n')
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from evaltui.core.read.formats import detect_format\n"
        "names = [detect_format(Path(p)) for p in sys.argv[1:]]\n"
        f"readers = [m for m in {HARNESS_READERS!r} "
        "if 'evaltui.core.read.formats.' + m in sys.modules]\n"
        "print(names, readers)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "run.jsonl"), str(tmp_path / "run.parquet")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == "['jsonl', 'parquet'] []"


def test_a_harness_format_this_build_does_not_ship_is_not_detected(monkeypatch):
    """`detect_format` asks a light sniff only for a format whose reader is present, as it did
    when it imported each reader to ask it."""
    import importlib.util

    import evaltui.core.read.formats as formats

    path = DATA.joinpath(
        "lm_eval",
        "repeated",
        "sshleifer__tiny-gpt2",
        "samples_copa_2026-10-01T23-15-32.942677.jsonl",
    )
    assert formats.detect_format(path) == "lm_eval"
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "evaltui.core.read.formats.lm_eval" else real(name, *a),
    )
    assert formats.detect_format(path) != "lm_eval"


def test_every_harness_reader_sniffs_as_its_light_sniff():
    """The readers' `sniff` (the format contract) and `harness_sniffs.SNIFFS` are one function."""
    from evaltui.core.read.formats.harness_sniffs import SNIFFS

    assert set(SNIFFS) == set(HARNESS_READERS)
    heads = [
        b'{"version": 2, "eval": {}}',
        b'{"doc_id": 0, "doc": {}, "resps": []}\n',
        b"PK\x03\x04",
    ]
    heads += [b'[{"instance_id": "i", "predicted_text": "x"}]', b'{"evalId": "e"}', b"{}\n"]
    for name, light in SNIFFS.items():
        module = format_module(name)
        assert module is not None
        for head in heads:
            assert module.sniff(Path("x"), head) == light(Path("x"), head), (name, head)
