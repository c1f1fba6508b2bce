"""place.json: the list, the item under the cursor, and whether that item's screen was open
(with its scroll) when the session ended; a malformed flag or scroll reopens on the list."""

from __future__ import annotations

import json

from evaltui.core.record.drafts import Place, load_place, save_place


def test_an_open_item_screen_and_its_scroll_round_trip(tmp_path):
    save_place(tmp_path, "regressions", "pharm-0103", item_open=True, scroll=12)
    assert load_place(tmp_path) == Place("regressions", "pharm-0103", True, 12)
    save_place(tmp_path, "regressions", "pharm-0103")  # closed: the list only
    assert load_place(tmp_path) == Place("regressions", "pharm-0103", False, 0)


def test_a_malformed_item_flag_or_scroll_reopens_on_the_list(tmp_path):
    for flag, scroll in (("yes", 3), (True, -1), (True, "3"), (True, 2.5)):
        data = {"list": "regressions", "item_id": "a", "item_open": flag, "scroll": scroll}
        (tmp_path / "place.json").write_text(json.dumps(data))
        assert load_place(tmp_path) == Place("regressions", "a", False, 0)
