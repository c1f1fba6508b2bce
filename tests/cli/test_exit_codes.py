"""Exit codes keep their meaning: bad input and the environment are exit 2 on one line, a polars
panic is caught and named, and nothing ends as a traceback with exit 1 (`report` means 1 as
"blocked", so a crash must never look like a verdict).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.exceptions import PanicException

from evaltui.cli.main import main
from evaltui.core.errors import InputError
from evaltui.core.read.formats import load_run
from evaltui.core.read.formats import parquet as parquet_format
from tests.conftest import SAMPLE_RUNS
from tests.core.record.test_write_failures import unprivileged

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"
SCRIPT = Path(sys.executable).parent / "evaltui"


def _pair(tmp_path: Path, kind: str = "parquet") -> tuple[Path, Path]:
    out = []
    for name in ("baseline", "candidate"):
        frame = pl.read_ndjson(SAMPLE_RUNS / f"{name}.jsonl")
        path = tmp_path / f"{name}.{kind}"
        if kind == "parquet":
            frame.write_parquet(path)
        else:
            shutil.copy(SAMPLE_RUNS / f"{name}.jsonl", path)
        out.append(path)
    return out[0], out[1]


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("evaltui:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_a_parquet_file_that_makes_polars_panic_is_bad_input_exit_2(tmp_path, capsys):
    """The fixture's footer is corrupt so that polars 2.1 panics reading its schema; whatever
    polars does with it, the answer is an input error naming the file, not a traceback."""
    corrupt, candidate = _pair(tmp_path)
    shutil.copy(PAYLOADS / "corrupt-footer.parquet", corrupt)
    assert main(["report", str(corrupt), str(candidate)]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith(f"evaltui: error: {corrupt}") and "Parquet" in line


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_the_installed_command_exits_2_on_the_corrupt_parquet(tmp_path):
    corrupt, candidate = _pair(tmp_path)
    shutil.copy(PAYLOADS / "corrupt-footer.parquet", corrupt)
    env = {k: v for k, v in os.environ.items() if k != "EVALTUI_DEBUG"}
    done = subprocess.run(
        [str(SCRIPT), "report", str(corrupt), str(candidate)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.rstrip().splitlines()[-1].startswith(f"evaltui: error: {corrupt}")


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_a_parquet_page_that_would_make_polars_abort_the_process_is_refused_first(tmp_path):
    """Run in a child: if the check ever let it through, polars would kill the process."""
    damaged, candidate = _pair(tmp_path)
    shutil.copy(PAYLOADS / "negative-page-count.parquet", damaged)
    env = {k: v for k, v in os.environ.items() if k != "EVALTUI_DEBUG"}
    done = subprocess.run(
        [str(SCRIPT), "report", str(damaged), str(candidate)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert done.stderr.splitlines() == [
        f"evaltui: error: {damaged}: a damaged Parquet page (column 'slice'): the page at "
        "byte 651 counts -115 values in a chunk of 80"
    ]


def sound_parquet(path: Path, n: int) -> Path:
    """A sound file of `n` rows in many small pages (4 KB), ten row groups, nested messages."""
    pl.DataFrame(
        {"item_id": [f"q{i}" for i in range(n)], "passed": [i % 3 == 0 for i in range(n)],
         "output": ["some text " * (i % 7) for i in range(n)],
         "messages": [[{"role": "user", "content": "hi"}]] * n}
    ).write_parquet(path, row_group_size=n // 10, data_page_size=4096)  # fmt: skip
    return path


def test_the_page_check_passes_every_page_of_a_sound_file_quick(tmp_path):
    """The fast version the default run keeps: 20,000 rows. What the check costs is measured
    by bench/page_check.py, not asserted here (no test asserts on time)."""
    from evaltui.core.read.formats.parquet import check_pages

    path = sound_parquet(tmp_path / "sound.parquet", 20_000)
    check_pages(path, {"item_id", "passed", "output", "messages"})
    assert load_run(path).transcripts.read(8).output == "some text "


@pytest.mark.slow
def test_the_page_check_passes_every_page_of_a_sound_file(tmp_path):
    from evaltui.core.read.formats.parquet import check_pages

    path = sound_parquet(tmp_path / "big.parquet", 200_000)
    check_pages(path, {"item_id", "passed", "output", "messages"})
    assert load_run(path).transcripts.read(8).output == "some text "


@pytest.mark.parametrize("call", ["scan_parquet", "read_parquet"])  # the schema, the columns
def test_a_panic_in_any_statistics_read_of_a_parquet_file_is_an_input_error(
    tmp_path, monkeypatch, call
):
    path, _ = _pair(tmp_path)

    def panic(*args, **kwargs):
        raise PanicException("called `Option::unwrap()` on a `None` value")

    monkeypatch.setattr(parquet_format.pl, call, panic)
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert "polars panicked" in caught.value.problem and caught.value.path == str(path)


@pytest.mark.parametrize("method", ["read", "read_quick", "read_field"])
def test_a_panic_reading_a_parquet_transcript_names_the_file(tmp_path, monkeypatch, method):
    frame = pl.read_ndjson(SAMPLE_RUNS / "baseline.jsonl")
    path = tmp_path / "run.parquet"
    frame.write_parquet(path)
    run = load_run(path)

    def panic(*args, **kwargs):
        raise PanicException("Thrift out of range")

    monkeypatch.setattr(parquet_format.pl, "scan_parquet", panic)
    call = getattr(run.transcripts, method)
    with pytest.raises(InputError, match="polars panicked"):
        call([0, 1], "output") if method == "read_field" else call(0)


def test_a_panic_outside_the_loaders_is_named_as_an_internal_error_not_exit_1(
    monkeypatch, capsys, sample_pair
):
    import evaltui.core.analysis.pipeline as compare

    def panic(*args, **kwargs):
        raise PanicException("index out of bounds")

    monkeypatch.delenv("EVALTUI_DEBUG", raising=False)
    monkeypatch.setattr(compare, "compare", panic)
    assert main(["report", *map(str, sample_pair)]) == 3
    line = _one_error_line(capsys.readouterr().err)
    assert "internal error: polars panicked: index out of bounds" in line


def test_a_list_typed_slice_column_in_parquet_is_exit_2_on_one_line(tmp_path, capsys):
    base, cand = _pair(tmp_path)
    frame = pl.read_parquet(base).with_columns(pl.col("slice").map_elements(lambda s: [s]))
    frame.write_parquet(base)
    assert main(["report", str(base), str(cand)]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "field 'slice'" in line and "List" in line


def test_an_epoch_beyond_int64_is_exit_2_on_one_line(tmp_path, capsys):
    base, cand = _pair(tmp_path, "jsonl")
    lines = base.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[3])
    lines[3] = json.dumps(record)[:-1] + ', "epoch": 18446744073709551615}'
    base.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["report", str(base), str(cand)]) == 2
    assert "baseline.jsonl:4: field 'epoch'" in _one_error_line(capsys.readouterr().err)


def test_an_os_error_without_a_file_name_is_the_environment_exit_2(
    monkeypatch, capsys, sample_pair
):
    import evaltui.core.analysis.pipeline as compare

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(compare, "compare", full)
    assert main(["report", *map(str, sample_pair)]) == 2
    assert _one_error_line(capsys.readouterr().err) == "evaltui: error: No space left on device"


def test_an_unreadable_input_is_exit_2_naming_it(tmp_path):
    prefix = unprivileged()
    base, cand = _pair(tmp_path, "jsonl")
    base.chmod(0)
    env = {k: v for k, v in os.environ.items() if k != "EVALTUI_DEBUG"}
    done = subprocess.run(
        [*prefix, str(SCRIPT), "report", str(base), str(cand)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"evaltui: error: {base}: permission denied (Permission denied)"
    ]


def test_a_folder_where_the_record_goes_is_exit_2_on_one_line(
    tmp_path, capsys, sample_pair, monkeypatch
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "out.json").mkdir()
    args = ["signoff", *map(str, sample_pair), "--decision", "block", "--rationale", "x"]
    assert main([*args, "--reviewer", "r", "--output", str(tmp_path / "out")]) == 2
    assert "is a folder" in _one_error_line(capsys.readouterr().err)


def test_an_error_line_quoting_hostile_text_reaches_stderr_inert(tmp_path, capsys):
    """The stderr line may quote a value from the file: C1 controls (CSI), bidi overrides and
    the like are shown as stand-ins, never sent to the terminal."""
    base, cand = _pair(tmp_path, "jsonl")
    lines = base.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    record["slice"] = ["\x9b2J\u202eevil", "\x1b]52;c;cHduZWQ=\x07"]
    lines[0] = json.dumps(record, ensure_ascii=False)
    base.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["report", str(base), str(cand)]) == 2
    err = capsys.readouterr().err
    line = _one_error_line(err)
    assert not any(ch in err for ch in "\x1b\x07\x9b\u202e")
    assert "field 'slice'" in line
