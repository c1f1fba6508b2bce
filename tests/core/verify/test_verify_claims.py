"""`verify` checks what the record claims, not only the statistics.

The content hash is an unkeyed sha256: whoever edits a record can hash it again. So each edit
below is made and the record re-hashed, as a forger would, and `verify` with the input files
must still refuse it: the record is rebuilt from the files, its policy rules, its tags (from the
session journal it names) and the reviewer's own decision, and compared key by key. Without the
files, what a bare hash can and cannot prove is said in so many words.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.analysis.pipeline import compare
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.record.session import start_review
from evaltui.core.record.signoff import HASH_FIELD, _hash
from evaltui.core.verify.pair import verify_record
from evaltui.core.verify.record_file import read_record
from evaltui.core.verify.signature import verify_signature
from tests.conftest import SAMPLE_RUNS

POLICY = SAMPLE_RUNS / "policy.toml"
PAIR = (SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl")


def _signed(tmp_path: Path, monkeypatch, capsys=None, decision: str = "approve") -> Path:
    """A record over the demo pair with its policy, two tags and a note, approved over what it
    overrides (with a reason) unless `decision` says otherwise."""
    state = tmp_path / "state"
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(state))
    analysis = compare(CompareSpec.create(*PAIR, policy=POLICY))
    session = start_review(analysis, reviewer="dana")
    first, second = analysis.regressions[0], analysis.regressions[1]
    session.set_tag(first, "confirmed regression", by="dana")
    session.set_note(first, "wrong dose for a child", by="dana")
    session.set_tag(second, "acceptable", by="lee")
    session.close()
    args = ["signoff", *map(str, PAIR), "--policy", str(POLICY), "--decision", decision]
    args += ["--reviewer", "dana", "--rationale", "ship it", "--output", str(tmp_path / "rec")]
    if decision == "approve":
        args += ["--override-reason", "the confirmed one is fixed in the next build"]
    assert main(args) == 0
    if capsys is not None:
        capsys.readouterr()
    return tmp_path / "rec.json"


def _rehashed(record: dict) -> dict:
    body = {k: v for k, v in record.items() if k != HASH_FIELD}
    return {**body, HASH_FIELD: _hash(body)}


def _first(items: list[dict], direction: str, tagged: bool | None = None) -> dict:
    for item in items:
        if item["direction"] == direction and (
            tagged is None or (item["tag"] is not None) == tagged
        ):
            return item
    raise AssertionError(f"no {direction} item")


def _set(path: str, value) -> Callable[[dict], None]:
    def edit(record: dict) -> None:
        *parents, last = path.split(".")
        node = record
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value

    return edit


def _tag_made_consistent(record: dict) -> None:
    """The acceptable regression re-tagged confirmed, with the triage, by_tag and override all
    updated to agree: only the journal (or the decision rebuilt) can tell."""
    item = _first(record["items"], "regression", tagged=True)
    item = next(i for i in record["items"] if i["tag"] == "acceptable")
    item["tag"] = "confirmed regression"
    by_tag = record["triage"]["by_tag"]
    by_tag["acceptable"] -= 1
    if not by_tag["acceptable"]:
        del by_tag["acceptable"]
    by_tag["confirmed regression"] = by_tag.get("confirmed regression", 0) + 1
    confirmed = [i["item_id"] for i in record["items"] if i["tag"] == "confirmed regression"]
    record["override"]["confirmed_regressions"] = confirmed
    problems = record["override"]["overrides"]
    record["override"]["overrides"] = [
        f"{len(confirmed)} regression(s) are tagged as confirmed" if "confirmed" in p else p
        for p in problems
    ]


def _remove_improvement(record: dict) -> None:
    record["items"].remove(_first(record["items"], "improvement"))


def _invent_improvement(record: dict) -> None:
    record["items"].append({**_first(record["items"], "improvement"), "item_id": "pharm-9999"})


def _flip_improvement(record: dict) -> None:
    _first(record["items"], "improvement")["direction"] = "regression"
    # keep the triage and the override agreeing, so only the files can tell
    regressions = [i for i in record["items"] if i["direction"] == "regression"]
    untriaged = [i["item_id"] for i in regressions if i["tag"] is None]
    record["triage"].update(
        regressions=len(regressions), triaged=len(regressions) - len(untriaged), untriaged=untriaged
    )
    record["override"]["untriaged_regressions"] = untriaged
    record["override"]["overrides"] = [
        f"{len(untriaged)} of {len(regressions)} regressions are untriaged"
        if "untriaged" in p
        else p
        for p in record["override"]["overrides"]
    ]


def _fake_notice(record: dict) -> None:
    record["review_notices"].append(
        "the candidate file changed since these tags were made (sha256 differs): check the "
        "tagged items before signing off"
    )


def _no_override(record: dict) -> None:
    record["override"] = None


def _gates_gone(record: dict) -> None:
    record["gates"] = []


def _first_gate_passed(record: dict) -> None:
    gate = next(g for g in record["gates"] if g["status"] == "failed")
    gate["status"] = "passed"


def _note(record: dict) -> None:
    next(i for i in record["items"] if i["note"])["note"] = "looked fine to me"


def _tagger(record: dict) -> None:
    next(i for i in record["items"] if i["tag"])["tagged_by"] = "someone else"


def _tagged_at(record: dict) -> None:
    next(i for i in record["items"] if i["tag"])["tagged_at"] = "2020-01-01T00:00:00+0000"


def _slice(record: dict) -> None:
    _first(record["items"], "regression")["slice"] = "billing"


def _cluster(record: dict) -> None:
    _first(record["items"], "improvement")["cluster"] = "kb/doc-000001.md"


def _untag_only(record: dict) -> None:
    next(i for i in record["items"] if i["tag"] == "acceptable")["tag"] = None


def _warning(record: dict) -> None:
    record["results"]["warnings"].append("all good")


def _tag_meanings(record: dict) -> None:
    meanings = record["triage"]["meanings"]
    meanings["open"] = [*meanings["open"], "acceptable"]


def _reason_text(record: dict) -> None:
    record["decision"]["reasons"][0]["text"] = "nothing to see"


def _extra_metadata(record: dict) -> None:
    record["inputs"]["candidate"]["metadata"]["model"] = "gpt-99"


EDITS: dict[str, Callable[[dict], None]] = {
    "decision-to-block-keeping-the-override": _set("reviewer_decision", "block"),
    "override-removed": _no_override,
    "override-reason-emptied": _set("override.reason", ""),
    "override-untriaged-shortened": _set("override.untriaged_regressions", []),
    "override-failed-gates-emptied": _set("override.failed_gates", []),
    "override-words-edited": _set("override.overrides", ["nothing much"]),
    "override-regressed-flipped": _set("override.regressed", True),
    "override-confirmed-emptied": _set("override.confirmed_regressions", []),
    "a-tag-removed-only": _untag_only,
    "a-tag-changed-and-made-consistent": _tag_made_consistent,
    "a-note-edited": _note,
    "the-tagger-changed": _tagger,
    "the-tag-time-changed": _tagged_at,
    "an-improvement-removed": _remove_improvement,
    "an-item-invented": _invent_improvement,
    "a-direction-flipped": _flip_improvement,
    "a-slice-changed": _slice,
    "a-cluster-changed": _cluster,
    "the-headline-edited": _set("results.headline", "Candidate is better."),
    "a-warning-added": _warning,
    "the-verdict-changed": _set("results.verdict", "improved"),
    "the-delta-changed": _set("results.delta.estimate", 0.2),
    "a-failed-gate-passed": _first_gate_passed,
    "the-gates-removed": _gates_gone,
    "the-policy-hash-changed": _set("policy_hash", "0" * 64),
    "a-policy-rule-changed": _set("policy.rules.min_effect", 0.0),
    "a-gate-renamed-in-the-rules": _set("policy.rules.gates.0.name", "all fine"),
    "the-decision-status-changed": _set("decision.status", "ready"),
    "the-decision-line-edited": _set("decision.line", "READY TO APPROVE · all good"),
    "a-decision-reason-edited": _reason_text,
    "the-exit-code-changed": _set("decision.exit_code", 0),
    "the-tag-meanings-changed": _tag_meanings,
    "the-tag-set-changed": _set("triage.tags", ["fine"]),
    "a-notice-invented": _fake_notice,
    "the-pairing-edited": _set("pairing.paired", 199),
    "an-input-count-edited": _set("inputs.baseline.items", 201),
    "input-metadata-invented": _extra_metadata,
    "the-on-error-option-changed": _set("spec.pairing.on_error", "exclude"),
}


@pytest.fixture
def approved(tmp_path, monkeypatch, capsys) -> Path:
    return _signed(tmp_path, monkeypatch, capsys)


@pytest.fixture(scope="module")
def signed_once(tmp_path_factory) -> Path:
    """One approved record for the tests that only read it or edit a copy (made once: a
    signed record is a fifth of a CPU-second)."""
    folder = tmp_path_factory.mktemp("signed")
    with pytest.MonkeyPatch.context() as patch:
        return _signed(folder, patch)


@pytest.fixture
def approved_copy(signed_once, tmp_path, monkeypatch) -> Path:
    """A copy of `signed_once`'s record to edit, its state folder in force."""
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(signed_once.parent / "state"))
    copy_of = tmp_path / signed_once.name
    shutil.copy(signed_once, copy_of)
    return copy_of


