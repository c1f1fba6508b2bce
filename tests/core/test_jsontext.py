"""The key walker the format sniffers share: keys and where they sit, from a file's head."""

from __future__ import annotations

from evaltui.core.formats.jsontext import object_keys


def test_object_keys_walks_a_truncated_head_and_skips_string_values():
    head = (
        b'{"version": 2, "eval": {"note": "a \\"quoted\\": {colon}", "a": [1, {"x": 0}]},'
        b' "results": {"version": 1}, "samples": [{"id": 1}, {"id": 2, "tr'
    )
    assert list(object_keys(head)) == [
        ((), "version"),
        ((), "eval"),
        (("eval",), "note"),
        (("eval",), "a"),
        (("eval", "a", 1), "x"),
        ((), "results"),
        (("results",), "version"),
        ((), "samples"),
        (("samples", 0), "id"),
        (("samples", 1), "id"),
    ]
    assert list(object_keys(b'[[{"a": 1}], {"b": 2}] {"after": 3}')) == [
        ((0, 0), "a"),
        ((1,), "b"),
    ]
