"""Every option a comparison can be made with survives sign-off -> verify.

A record stores the comparison spec it was made with and `evaltui verify RECORD BASE CAND`
replays it. Before the spec, a record made with promptfoo arms, an lm-eval filter, a forced
input format, a column mapping or an Inspect metric could not be verified at all; each option
here is tried one at a time, and the spec's own round trip is checked beside it.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.compare.options import AnalysisOptions
from evaltui.core.compare.pairing import PairingOptions
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.errors import UsageError
from evaltui.core.record.signoff import HASH_FIELD, _hash

DATA = Path(__file__).resolve().parent.parent / "data"
SAMPLE = Path(__file__).resolve().parent.parents[1] / "sample_runs"
INSPECT = DATA / "inspect_ai"
GPT5 = INSPECT / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CLAUDE = INSPECT / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"
PROMPTFOO = DATA / "promptfoo" / "eval-two-providers.json"
LM_EVAL = sorted((DATA / "lm_eval").glob("*/samples_*.jsonl"))
GPT4O, HAIKU = "provider=openai:gpt-4o-mini", "provider=claude-3.5-haiku"


def _lm_eval_with_two_filters(tmp_path: Path) -> tuple[Path, Path]:
    """The two real copa sample files, each line followed by a "strict-match" copy whose
    verdict differs from the "none" one, so the filter changes the numbers."""
    out = []
    for index, source in enumerate(LM_EVAL):
        lines = []
        for raw in source.read_text(encoding="utf-8").splitlines():
            row = json.loads(raw)
            lines.append(row)
            flipped = 1.0 - row["acc"] if (row["doc_id"] + index) % 3 == 0 else row["acc"]
            lines.append(dict(row, filter="strict-match", acc=flipped))
        path = tmp_path / f"samples_copa_{index}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
        out.append(path)
    return out[0], out[1]


def _mapped_columns(tmp_path: Path) -> tuple[Path, Path]:
    """A CSV pair with the file's own column names for every canonical column."""
    paths = []
    for arm, flip in (("base", 0), ("cand", 1)):
        path = tmp_path / f"{arm}-mapped.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["qid", "ok", "f1", "topic", "doc", "prompt", "response"])
            for i in range(60):
                ok = (i % 4 != 0) if not flip else (i % 5 != 0)
                f1 = round(((i * 7 + flip * 3) % 10) / 10, 1)
                writer.writerow(
                    [f"q{i}", str(ok).lower(), f1, f"t{i % 3}", f"d{i % 12}", f"ask {i}", "hm"]
                )
        paths.append(path)
    return paths[0], paths[1]


def _graded(tmp_path: Path) -> tuple[Path, Path]:
    paths = []
    for arm, shift in (("base", 0.0), ("cand", 0.05)):
        path = tmp_path / f"{arm}-graded.jsonl"
        rows = [
            {"item_id": f"g{i}", "score": min(1.0, ((i * 37) % 100) / 100 + shift * (i % 3))}
            for i in range(80)
        ]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