def test_the_untouched_record_verifies_with_its_files_and_journal(approved):
    result = verify_record(read_record(approved), *PAIR)
    assert result.ok, result.reason
    assert "match the session journal" in result.reason and "signature" in result.reason


@pytest.mark.slow
def test_at_least_26_distinct_edits_each_re_hashed_fail_verify_with_the_files(approved):
    assert len(EDITS) >= 26
    original = json.loads(approved.read_text(encoding="utf-8"))
    passed = []
    for name, edit in EDITS.items():
        record = copy.deepcopy(original)
        edit(record)
        assert record != original, name
        approved.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
        result = verify_record(read_record(approved), *PAIR)
        if result.ok:
            passed.append(name)
        assert "\n" not in result.reason and "Traceback" not in result.reason
    assert passed == []


def test_each_edit_fails_through_the_cli_with_exit_1(approved, capsys):
    original = json.loads(approved.read_text(encoding="utf-8"))
    for name in ("a-note-edited", "the-decision-status-changed", "an-item-invented"):
        record = copy.deepcopy(original)
        EDITS[name](record)
        approved.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
        assert main(["verify", str(approved), *map(str, PAIR)]) == 1, name
        err = capsys.readouterr().err
        assert err.startswith("evaltui: NOT verified: ") and err.count("\n") == 1, err


