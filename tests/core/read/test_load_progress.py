"""A long open reports how much of the two files has been read, not just which step it is on."""

from __future__ import annotations

import threading

from evaltui.core.analysis.pipeline import STEPS, compare_files
from evaltui.core.read import meter
from tests.conftest import table_records


def test_reading_reports_bytes_of_both_files_as_a_fraction_of_the_first_step(write_jsonl):
    base, cand = table_records(50, 5, 9, 10)
    base_path, cand_path = write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand)
    calls = []

    def record(what, step, total):
        calls.append((what, step))

    compare_files(base_path, cand_path, progress=record)
    reading = [(what, step) for what, step in calls if what.startswith(STEPS[0] + " (")]
    assert reading, calls
    total_mb = (base_path.stat().st_size + cand_path.stat().st_size) / 1e6
    assert reading[0][0].endswith(f"of {total_mb:.1f} MB)")
    assert all(0 < step <= 1 for _, step in reading)
    steps = [step for _, step in calls]
    assert steps == sorted(steps)  # never goes backwards
    assert [what for what, _ in calls][-2:] == list(STEPS[1:])


def test_the_meter_counts_only_for_the_thread_that_asked():
    seen = []
    with meter.metering(seen.append):
        meter.read(10)
        other = threading.Thread(target=meter.read, args=(99,))
        other.start()
        other.join()
    meter.read(5)  # outside: nobody listens
    assert seen == [10]
