"""Checking a sign-off record after the fact: untouched, on the same files, and saying only
what the files, its policy and its tags give.

`verify_record` stops at the first "no":

1. the record's form: every key it must have, of the type it must be, no key written twice
   (``verify/form.py``: the record's declaration, ``core/record/shape.py``, checks it);
2. its content hash. That is an unkeyed sha256 of the rest of the record, so it catches an edit
   made without recomputing it, nothing more: anyone can edit a record and hash it again;
3. its own claims against each other: the triage counts, the untriaged ids and the counts by
   tag against its items, and the override rule (an approval over untriaged, confirmed or
   regressed items or failed gates carries an override naming exactly those);
4. with the input files: they are the ones reviewed (sha256), and the whole record is built
   again from them as `signoff.build_record` builds it, with the record's own comparison spec,
   policy rules (the policy file is not needed), reviewer's decision and tags, then compared
   key by key: the statistics, headline and warnings, every discordant item and its direction,
   slice and cluster, the gates, the policy hash, the triage, the override and the decision.
   The tags come from the session journal the record names when it is on this machine (as it
   stood when the record was written), so an edited tag, note or tagger is caught even when
   the record was made consistent again; otherwise from the record itself.

What no check here can prove is who wrote the record and when (the reviewer's name, the
rationale, the time): that takes a signature (`verify_signature`, `ssh-keygen -Y`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from evaltui.core.canonical import canonical_sha256
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.decide.gates import margin_accepts_regression
from evaltui.core.decide.notices import (
    INPUTS_CHANGED,
    JOURNAL_DAMAGED,
    POLICY_CHANGED,
    STALE_TAGS,
    Notice,
)
from evaltui.core.errors import InputError, UsageError
from evaltui.core.policy.tags import CONFIRMED, DEFAULT_MEANINGS, TagMeanings
from evaltui.core.read.formats.jsontext import DuplicateKey, loads, locate_duplicate
from evaltui.core.read.runs import sha256_of
from evaltui.core.record.journal import inputs_changed_notice, journal_entries
from evaltui.core.record.session import Override
from evaltui.core.record.signoff import (
    OPTIONAL_RESULT_KEYS,
    READABLE_SCHEMAS,
    RESULT_KEYS,
    SIGNOFF_SCHEMA,
    record_hash_ok,
)
from evaltui.core.textsafe import one_line
from evaltui.core.verify.form import form_problem

# An evaltui.signoff/1 record's results compared (its warnings and headline were worded otherwise)
COMPARED_RESULTS = tuple(k for k in RESULT_KEYS if k not in ("warnings", "headline"))
RUN_SET_RECORD = "evaltui.signoff-runset/1"  # record.run_set_signoff.RUN_SET_SIGNOFF_SCHEMA
TOLERANCE = 1e-9  # relative: floats written to JSON and read back, or a different BLAS


@dataclass(frozen=True)
class Verification:
    ok: bool
    reason: str


class RecordText(dict):
    """A record as read from its file, and what is wrong with its form (`problem`; None when
    nothing is): `verify_record` refuses such a record before looking at anything it says."""

    problem: str | None = None


def read_record(path: str | Path) -> dict[str, Any]:
    """The record in `path`. A file that is not a JSON object is an InputError (unreadable);
    one that holds a key twice is read, but marked: `{"decision": "approve", "decision":
    "block"}` is an approval to one reader and a block to another, so it cannot be verified."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file; expected a sign-off record (JSON)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the record: {exc.strerror or exc}") from None
    problem = None
    try:
        record = loads(data)
    except DuplicateKey as exc:
        where = locate_duplicate(data)
        place = f" at {where[0]} (line {where[1]})" if where is not None else ""
        problem = (
            f"the record holds the key {json.dumps(exc.key)} twice{place}: JSON readers "
            "disagree on which one counts, so what it says cannot be verified"
        )
        record = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InputError(path, f"is not a JSON sign-off record: {exc}") from None
    readable = (*READABLE_SCHEMAS, RUN_SET_RECORD)
    if not isinstance(record, dict) or record.get("schema") not in readable:
        expected = " or ".join(readable)
        raise InputError(path, f"is not a sign-off record (schema {expected} expected)")
    text = RecordText(record)
    text.problem = problem
    return text