def test_without_the_files_a_re_hashed_edit_that_keeps_the_record_consistent_passes_and_says_why(
    approved, capsys
):
    original = json.loads(approved.read_text(encoding="utf-8"))
    for name in ("a-note-edited", "a-slice-changed", "the-headline-edited", "the-delta-changed"):
        record = copy.deepcopy(original)
        EDITS[name](record)
        approved.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
        result = verify_record(read_record(approved))
        assert result.ok, name
        assert "files not checked" in result.reason
        assert "anyone can recompute" in result.reason and "signature" in result.reason
    assert main(["verify", str(approved)]) == 0
    assert "proves nothing about the numbers" in capsys.readouterr().out


def test_without_the_files_an_edit_the_record_contradicts_is_still_caught(approved):
    original = json.loads(approved.read_text(encoding="utf-8"))
    for name in (
        "decision-to-block-keeping-the-override",
        "override-removed",
        "override-untriaged-shortened",
        "a-tag-removed-only",
        "a-failed-gate-passed",
    ):
        record = copy.deepcopy(original)
        EDITS[name](record)
        approved.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
        assert not verify_record(read_record(approved)).ok, name


def test_a_block_turned_into_an_approval_over_untriaged_regressions_is_refused(
    tmp_path, monkeypatch, capsys
):
    path = _signed(tmp_path, monkeypatch, capsys, decision="block")
    assert verify_record(read_record(path), *PAIR).ok
    record = json.loads(path.read_text(encoding="utf-8"))
    record["reviewer_decision"] = "approve"
    path.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
    for files in ((), PAIR):
        result = verify_record(read_record(path), *files)
        assert not result.ok and "without an override reason" in result.reason


def test_a_record_whose_journal_is_gone_is_checked_against_its_own_tags_and_says_so(
    approved, tmp_path
):
    shutil.rmtree(tmp_path / "state")
    result = verify_record(read_record(approved), *PAIR)
    assert result.ok and "not on this machine" in result.reason, result.reason
    record = json.loads(approved.read_text(encoding="utf-8"))
    _tag_made_consistent(record)  # now only the rebuilt decision and gates can tell
    approved.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
    assert not verify_record(read_record(approved), *PAIR).ok


@pytest.mark.slow
def test_tags_made_after_the_record_was_written_do_not_unverify_it(approved):
    """The journal is read as it stood when the record was written."""
    time.sleep(1.1)  # journal times have whole seconds
    analysis = compare(CompareSpec.create(*PAIR, policy=POLICY))
    session = start_review(analysis, reviewer="kim")
    session.set_tag(analysis.regressions[5], "flaky", by="kim")
    session.set_note(analysis.regressions[0], "changed my mind", by="kim")
    session.close()
    result = verify_record(read_record(approved), *PAIR)
    assert result.ok and "match the session journal" in result.reason, result.reason


