"""`cap_id_lists`: which lists are ids, how a cut is recorded, and what is never touched."""

from __future__ import annotations

from evaltui.core.report.id_cap import cap_id_lists


def test_a_run_sets_pair_reports_are_cut_and_named_by_json_pointer():
    ids = [f"q{i}" for i in range(5)]
    document = {
        "pairs": [{"regressions": 5, "report": {"regressions": ids, "table": {"regressions": 5}}}],
        "odd/key~": {"item_ids": ids},
        "warnings": ["a", "b", "c", "d", "e", "f"],
    }
    capped = cap_id_lists(document, 2)
    assert capped["pairs"][0]["report"]["regressions"] == ["q0", "q1"]
    assert capped["pairs"][0]["regressions"] == 5  # a count, not a list
    assert capped["pairs"][0]["report"]["table"] == {"regressions": 5}
    assert capped["warnings"] == document["warnings"]  # not ids
    assert [(c["path"], c["total"]) for c in capped["ids_cut"]["lists"]] == [
        ("/pairs/0/report/regressions", 5),
        ("/odd~1key~0/item_ids", 5),
    ]
    assert document["pairs"][0]["report"]["regressions"] == ids  # the input is left whole


def test_no_limit_or_short_lists_leave_the_document_as_it_is():
    document = {"regressions": ["a", "b"], "improvements": []}
    assert cap_id_lists(document, None) is document
    assert cap_id_lists(document, 2) is document
    assert cap_id_lists(document, 0)["regressions"] == []
