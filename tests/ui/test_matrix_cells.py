"""`runset_report.matrix_cell`, the matrix's cells in parts for the app: the same mark, effect
and interval as the text report's matrix (`matrix_lines`) in every off-diagonal cell, read
back (negated, the interval's ends swapped) in the baseline's row. Core only: no Textual."""

from __future__ import annotations

import pytest

from evaltui.core.analysis.run_set import RunSetSpec, compare_runs
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.report.run_set import matrix_cell, matrix_lines
from tests.ui.helpers import SAMPLE

THIRD = SAMPLE[0].parent / "candidate2.jsonl"


@pytest.fixture(scope="module")
def demo_set():
    spec = CompareSpec.create(*SAMPLE)
    return compare_runs(RunSetSpec.of(spec, [THIRD]))


def test_every_cell_is_the_text_reports_cell_in_parts(demo_set):
    lines = matrix_lines(demo_set, md=False)
    rows = {line.split()[0]: line for line in lines if line.split()[:1] and line[0] != " "}
    for row, name in enumerate(demo_set.names):
        for col in range(demo_set.k):
            if row == col:
                continue
            cell = matrix_cell(demo_set, row, col)
            assert f"{cell.mark} {cell.estimate} {cell.interval}" in rows[name], (row, col)


def test_the_baseline_row_reads_the_pair_back(demo_set):
    lower, upper = matrix_cell(demo_set, 2, 0), matrix_cell(demo_set, 0, 2)
    assert lower.pair is upper.pair is demo_set.pair(0, 2)
    assert (lower.mark, lower.estimate, lower.interval) == ("▲", "+8.0 pts", "[+2.2, +13.7]")
    assert (upper.mark, upper.estimate, upper.interval) == ("▼", "-8.0 pts", "[-13.7, -2.2]")
    assert upper.mirrored and not lower.mirrored
    neither = matrix_cell(demo_set, 1, 2)  # candidate against candidate2: no difference
    assert neither.mark == "·" and neither.mirrored


def test_a_run_against_itself_has_no_cell(demo_set):
    with pytest.raises(ValueError, match="diagonal"):
        matrix_cell(demo_set, 1, 1)