def verify_record(
    record: dict[str, Any], baseline: str | Path | None = None, candidate: str | Path | None = None
) -> Verification:
    """Check `record` (see the module docstring); with both files, against them too. A record
    whose form is wrong is not verified (exit 1, the reason named), never an internal error."""
    try:
        return _verify(record, baseline, candidate)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        return Verification(False, f"the record is malformed: {_what_broke(exc)}")


def _verify(
    record: dict[str, Any], baseline: str | Path | None, candidate: str | Path | None
) -> Verification:
    problem = getattr(record, "problem", None) or form_problem(record)
    if problem is not None:
        return Verification(False, problem)
    if not record_hash_ok(record):
        return Verification(
            False, "the record's content does not match its content_hash: it was edited"
        )
    problem = claims_problem(record)
    if problem is not None:
        return Verification(False, problem)
    if baseline is None or candidate is None:
        return Verification(True, HASH_ONLY)
    for arm, path in (("baseline", baseline), ("candidate", candidate)):
        expected = record["inputs"][arm]["sha256"]
        actual = sha256_of(Path(path))
        if actual != expected:
            return Verification(
                False,
                f"{_shown(path)} is not the {arm} that was reviewed "
                f"(sha256 {actual[:16]}… instead of {expected[:16]}…)",
            )
    if record.get("schema") != SIGNOFF_SCHEMA:
        return _verify_statistics_only(record, Path(baseline), Path(candidate))
    return _verify_rebuilt(record, Path(baseline), Path(candidate))


HASH_ONLY = (
    "the record matches its content hash and its own claims agree (triage, tags, the override "
    "rule); files not checked. The hash is an unkeyed sha256 anyone can recompute after an "
    "edit, so alone it proves nothing about the numbers, the items or the decision: give "
    "BASE CAND to rebuild the record from them, and check a signature to know who wrote it"
)


def _verify_statistics_only(
    record: dict[str, Any], baseline: Path, candidate: Path
) -> Verification:
    """An `evaltui.signoff/1` record: its statistics, the keys it states, recomputed."""
    recomputed = _recompute(record, baseline, candidate)
    for key in COMPARED_RESULTS:
        where = _first_difference(record["results"].get(key), recomputed.get(key), key, False)
        if where is not None:
            return Verification(
                False,
                f"recomputed statistics differ from the record at {where} (the record is "
                f"{record.get('schema')}, written before the verdict rules for clustered items "
                "and metric families changed)",
            )
    return Verification(True, "the record is intact, the files are the ones reviewed and the "
                              "statistics recompute to the recorded values (an "
                              f"{record.get('schema')} record: its items, tags and decision "
                              "are not rebuilt)")  # fmt: skip


def _recompute(record: dict[str, Any], baseline: Path, candidate: Path) -> dict[str, Any]:
    """An older record's results recomputed from the files with its own comparison spec; the
    family and slice adjustments follow its recorded policy rules."""
    from dataclasses import replace

    from evaltui.core.analysis.pipeline import breakdowns, compare
    from evaltui.core.report.pair import report_dict

    policy = record.get("policy", {})
    spec = replay_spec(record).with_inputs(baseline, candidate)
    analysis = compare(replace(spec, policy=None))
    rules = policy.get("rules")
    if rules:
        analysis = breakdowns(
            analysis, rules.get("multiplicity", "holm"), tuple(rules.get("monitor", ()))
        )
    return report_dict(analysis)


# ---------------------------------------------------------------------------------------------
# The record's claims against each other


