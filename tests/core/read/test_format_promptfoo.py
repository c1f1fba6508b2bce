"""promptfoo results files -> canonical runs, on hand-built `promptfoo eval -o` files.

Fixtures (tests/data/promptfoo/README.md): `eval-two-providers.json` (12 tests x gpt-4o-mini and
claude-3.5-haiku, one prompt) and `eval-gpt-4.1-mini.json` (the same 12 tests, one arm, one
provider error). Malformed files are edited copies written to tmp_path.
"""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.compare.pairing import PairingOptions, pair_runs
from evaltui.core.errors import InputError
from evaltui.core.read.formats import LoadOptions, detect_format, load_run, promptfoo
from evaltui.core.read.formats.promptfoo_rows import vars_digest
from evaltui.core.read.runs import STAT_SCHEMA

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "promptfoo"
TWO = DATA / "eval-two-providers.json"
ONE = DATA / "eval-gpt-4.1-mini.json"
MINI = "openai:gpt-4o-mini"
HAIKU = "claude-3.5-haiku"
POLICY = (
    "Refunds: within 30 days of delivery, unused items, original payment method. "
    "Shipping: free over $50, otherwise $4.99; express $12. "
    "Warranty: 1 year on electronics. Gift cards are not refundable."
)
DESCRIPTIONS = [
    "refund window",
    "refund method",
    "gift card refund",
    "free shipping threshold",
    "standard shipping cost",
    "express shipping cost",
    "electronics warranty",
    "used item return",
    "out of scope",
    "late return",
]
VARS_IDS = ["vars:a319fc670619", "vars:fc5d5cbe95a8"]


def load(path: Path, arm: str | None = None):
    return load_run(path, options=LoadOptions.of(arm=arm))


def document(path: Path) -> dict:
    return json.loads(path.read_text())


def write(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc))
    return path


def verdicts(table: pl.DataFrame) -> str:
    return "".join("P" if p else "F" for p in table["passed"])


def table_2x2(baseline, candidate, **options) -> tuple[int, int, int, int, int]:
    paired = pair_runs(baseline, candidate, PairingOptions(**options))
    base, cand = paired.verdicts()
    return (
        paired.n,
        int((base & cand).sum()),
        int((base & ~cand).sum()),
        int((~base & cand).sum()),
        int((~base & ~cand).sum()),
    )


# --- the fixtures ----------------------------------------------------------------------------


def test_two_arms_without_arm_is_refused_with_the_arms_listed():
    with pytest.raises(InputError) as caught:
        load(TWO)
    message = str(caught.value)
    assert message.startswith(f"{TWO}: field 'provider': holds 2 provider/prompt combinations")
    assert "'provider=openai:gpt-4o-mini'; 'provider=claude-3.5-haiku'" in message
    assert "--arm" in message


@pytest.mark.parametrize(
    ("arm", "expected"),
    [
        (MINI, "PPPPFPPPFPPF"),
        (f"provider={MINI}", "PPPPFPPPFPPF"),
        (HAIKU, "PPFPPPFPFFPF"),  # by label
        ("anthropic:messages:claude-3-5-haiku-20241022", "PPFPPPFPFFPF"),  # by id
        (f"provider={HAIKU}", "PPFPPPFPFFPF"),
    ],
)
def test_arm_by_provider_id_or_label(arm, expected):
    run = load(TWO, arm)
    assert verdicts(run.table) == expected
    assert run.table.height == 12


def test_arm_that_matches_nothing_or_several():
    with pytest.raises(InputError, match=r"no arm matches --arm 'gpt-5'; arms in this file"):
        load(TWO, "gpt-5")
    label = document(TWO)["results"]["results"][0]["prompt"]["label"]
    with pytest.raises(InputError, match=r"matches 2 arms"):
        load(TWO, f"prompt={label}")
    run = load(TWO, f"provider={HAIKU}, prompt={label}")
    assert run.metadata["provider"] == "anthropic:messages:claude-3-5-haiku-20241022"