def test_a_record_older_than_its_journal_is_checked_against_its_own_tags(approved):
    record = json.loads(approved.read_text(encoding="utf-8"))
    record["created"] = "2000-01-01T00:00:00+0000"  # the journal there began after it
    approved.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
    result = verify_record(read_record(approved), *PAIR)
    assert result.ok and "not the one it was made from" in result.reason


@pytest.mark.parametrize(
    "edit",
    [
        lambda r: r.pop("items"),
        lambda r: r.__setitem__("items", "none"),
        lambda r: r["items"].append(42),
        lambda r: r["items"][0].pop("direction"),
        lambda r: r["triage"].__setitem__("by_tag", []),
        lambda r: r.pop("decision"),
        lambda r: r["results"].pop("verdict"),
        lambda r: r["policy"]["rules"].__setitem__("gates", "all"),
        lambda r: r["policy"].__setitem__("rules", [1]),
        lambda r: r.__setitem__("inputs", {"baseline": {}}),
        lambda r: r["items"].append(dict(r["items"][0])),
    ],
    ids=[
        "no-items", "items-text", "item-number", "no-direction", "by-tag-list", "no-decision",
        "no-verdict", "gates-text", "rules-list", "inputs-partial", "item-twice",
    ],
)  # fmt: skip
def test_a_malformed_record_is_not_verified_exit_1_never_an_internal_error(
    approved_copy, capsys, edit
):
    record = json.loads(approved_copy.read_text(encoding="utf-8"))
    edit(record)
    approved_copy.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
    for files in ((), PAIR):
        assert main(["verify", str(approved_copy), *map(str, files)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("evaltui: NOT verified: ") and err.count("\n") == 1, err


# ---------------------------------------------------------------------------------------------
# Signatures (ssh-keygen -Y)

KEYGEN = shutil.which("ssh-keygen")


def _keygen(*args: str, stdin: Path | None = None) -> subprocess.CompletedProcess:
    with stdin.open("rb") if stdin else open("/dev/null", "rb") as handle:
        return subprocess.run(
            [KEYGEN, *args], stdin=handle, capture_output=True, timeout=60, check=False
        )


@pytest.mark.skipif(KEYGEN is None, reason="ssh-keygen is not on this machine")
def test_a_signed_record_verifies_for_its_signer_and_not_after_an_edit(approved, tmp_path):
    key = tmp_path / "key"
    assert _keygen("-q", "-t", "ed25519", "-N", "", "-C", "dana", "-f", str(key)).returncode == 0
    public = (tmp_path / "key.pub").read_text().split()
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"dana@example.org {public[0]} {public[1]}\n")
    done = _keygen("-Y", "sign", "-f", str(key), "-n", "evaltui-signoff", str(approved))
    if done.returncode != 0:
        pytest.skip(f"this ssh-keygen cannot sign: {done.stderr.decode().strip()}")
    signature = approved.with_name(approved.name + ".sig")
    assert verify_signature(approved, signature, allowed, "dana@example.org").ok
    assert not verify_signature(approved, signature, allowed, "eve@example.org").ok
    record = json.loads(approved.read_text(encoding="utf-8"))
    record["reviewer"] = "eve"
    approved.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
    result = verify_signature(approved, signature, allowed, "dana@example.org")
    assert not result.ok and "\n" not in result.reason


@pytest.mark.skipif(KEYGEN is None, reason="ssh-keygen is not on this machine")
def test_verify_on_the_command_line_checks_the_signature_too(approved, tmp_path, capsys):
    from evaltui.cli.main import main

    key = tmp_path / "key"
    assert _keygen("-q", "-t", "ed25519", "-N", "", "-C", "dana", "-f", str(key)).returncode == 0
    public = (tmp_path / "key.pub").read_text().split()
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"dana@example.org {public[0]} {public[1]}\n")
    done = _keygen("-Y", "sign", "-f", str(key), "-n", "evaltui-signoff", str(approved))
    if done.returncode != 0:
        pytest.skip(f"this ssh-keygen cannot sign: {done.stderr.decode().strip()}")
    signature = approved.with_name(approved.name + ".sig")
    common = ["verify", str(approved), "--signature", str(signature), "--allowed-signers"]
    assert main([*common, str(allowed), "--identity", "dana@example.org"]) == 0
    assert "the signature is good" in capsys.readouterr().out
    assert main([*common, str(allowed), "--identity", "eve@example.org"]) == 1
    assert "does not verify for eve@example.org" in capsys.readouterr().err
    assert main(["verify", str(approved), "--signature", str(signature)]) == 2
    assert "needs --signature, --allowed-signers and --identity" in capsys.readouterr().err