def claims_problem(record: dict[str, Any]) -> str | None:
    """Where the record contradicts itself, or None: its triage against its items, and the
    override rule (`workflow.override_for`, `check_override`) against its own decision, gates,
    tags and verdict. Needs no file: an edit that leaves the record inconsistent is caught
    however it was re-hashed."""
    triage = record["triage"]
    meanings = _meanings(record)
    regressions = [i for i in record["items"] if i["direction"] == "regression"]
    untriaged = [i["item_id"] for i in regressions if not meanings.triaged(i["tag"])]
    by_tag: dict[str, int] = {}
    for item in regressions:
        if item["tag"] is not None:
            by_tag[item["tag"]] = by_tag.get(item["tag"], 0) + 1
    derived = {
        "regressions": len(regressions),
        "triaged": len(regressions) - len(untriaged),
        "untriaged": untriaged,
        "by_tag": by_tag,
    }
    for key, value in derived.items():
        if triage[key] != value:
            return (
                f"the record's triage.{key} ({_shown(json.dumps(triage[key]))}) is not what its "
                f"items say ({_shown(json.dumps(value))})"
            )
    if record.get("schema") != SIGNOFF_SCHEMA:
        return None
    try:
        policy = policy_from_record(record)
    except RecordPolicyError as exc:
        return str(exc)
    stated = policy.hash if policy is not None else "sha256:" + canonical_sha256(record["policy"])
    if record["policy_hash"] != stated:
        return (
            f"the record's policy_hash ({_shown(record['policy_hash'], 20)}…) is not the hash of "
            f"the policy it states ({stated[:20]}…)"
        )
    failed = [
        g["name"] for g in record["gates"] if isinstance(g, dict) and g.get("status") == "failed"
    ]
    confirmed = [i["item_id"] for i in regressions if meanings.meaning(i["tag"]) == CONFIRMED]
    override = Override(
        regressions=len(regressions),
        untriaged=tuple(untriaged),
        failed_gates=tuple(failed),
        confirmed=tuple(confirmed),
        regressed=record["results"].get("verdict") == "regressed"
        and not margin_accepts_regression(record["gates"]),
    )
    approving = record["reviewer_decision"] == "approve"
    recorded = record["override"]
    if approving and override.needed:
        if recorded is None or not str(recorded.get("reason") or "").strip():
            return (
                "the record approves over " + "; ".join(override.problems()) + " without an "
                "override reason, which evaltui never writes: the decision was edited"
            )
        expected = {
            "overrides": override.problems(),
            "untriaged_regressions": list(override.untriaged),
            "failed_gates": list(override.failed_gates),
            "confirmed_regressions": list(override.confirmed),
            "regressed": override.regressed,
        }
        for key, value in expected.items():
            if recorded.get(key) != value:
                return (
                    f"the record's override.{key} ({_shown(json.dumps(recorded.get(key)))}) is "
                    f"not what its items, gates and verdict say ({_shown(json.dumps(value))})"
                )
    elif recorded is not None:
        why = "the decision is not an approval" if not approving else "there is nothing to override"
        return f"the record holds an override although {why}: it was edited"
    return None


def _meanings(record: dict[str, Any]) -> TagMeanings:
    stated = record["triage"].get("meanings")
    if isinstance(stated, dict):
        return TagMeanings(
            **{m: tuple(stated.get(m, ())) for m in ("confirmed", "grader_error", "open")}
        )
    return DEFAULT_MEANINGS


# ---------------------------------------------------------------------------------------------
# Rebuilding the record from the files


IGNORED = ("created", "tool", "content_hash", "session_journal")  # not derivable, or paths
PATHS = {"inputs.baseline.path", "inputs.candidate.path", "spec.baseline", "spec.candidate",
         "spec.policy", "policy.path"}  # fmt: skip