def test_table_ids_epochs_scores_and_types():
    run = load(TWO, MINI)
    assert run.source.format == "promptfoo"
    for column in ("item_id", "epoch", "passed", "status", "row"):
        assert run.table.schema[column] == STAT_SCHEMA[column]
    assert run.table.schema["score"] == pl.Float64
    assert run.table["item_id"].to_list() == DESCRIPTIONS + VARS_IDS
    assert run.table["epoch"].to_list() == [1] * 12
    assert run.table["row"].to_list() == list(range(12))
    assert run.table["passed"].sum() == 9
    haiku = load(TWO, HAIKU)
    assert haiku.table["passed"].sum() == 7
    assert haiku.table["score"].to_list()[6] == 0.5  # one of two assertions passed
    assert haiku.table["status"].unique().to_list() == ["ok"]


def test_vars_id_is_sha256_of_canonical_vars():
    question = "Do you ship internationally?"
    canonical = json.dumps(
        {"policy": POLICY, "question": question}, sort_keys=True, separators=(",", ":")
    )
    assert VARS_IDS[0] == "vars:" + hashlib.sha256(canonical.encode()).hexdigest()[:12]
    assert vars_digest({"question": question, "policy": POLICY}) == VARS_IDS[0][5:]


def test_assertion_failure_is_not_an_error_but_a_provider_error_is():
    # promptfoo writes the failed assertion's reason into `error` (failureReason 1): still ok.
    mini = load(TWO, MINI)
    assert mini.table.filter(pl.col("status") == "error").height == 0
    one = load(ONE)
    assert one.table["status"].to_list() == ["ok"] * 9 + ["error"] + ["ok"] * 2
    assert one.table["passed"].sum() == 10
    assert one.table.filter(pl.col("status") == "error")["passed"].to_list() == [False]
    assert one.metadata["result_errors"] == "1"


def test_paired_tables():
    mini, haiku, gpt41 = load(TWO, MINI), load(TWO, HAIKU), load(ONE)
    assert table_2x2(mini, haiku) == (12, 6, 3, 1, 2)
    assert table_2x2(mini, gpt41) == (12, 7, 2, 3, 0)
    assert table_2x2(mini, gpt41, on_error="exclude") == (11, 7, 1, 3, 0)


def test_metadata():
    meta = load(TWO, HAIKU).metadata
    assert meta["harness"] == "promptfoo"
    assert meta["harness_version"] == "0.114.7"
    assert meta["eval_id"] == "eval-Qm4-2025-06-03T14:05:11"
    assert meta["provider"] == "anthropic:messages:claude-3-5-haiku-20241022"
    assert meta["provider_label"] == HAIKU
    assert meta["prompt_label"].startswith("prompts/support.txt: You are Acme's support")
    assert meta["arm"] == f"provider={HAIKU}"
    assert meta["arms"] == "2"
    assert meta["results_version"] == "3"
    assert meta["description"] == "Acme support bot: policy answers"
    assert load(ONE).metadata["arm"] == "provider=openai:gpt-4.1-mini"


def test_transcript():
    run = load(TWO, MINI)
    t = run.transcripts.read(4)
    assert t.input.endswith("Customer: How much is shipping on a $20 order?")
    assert POLICY in t.input  # the rendered prompt, not the template
    assert t.output == "Shipping on a $20 order is free."
    assert t.target == "contains: $4.99"
    assert t.explanation == 'Expected output to contain "$4.99"'
    assert t.metadata["description"] == "standard shipping cost"
    assert t.metadata["var.question"] == "How much is shipping on a $20 order?"
    assert t.metadata["failureReason"] == "1"
    assert t.metadata["record"] == "results.results[8]"
    errored = load(ONE).transcripts.read(9)
    assert errored.output is None
    assert errored.explanation.startswith("API error: 429 Too Many Requests")
    assert run.transcripts.read_field([0, 4], "output")[1] == t.output


def test_chat_prompt_becomes_messages(tmp_path):
    doc = document(ONE)
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    doc["results"]["results"][0]["prompt"]["raw"] = json.dumps(chat)
    run = load(write(tmp_path / "chat.json", doc))
    messages = run.transcripts.read(0).messages
    assert [(m.role, m.content) for m in messages] == [("system", "Be brief."), ("user", "Hi")]