def _missing(tmp_path: Path) -> tuple[Path, Path]:
    base = SAMPLE / "baseline.jsonl"
    lines = (SAMPLE / "candidate.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    cand = tmp_path / "candidate-missing.jsonl"
    cand.write_text("".join(lines[5:]), encoding="utf-8")
    return base, cand


def _copied(tmp_path: Path, path: Path) -> tuple[Path, Path]:
    """The file and a copy of it: one arm of each (the same file twice is refused)."""
    copy = tmp_path / f"copy-{path.name}"
    copy.write_bytes(path.read_bytes())
    return path, copy


def _demo(_: Path) -> tuple[Path, Path]:
    return SAMPLE / "baseline.jsonl", SAMPLE / "candidate.jsonl"


# (case, pair builder, the option's arguments, what the stored spec must say)
CASES = [
    ("input-format", _demo, ["--input-format", "jsonl"], ("input_format", "jsonl")),
    ("inspect metric", lambda _: (GPT5, CLAUDE), ["--metric", "match"], ("metric", "match")),
    ("lm-eval filter", _lm_eval_with_two_filters, ["--filter", "strict-match"], None),
    ("promptfoo arm", lambda tmp: _copied(tmp, PROMPTFOO), ["--arm", GPT4O], None),
    (
        "promptfoo baseline/candidate arms",
        lambda _: (PROMPTFOO, PROMPTFOO),
        ["--baseline-arm", GPT4O, "--candidate-arm", HAIKU],
        None,
    ),
    ("id-col + pass-col", _mapped_columns, ["--id-col", "qid", "--pass-col", "ok"], None),
    ("score-col", _mapped_columns, ["--id-col", "qid", "--score-col", "f1"], None),
    (
        "slice-col",
        _mapped_columns,
        ["--id-col", "qid", "--pass-col", "ok", "--slice-col", "topic"],
        None,
    ),  # fmt: skip
    (
        "cluster-col",
        _mapped_columns,
        ["--id-col", "qid", "--pass-col", "ok", "--cluster-col", "doc"],
        None,
    ),  # fmt: skip
    (
        "text-cols",
        _mapped_columns,
        ["--id-col", "qid", "--pass-col", "ok", "--text-cols", "prompt,response"],
        None,
    ),
    ("allow-missing", _missing, ["--allow-missing"], None),
    ("on-error exclude", _demo, ["--on-error", "exclude"], None),
    ("ci-method", _demo, ["--ci-method", "tango"], ("ci_method", "tango")),
    ("confidence", _demo, ["--confidence", "0.9"], ("confidence", 0.9)),
    ("alpha", _demo, ["--alpha", "0.1"], ("alpha", 0.1)),
    ("policy", _demo, ["--policy", str(SAMPLE / "policy.toml")], None),
    ("pass-threshold", _graded, ["--pass-threshold", "0.5"], ("pass_threshold", 0.5)),
    ("tolerance", _graded, ["--tolerance", "0.02"], ("tolerance", 0.02)),
    ("resamples", _graded, ["--resamples", "500"], ("resamples", 500)),
    ("seed", _graded, ["--seed", "7"], ("seed", 7)),
    ("bootstrap", _graded, ["--bootstrap", "percentile"], ("bootstrap", "percentile")),
]


def _sign(tmp_path: Path, base: Path, cand: Path, options: list[str]) -> Path:
    prefix = tmp_path / "record"
    code = main(
        [
            "signoff",
            str(base),
            str(cand),
            *options,
            "--decision",
            "block",
            "--reviewer",
            "dana",
            "--rationale",
            "checking the round trip",
            "--output",
            str(prefix),
        ]
    )
    assert code == 0
    return prefix.with_suffix(".json")


# Options that only set one stored number or word ride the same spec path as the others: the
# default run keeps the formats, columns, policy and the bootstrap; CI's slow stage runs these.
SAME_PATH = {
    "allow-missing",
    "on-error exclude",
    "ci-method",
    "confidence",
    "alpha",
    "pass-threshold",
    "tolerance",
    "resamples",
    "seed",
}


@pytest.mark.parametrize(
    ("case", "pair", "options", "stored"),
    [
        pytest.param(*c, id=c[0], marks=[pytest.mark.slow] if c[0] in SAME_PATH else [])
        for c in CASES
    ],
)
def test_a_record_made_with_each_option_verifies_on_its_files(
    case, pair, options, stored, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    base, cand = pair(tmp_path)
    record_path = _sign(tmp_path, base, cand, options)
    capsys.readouterr()
    record = json.loads(record_path.read_text(encoding="utf-8"))
    spec = CompareSpec.from_dict(record["spec"])
    if stored is not None:
        key, value = stored
        held = spec.input_format if key == "input_format" else getattr(spec.analysis, key)
        assert held == value
    code = main(["verify", str(record_path), str(base), str(cand)])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), f"{case}: {err}"
    assert "statistics recompute" in out


def test_format_options_and_arms_are_stored_in_the_record(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    options = ["--baseline-arm", GPT4O, "--candidate-arm", HAIKU]
    record = json.loads(_sign(tmp_path, PROMPTFOO, PROMPTFOO, options).read_text())
    assert record["spec"]["baseline_options"] == {"arm": GPT4O}
    assert record["spec"]["candidate_options"] == {"arm": HAIKU}
    assert record["spec"]["format_options"] == {}


def test_verify_replays_the_spec_not_the_defaults(tmp_path, monkeypatch, capsys):
    """A record whose spec is edited (and re-hashed, so the hash check passes) no longer
    recomputes to its numbers: the replay reads the spec, the arms included."""
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    options = ["--baseline-arm", GPT4O, "--candidate-arm", HAIKU]
    path = _sign(tmp_path, PROMPTFOO, PROMPTFOO, options)
    record = json.loads(path.read_text())
    record["spec"]["candidate_options"] = {"arm": GPT4O}
    record[HASH_FIELD] = _hash({k: v for k, v in record.items() if k != HASH_FIELD})
    path.write_text(json.dumps(record))
    capsys.readouterr()
    code = main(["verify", str(path), str(PROMPTFOO), str(PROMPTFOO)])
    _, err = capsys.readouterr()
    # Replayed with the edited spec (one arm against itself) the files give no difference at
    # all, which the record's own claims contradict; verify names the first such claim.
    assert code == 1 and "NOT verified" in err
    assert 'rebuilt "+0.0 pts, no verdict"' in err or "recomputed statistics differ" in err


def test_spec_survives_to_dict_and_from_dict_with_every_field_set():
    spec = CompareSpec(
        baseline=Path("a.csv"),
        candidate=Path("b.csv"),
        input_format="csv",
        format_options={"id_col": "qid", "text_cols": ["q", "a"]},
        baseline_options={"arm": "x"},
        candidate_options={"arm": "y"},
        pairing=PairingOptions(allow_missing=True, on_error="exclude"),
        analysis=AnalysisOptions(
            ci_method="tango",
            confidence=0.9,
            alpha=0.1,
            metric="score:f1",
            pass_threshold=0.5,
            tolerance=0.01,
            resamples=500,
            seed=3,
            bootstrap="percentile",
        ),
        policy=Path("policy.toml"),
    )
    data = json.loads(json.dumps(spec.to_dict()))
    assert CompareSpec.from_dict(data) == spec
    assert spec.load_options("baseline").format_dict() == {
        "arm": "x",
        "id_col": "qid",
        "text_cols": ("q", "a"),
    }
    assert spec.load_options("candidate").metric == "score:f1"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d.pop("analysis"), "lacks the key 'analysis'"),
        (lambda d: d.update(schema="other/1"), "is not a evaltui.spec/1 object"),
        (lambda d: d["analysis"].update(ci_method="magic"), "--ci-method must be one of"),
        (lambda d: d["analysis"].update(colour="red"), "unknown analysis option(s) colour"),
        (lambda d: d.update(format_options=["x"]), "format_options must be an object"),
        (lambda d: d.update(baseline=""), "baseline must be a path"),
    ],
)
def test_a_damaged_spec_is_one_usage_error_naming_what_is_wrong(damage, message):
    data = CompareSpec(Path("a"), Path("b")).to_dict()
    damage(data)
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        CompareSpec.from_dict(data)


def test_an_option_that_contradicts_the_policy_is_refused_when_the_spec_is_built():
    with pytest.raises(UsageError, match=r"--alpha 0.1 contradicts the policy"):
        CompareSpec.create("a", "b", policy=SAMPLE / "policy.toml", alpha=0.1)
    spec = CompareSpec.create("a", "b", policy=SAMPLE / "policy.toml", alpha=0.05)
    assert spec.analysis.alpha == 0.05 and spec.policy == SAMPLE / "policy.toml"