def _verify_rebuilt(
    record: dict[str, Any], baseline: Path, candidate: Path, analysis: Any = None
) -> Verification:
    """Rebuild the record from the files and compare; `analysis` is the pair's analysis when
    the caller has it (a run set's pair, whose verdict the family of pairs adjusted)."""
    from evaltui.core.errors import UsageError
    from evaltui.core.record.session import OverrideRequired
    from evaltui.core.record.signoff import ReviewerDecision, build_record

    try:
        if analysis is None:
            analysis = _analysis(record, baseline, candidate)
    except RecordPolicyError as exc:
        return Verification(False, str(exc))
    except UsageError as exc:  # the record's options do not apply to these files
        return Verification(False, f"the record's comparison cannot be replayed: {_shown(exc)}")
    session, journal = _session(record, analysis)
    override = record["override"] or {}
    try:
        decision = ReviewerDecision(
            reviewer=record["reviewer"],
            decision=record["reviewer_decision"],
            rationale=record["rationale"],
            override_reason=override.get("reason"),
        )
        expected = build_record(analysis, session, decision)
    except OverrideRequired as exc:
        return Verification(
            False, f"the record's approval needs an override it does not carry: {_shown(exc)}"
        )
    except UsageError as exc:
        return Verification(
            False, f"the record's decision is not one evaltui writes: {_shown(exc)}"
        )
    where = _record_difference(record, expected)
    if where is not None:
        return Verification(False, where)
    tags = (
        f"the tags and notes match the session journal {_shown(journal)}"
        if journal is not None
        else "the tags and notes are the record's own (the session journal it names is not on "
        "this machine, or is not the one it was made from)"
    )
    return Verification(
        True,
        "the record is intact, the files are the ones reviewed and the statistics recompute to "
        "the recorded values; its items, gates, triage, override and decision are what the files, "
        f"its policy rules and its tags give; {tags}. Who signed it and when only a signature "
        "can show",
    )


def _record_difference(record: dict[str, Any], expected: dict[str, Any]) -> str | None:
    """The first key where the record differs from the one rebuilt, in words, or None."""
    keys = sorted((set(record) | set(expected)) - set(IGNORED) - {"results"})
    for key in ["results", *keys]:  # the statistics first: a changed number is named as one
        if key == "results":
            for name in (*RESULT_KEYS, *OPTIONAL_RESULT_KEYS):
                where = _first_difference(
                    record["results"].get(name), expected["results"].get(name), name
                )
                if where is not None:
                    return f"recomputed statistics differ from the record at {where}"
            continue
        where = _first_difference(record.get(key), expected.get(key), key, skip=PATHS)
        if where is not None:
            return (
                f"the record's {where} is not what the files, its policy rules and its tags give "
                f"(recorded {_at(record, where)}, rebuilt {_at(expected, where)})"
            )
    return None