# --- identity, repeats, other shapes ---------------------------------------------------------


def test_repeated_test_cases_become_epochs(tmp_path):
    doc = document(ONE)
    results = doc["results"]["results"]
    repeat = copy.deepcopy(results)
    for r in repeat:
        r["testIdx"] += 12
        r["success"], r["score"] = True, 1
        r["failureReason"], r["error"] = 0, None
        r.pop("response", None)
    doc["results"]["results"] = results + repeat
    run = load(write(tmp_path / "repeat.json", doc))
    assert run.table.height == 24
    assert run.table["epoch"].to_list() == [1] * 12 + [2] * 12
    assert run.table["item_id"].to_list()[:12] == run.table["item_id"].to_list()[12:]


def test_shared_description_falls_back_to_vars_ids(tmp_path):
    doc = document(ONE)
    for r in doc["results"]["results"][:2]:
        r["testCase"]["description"] = "refunds"
    run = load(write(tmp_path / "shared.json", doc))
    ids = run.table["item_id"].to_list()
    assert ids[0].startswith("vars:") and ids[1].startswith("vars:") and ids[0] != ids[1]
    assert ids[2] == "gift card refund"


def test_two_different_tests_with_one_identity_are_refused(tmp_path):
    doc = document(ONE)
    results = doc["results"]["results"]
    twin = copy.deepcopy(results[10])  # no description: identified by its vars
    twin["testIdx"] = 12
    twin["testCase"]["assert"] = [{"type": "contains", "value": "international"}]
    results.append(twin)
    with pytest.raises(InputError) as caught:
        load(write(tmp_path / "twin.json", doc))
    message = str(caught.value)
    assert "(record results.results[12]): field 'testCase'" in message
    assert f"'{VARS_IDS[0]}'" in message and "first at results.results[10]" in message


def test_bare_summary_and_older_files_without_failure_reason(tmp_path):
    doc = document(ONE)["results"]  # {version, timestamp, prompts, results, stats}
    for r in doc["results"]:
        r.pop("failureReason")
    run = load(write(tmp_path / "summary.json", doc))
    # without failureReason: the rate-limit result is an error, assertion failures are not
    assert run.table["status"].to_list().count("error") == 1
    assert run.table["passed"].sum() == 10
    assert detect_format(tmp_path / "summary.json") == "promptfoo"


# --- malformed files -------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "shown"), [('"yes"', '"yes"'), ("1", "1"), ("null", "null")])
def test_success_that_is_not_a_boolean(tmp_path, value, shown):
    doc = document(ONE)
    doc["results"]["results"][3]["success"] = json.loads(value)
    path = write(tmp_path / "bad.json", doc)
    with pytest.raises(InputError) as caught:
        load(path)
    message = str(caught.value)
    assert message == (
        f"{path} (record results.results[3]): field 'success': expected true or false, got {shown}"
    )
    assert (caught.value.record, caught.value.field) == ("results.results[3]", "success")


def test_bad_score_failure_reason_and_provider(tmp_path):
    doc = document(ONE)
    doc["results"]["results"][2]["score"] = "high"
    with pytest.raises(InputError, match=r"results\[2\]\): field 'score': expected a finite"):
        load(write(tmp_path / "score.json", doc))
    doc = document(ONE)
    doc["results"]["results"][5]["failureReason"] = 7
    with pytest.raises(InputError, match=r"results\[5\]\): field 'failureReason': expected 0, 1"):
        load(write(tmp_path / "reason.json", doc))
    doc = document(ONE)
    doc["results"]["results"][1]["provider"] = 42
    with pytest.raises(
        InputError, match=r"results\[1\]\): field 'provider': expected the provider"
    ):
        load(write(tmp_path / "provider.json", doc))


