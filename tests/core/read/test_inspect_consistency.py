"""An Inspect `.eval` log whose sample summaries disagree with its own results is read from its
sample members, and says so (`read.formats.inspect_consistency`, issue 24)."""

from __future__ import annotations

from evaltui.core.read.formats import load_run
from tests.conftest import DATA


def test_an_inspect_log_whose_summaries_disagree_is_read_from_its_samples():
    """The real gpt-5 log with sample 5's summaries edited to "C" (README in variants/): the
    scores are the samples' ("I" five times), and the run says why."""
    run = load_run(DATA / "inspect_ai" / "variants" / "gpt5_summaries_disagree.eval")
    five = run.table.filter(run.table["item_id"] == "5")
    assert five["passed"].to_list() == [False] * 5
    assert (
        "accuracy 0.6 in the header's results, 0.7 from the summaries"
        in (run.metadata["inconsistent_scores"])
    )
    assert run.metadata["sample_source"].startswith("samples")
    plain = load_run(
        DATA / "inspect_ai" / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
    )
    assert "inconsistent_scores" not in plain.metadata
    assert plain.metadata["sample_source"] == "summaries.json"  # the fast path stays