def _at(record: dict[str, Any], where: str) -> str:
    """The value at a dotted path (`items[3].tag`), shortened, for a message."""
    value: Any = record
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", where):
        try:
            value = value[int(part[1:-1])] if part.startswith("[") else value[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return "nothing"
    return _shown(json.dumps(value, ensure_ascii=False, default=str))


class RecordPolicyError(ValueError):
    """The record's policy rules are not a policy evaltui would have written."""


def _analysis(record: dict[str, Any], baseline: Path, candidate: Path) -> Any:
    """The analysis the record was made from, from the files and the record's spec and rules."""
    from dataclasses import replace

    from evaltui.core.analysis.pipeline import compare

    spec = replay_spec(record).with_inputs(baseline, candidate)
    policy = policy_from_record(record)
    return compare(replace(spec, policy=None), policy=policy)


def policy_from_record(record: dict[str, Any]) -> Any:
    """The Policy a record's rules describe (None when it was made without one), parsed as a
    policy file would be: its gates, tag meanings and hash are then evaltui's own, and a hash
    or rule edited into the record shows. The file itself is not needed."""
    from evaltui.core.errors import InputError
    from evaltui.core.policy.schema import POLICY_SCHEMA, loads_policy

    policy = record["policy"]
    if "rules" not in policy:
        return None
    rules = policy["rules"]
    if not isinstance(rules, dict) or rules.get("schema") != POLICY_SCHEMA:
        raise RecordPolicyError(f"the record's policy.rules is not an {POLICY_SCHEMA} object")
    try:
        parsed = loads_policy(_rules_toml(rules), str(policy.get("path", "<record>")))
    except (InputError, TypeError, ValueError) as exc:
        raise RecordPolicyError(
            f"the record's policy rules are not a valid policy: {_shown(exc)}"
        ) from None
    parsed = replace_policy(parsed, sha256=str(policy.get("sha256", "")))
    if parsed.canonical() != rules:
        raise RecordPolicyError(
            "the record's policy rules are not in the form evaltui writes them (edited?)"
        )
    return parsed


def replace_policy(policy: Any, **changes: Any) -> Any:
    from dataclasses import replace

    return replace(policy, **changes)


def _rules_toml(rules: dict[str, Any]) -> str:
    """The canonical rules as TOML for `loads_policy` (None values are left out: not given)."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        raise TypeError(f"a rule value {_shown(json.dumps(v, default=str))} is not a TOML value")

    lines = [
        f"{key} = {value(v)}"
        for key, v in rules.items()
        if key not in ("schema", "gates", "tags") and v is not None
    ]
    tags = rules.get("tags")
    if tags is not None:
        lines.append("[tags]")
        lines += [f"{meaning} = {value(v)}" for meaning, v in tags.items()]
    for gate in rules.get("gates", []):
        lines.append("[[gates]]")
        lines += [f"{key} = {value(v)}" for key, v in gate.items() if v is not None]
    return "\n".join(lines) + "\n"


def _session(record: dict[str, Any], analysis: Any) -> tuple[Any, str | None]:
    """The review the record was made from: the session journal it names, as it stood when
    the record was written, when the journal is here and belongs to this review; else one
    rebuilt from the record's own items, tag set and notices. Returns it and the journal used
    (None: the record's own)."""
    from evaltui.core.record.journal import ReviewSession, SessionInfo

    inputs = record["inputs"]
    info = SessionInfo(
        str(inputs["baseline"].get("path", "")), str(inputs["candidate"].get("path", "")),
        inputs["baseline"]["sha256"], inputs["candidate"]["sha256"],
        tuple(record["triage"]["tags"]), "",
    )  # fmt: skip
    path = Path(record["session_journal"])
    session = ReviewSession(path=path, info=info, read_only=True)
    if _replay_until(session, path, record["created"], analysis):
        return session, str(path)
    session = ReviewSession(path=path, info=info, read_only=True)
    from evaltui.core.record.journal import ItemReview

    for item in record["items"]:
        session.items[item["item_id"]] = ItemReview(
            item["item_id"], item["tag"], item.get("note") or "",
            item.get("tagged_at") or "", item.get("tagged_by") or "",
        )  # fmt: skip
    session.notices.extend(_notice(text) for text in record["review_notices"])
    return session, None


_NOTICE_WORDS = (
    (INPUTS_CHANGED, re.compile(r"^the (baseline|candidate)( and candidate)? file changed since")),
    (STALE_TAGS, re.compile(r"^\d+ tagged item\(s\) changed outcome since tagging")),
    (POLICY_CHANGED, re.compile(r"^the policy changed since this review started")),
)


def _notice(text: Any) -> Notice:
    """A recorded notice with its kind, told by its words (the record keeps the text only)."""
    text = str(text)
    kind = next((k for k, words in _NOTICE_WORDS if words.match(text)), JOURNAL_DAMAGED)
    return Notice(kind, text)


def _replay_until(session: Any, path: Path, created: str, analysis: Any) -> bool:
    """Replay the journal's lines written up to `created` into `session`, with the notices
    `workflow.start_review` would have raised then; False when there is no journal here, or
    it is another review's (a later `--fresh` one, or another pair's)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return False
    until = _when(created)
    first = True
    for entry in journal_entries(path, raw, session.notices):
        when = _when(entry.get("time"))
        if first:
            first = False
            if entry.get("kind") != "session" or (until and when and when > until):
                return False  # not this review's journal (or one started after the record)
        if until and when and when > until:
            continue  # written after the record: not what it was made from
        session._apply(entry)
    if first:
        return False
    paired = analysis.paired
    hashes = (paired.baseline.source.sha256, paired.candidate.source.sha256)
    changed = inputs_changed_notice(
        (session.info.baseline_sha256, session.info.candidate_sha256), hashes
    )
    if changed is not None:
        session.notices.append(changed)
    from evaltui.core.record.session import add_review_notices

    add_review_notices(analysis, session)
    return True


def _when(text: Any) -> datetime | None:
    try:
        return datetime.strptime(str(text), "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------
# Signatures


SIGNATURE_NAMESPACE = "evaltui-signoff"


def verify_signature(
    record: str | Path, signature: str | Path, allowed_signers: str | Path, identity: str
) -> Verification:
    """Who signed the record: `ssh-keygen -Y verify` with the evaltui-signoff namespace. The
    record must have been signed with `ssh-keygen -Y sign -f KEY -n evaltui-signoff RECORD`;
    `allowed_signers` lists the identities and keys trusted to sign (see ssh-keygen(1))."""
    import shutil
    import subprocess

    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        raise UsageError("checking a signature needs ssh-keygen (OpenSSH 8.1 or later)")
    for path in (record, signature, allowed_signers):
        if not Path(path).is_file():
            raise InputError(path, "no such file")
    with Path(record).open("rb") as handle:
        done = subprocess.run(
            [keygen, "-Y", "verify", "-f", str(allowed_signers), "-I", identity,
             "-n", SIGNATURE_NAMESPACE, "-s", str(signature)],
            stdin=handle, capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    said = _shown(" ".join((done.stdout + " " + done.stderr).split()))
    if done.returncode == 0:
        return Verification(True, f"the signature is good: {said}")
    return Verification(False, f"the signature does not verify for {_shown(identity)}: {said}")


# ---------------------------------------------------------------------------------------------
# Messages


def _shown(value: Any, width: int = 160) -> str:
    """Text from a record or a file, inert and short, for a one-line reason."""
    return one_line(str(value), width)


def _what_broke(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"a key it must have is missing ({_shown(exc.args[0] if exc.args else exc)})"
    return _shown(f"{type(exc).__name__}: {exc}")


def replay_spec(record: dict[str, Any]) -> CompareSpec:
    """The comparison spec a record was made with. Records written before the spec was stored
    carry only the analysis and pairing options; their spec is rebuilt from those."""
    if record.get("spec") is not None:
        return CompareSpec.from_dict(record["spec"])
    policy = record.get("policy", {})
    options = policy.get("options", policy)
    threshold = options.get("pass_threshold")
    inputs = record.get("inputs", {})
    return CompareSpec.create(
        inputs.get("baseline", {}).get("path", "baseline"),
        inputs.get("candidate", {}).get("path", "candidate"),
        allow_missing=bool(policy.get("allow_missing", False)),
        on_error=policy.get("on_error", "fail"),
        ci_method=options["ci_method"],
        confidence=options["confidence"],
        alpha=options["alpha"],
        metric=options.get("threshold_metric") if threshold is not None else options.get("metric"),
        pass_threshold=threshold,
        tolerance=options.get("tolerance", 0.0),
        resamples=options.get("resamples", 10_000),
        seed=options.get("seed", 0),
        bootstrap=options.get("bootstrap", "bca"),
    )


def _first_difference(
    recorded: Any,
    recomputed: Any,
    where: str,
    strict: bool = True,
    skip: frozenset[str] | set[str] = frozenset(),
) -> str | None:
    """The first place the two differ (`skip`: dotted places not compared). Not `strict` (an
    older record): keys the record does not have are not claims it made, so only its own keys
    are compared. Two lists of different lengths differ at the first item one lacks."""
    if where in skip:
        return None
    if isinstance(recorded, dict) and isinstance(recomputed, dict):
        keys = set(recorded) | set(recomputed) if strict else set(recorded)
        for key in sorted(keys):
            found = _first_difference(
                recorded.get(key), recomputed.get(key), f"{where}.{key}", strict, skip
            )
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(recomputed, list):
        for i, (a, b) in enumerate(zip(recorded, recomputed, strict=False)):
            found = _first_difference(a, b, f"{where}[{i}]", strict, skip)
            if found:
                return found
        if len(recorded) != len(recomputed):
            return f"{where}[{min(len(recorded), len(recomputed))}]"
        return None
    if isinstance(recorded, float) or isinstance(recomputed, float):
        if recorded is None or recomputed is None:
            return where
        if math.isclose(float(recorded), float(recomputed), rel_tol=TOLERANCE, abs_tol=1e-12):
            return None
        return where
    return None if recorded == recomputed else where