def test_not_json_and_wrong_shapes(tmp_path):
    cut = tmp_path / "cut.json"
    cut.write_text(ONE.read_text()[:5000])
    with pytest.raises(InputError) as caught:
        load_run(cut)
    assert "not valid JSON" in str(caught.value) and caught.value.line is not None
    with pytest.raises(InputError, match=r"field 'results': expected the eval summary"):
        promptfoo.load(
            write(tmp_path / "no.json", {"evalId": "x", "results": 3}),
            LoadOptions(),
            promptfoo.Options(),
        )
    with pytest.raises(InputError, match=r"field 'results': holds no results"):
        load(write(tmp_path / "empty.json", {"evalId": "x", "results": {"results": []}}))
    with pytest.raises(InputError, match=r"record results.results\[0\]\): expected a result"):
        load(write(tmp_path / "list.json", {"evalId": "x", "results": {"results": [[1]]}}))


# --- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", [TWO, ONE])
def test_detection_by_content(tmp_path, fixture):
    assert detect_format(fixture) == "promptfoo"
    for suffix in (".txt", ".jsonl", ".csv", ".eval", ".parquet", ""):
        misnamed = tmp_path / f"misnamed{suffix}"
        shutil.copyfile(fixture, misnamed)
        assert detect_format(misnamed) == "promptfoo", suffix
    assert load(tmp_path / "misnamed.txt", MINI if fixture == TWO else None).table.height == 12


def test_sniff_is_specific():
    yes = [
        b'{"evalId": null, "results": {}}',
        b'{"version": 3, "createdAt": "x", "results": {"version": 3, "results": []}}',
        b'{"results": {"results": [], "stats": {}}}',
        b'{"version": 3, "timestamp": "2025-06-05T09:41:37.015Z", "results": [], "stats": {}}',
    ]
    no = [
        b'{"item_id": "a", "passed": true}\n',
        b'{"results": {"total_samples": 3, "scores": []}, "version": 2, "eval": {}}',
        b'{"results": [{"a": 1}]}',
        b'[{"instance_id": "id1", "predicted_text": "x"}]',
        b"PK\x03\x04",
    ]
    assert all(promptfoo.sniff(Path("x.json"), head) for head in yes)
    assert not any(promptfoo.sniff(Path("x.json"), head) for head in no)


# --- prompt labels with newlines (issue 16, item 9): an edited copy of eval-two-providers.json


def two_multiline_prompts(tmp_path: Path) -> tuple[Path, str, str]:
    """The same file with the gpt-4o-mini results under two prompts whose labels span lines,
    as promptfoo labels an inline prompt with its own text."""
    document = json.loads(TWO.read_text())
    first = "You are a support agent.\nAnswer: {{question}}"
    second = "You are a support agent.\n\tBe brief.\nAnswer: {{question}}"
    mini = [r for r in document["results"]["results"] if r["provider"]["id"] == MINI]
    kept = []
    for label in (first, second):
        for result in copy.deepcopy(mini):
            result["prompt"] = {"raw": label, "label": label}
            kept.append(result)
    document["results"]["results"] = kept
    path = tmp_path / "multiline.json"
    path.write_text(json.dumps(document))
    return path, first, second


def test_a_multiline_label_is_listed_on_one_line_and_the_listed_form_picks_the_arm(tmp_path):
    path, first, second = two_multiline_prompts(tmp_path)
    with pytest.raises(InputError) as caught:
        load_run(path)
    message = str(caught.value)
    shown = "prompt=You are a support agent.\\n\\tBe brief.\\nAnswer: {{question}}"
    assert f"'{shown}'" in message
    run = load_run(path, options=LoadOptions.of(arm=shown))  # pasted from the listing
    assert run.metadata["prompt_label"] == second
    assert (
        load_run(path, options=LoadOptions.of(arm=f"prompt={first}")).metadata["prompt_label"]
        == first
    )  # the label itself still matches


def test_a_label_that_matches_no_arm_is_shown_as_typed_beside_the_listing(tmp_path):
    path, _, _ = two_multiline_prompts(tmp_path)
    with pytest.raises(InputError) as caught:
        load_run(path, options=LoadOptions.of(arm="prompt=You are a support agent.\nAnswer:"))
    message = str(caught.value)
    assert "--arm 'prompt=You are a support agent.\\nAnswer:'" in message
    assert "\x1b" not in message
