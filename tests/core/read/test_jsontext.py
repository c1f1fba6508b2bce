"""The key walker the format sniffers share: keys and where they sit, from a file's head."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltui.core.read.formats import HEAD_BYTES, detect_format
from evaltui.core.read.formats.jsontext import object_at, object_keys
from tests.conftest import examples


def test_object_at_gives_the_object_under_a_key_or_an_empty_one_for_anything_else():
    assert object_at({"data": {"x": 1}}, "data") == {"x": 1}
    for record in ({}, {"data": None}, {"data": [{"x": 1}]}, {"data": "text"}, {"data": 0}):
        assert object_at(record, "data") == {}


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


# ---------------------------------------------------------------------------------------------
# Heads cut anywhere, and the work the walk does on them

DATA = Path(__file__).resolve().parent.parent.parent / "data"
INSPECT_LOG = DATA / "inspect_ai" / "2025-05-12T20-28-13-04-00_popularity.json"
PROMPTFOO_RESULTS = DATA / "promptfoo" / "eval-gpt-4.1-mini.json"

# A single pass examines each byte once (the walker reports exactly len(head) for a head it
# reads to the end); the slack allows a little lookahead but not the rescans of a long string
# from each of its quotes, which grow with the square of the string's length.
WORK_PER_BYTE = 2
WORK_SLACK = 16


def walk(head: bytes) -> tuple[list[tuple[tuple[str | int, ...], str]], int]:
    """The keys of `head` and the bytes the walker says it examined to find them."""
    work = 0

    def count(examined: int) -> None:
        nonlocal work
        work += examined

    return list(object_keys(head, examined=count)), work


def assert_linear(head: bytes, work: int) -> None:
    assert work <= WORK_PER_BYTE * len(head) + WORK_SLACK, (len(head), work)


@pytest.mark.parametrize(
    ("head", "keys"),
    [
        (b'{"a": 1, "b": "some text, {\\"k\\": 1}', ["a", "b"]),  # inside a string value
        (b'{"a": 1, "b": "tail\\', ["a", "b"]),  # inside an escape, right after the backslash
        (b'{"a": 1, "b": "tail\\u00', ["a", "b"]),  # inside a \u escape
        (b'{"a": 1, "long_ke', ["a"]),  # inside a key
        (b'{"a": 1, "b\\"', ["a"]),  # inside a key, after an escaped quote
        (b'{"a": 1, "b"', ["a"]),  # a whole key, but no colon yet
        (b'{"a": 1, "b": -12.5e', ["a", "b"]),  # inside a number
        (b'{"a": 1, "b": tr', ["a", "b"]),  # inside a literal
    ],
)
def test_a_head_cut_inside_a_string_key_escape_or_number_yields_the_keys_before_it(head, keys):
    found, work = walk(head)
    assert found == [((), key) for key in keys]
    assert work == len(head)


def _long_code_answer() -> str:
    """A code answer full of quotes and backslashes: every one is escaped in the JSON text."""
    line = r'pattern = re.compile(r"\d+\.\d*\"?"); path = "C:\\Users\\x"; print(f"\"{path}\"")'
    return "```python\n" + (line + "\n") * 3000 + "```"


def _assert_head_ends_inside(document: bytes, value: str) -> None:
    """The case under test: the value's JSON text starts in the head and runs past it."""
    written = json.dumps(value).encode()
    start = document.index(written)
    assert start < HEAD_BYTES < start + len(written)


def test_an_inspect_head_ending_inside_a_long_code_answer_yields_the_keys_before_it(tmp_path):
    log = json.loads(INSPECT_LOG.read_text(encoding="utf-8"))
    answer = _long_code_answer()
    sample = log["samples"][0]
    assistant = next(m for m in sample["messages"] if m["role"] == "assistant")
    assistant["content"] = answer
    sample["output"]["choices"][0]["message"]["content"] = answer
    document = json.dumps(log, indent=2).encode()
    _assert_head_ends_inside(document, answer)
    found, work = walk(document[:HEAD_BYTES])
    full = list(object_keys(document))
    assert found == full[: len(found)]
    assert found[:3] == [((), "version"), ((), "status"), ((), "eval")]
    where = ("samples", 0, "messages", sample["messages"].index(assistant))
    assert found[-1] == (where, "content")
    assert work == HEAD_BYTES
    path = tmp_path / "long-answer.json"
    path.write_bytes(document)
    assert detect_format(path) == "inspect_json"


def test_a_promptfoo_head_ending_inside_a_json_output_yields_the_keys_before_it(tmp_path):
    results = json.loads(PROMPTFOO_RESULTS.read_text(encoding="utf-8"))
    items = [{"id": i, "name": f'item "{i}"', "path": f"C:\\data\\{i}"} for i in range(3000)]
    output = json.dumps({"items": items})
    results["results"]["results"][0]["response"]["output"] = output
    document = json.dumps(results, indent=2).encode()
    _assert_head_ends_inside(document, output)
    found, work = walk(document[:HEAD_BYTES])
    full = list(object_keys(document))
    assert found == full[: len(found)]
    assert found[:3] == [((), "evalId"), ((), "results"), (("results",), "version")]
    assert found[-1] == (("results", "results", 0, "response"), "output")
    assert work == HEAD_BYTES
    path = tmp_path / "json-output.json"
    path.write_bytes(document)
    assert detect_format(path) == "promptfoo"


# Pieces whose repetition makes a long string with many escapes once dumped: quotes,
# backslashes, text that looks like JSON structure, a newline, non-ASCII.
PIECES = ['"', "\\", '\\"', '{"k": [1, "v"]}, ', "x", "\n", "é", ":", ","]
long_strings = st.builds(
    lambda parts, times: "".join(parts) * times,
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=6),
    st.integers(1, 800),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
    long_strings,
)
keys = st.one_of(st.text(st.characters(blacklist_categories=("Cs",)), max_size=8), long_strings)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
documents = st.lists(values, max_size=4) | st.dictionaries(keys, values, max_size=4)


def reference_keys(value, ensure_ascii: bool, where: tuple = ()):
    """The keys of a parsed document in file order, each as its text in the file (escapes as
    written), which is what the walker reports without decoding them."""
    if isinstance(value, dict):
        for key, inner in value.items():
            written = json.dumps(key, ensure_ascii=ensure_ascii)[1:-1]
            yield where, written
            yield from reference_keys(inner, ensure_ascii, (*where, written))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from reference_keys(inner, ensure_ascii, (*where, index))


@settings(max_examples=examples(150), deadline=None)
@given(
    document=documents,
    indent=st.sampled_from([None, 0, 2]),
    ensure_ascii=st.booleans(),
    data=st.data(),
)
@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
def test_heads_cut_anywhere_yield_a_prefix_of_the_keys_with_work_linear_in_the_head(
    document, indent, ensure_ascii, data
):
    text = json.dumps(document, indent=indent, ensure_ascii=ensure_ascii).encode()
    expected = list(reference_keys(document, ensure_ascii))
    found, work = walk(text)
    assert found == expected
    assert_linear(text, work)
    # The outermost value closes on the last byte: a head one byte short still has every key.
    assert walk(text[:-1])[0] == expected
    cuts = data.draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=6), label="cuts")
    previous: list = []
    for cut in sorted(cuts):
        head = text[:cut]
        found, work = walk(head)
        assert found == expected[: len(found)]
        assert previous == found[: len(previous)]  # a longer head never loses a key
        assert len(head) <= work  # it reads to the head's end: the counter saw every step
        assert_linear(head, work)
        previous = found
