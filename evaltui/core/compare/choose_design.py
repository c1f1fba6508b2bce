"""Which design a comparison has: paired item by item, or two independent samples (rules D1-D4).

The design chooser's first pass (reading list 004) reads whether the arms see the same cases:
D4, every case in both arms, is paired; D2/D3, some cases in both, is paired on the overlap
(`--allow-missing`, with the attrition reported); D1, the arms see different cases, is
independent. evaltui pairs by default (`--design paired`) and never pairs what it cannot:

- the runs share no item id: nothing to pair (D1);
- the runs share ids but name different datasets, tasks or evals in their metadata: the ids
  coincide by accident ("0", "1", ... in two unrelated files) and pairing them would compare
  unrelated items as if they were one (D1, an accidental overlap);
- every shared id names a different document in the two files (lm-eval's `doc_hash`): the
  same accident, proven item by item.

Each of these refuses the paired analysis with the reason and the way out: `--design
independent` compares the two runs as independent samples (R9, R10), and `--accept-mismatch`
says the differently named items are the same ones after all. `--design auto` takes the
independent analysis whenever one of them holds and the paired one otherwise;
`--design independent` always compares independently, and says so when the runs could have
been paired. The reason the paired analysis was impossible (or not chosen) is part of the
result and printed with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from evaltui.core.errors import PairingError, UsageError
from evaltui.core.read.runs import ITEM_ID, Run

Design = Literal["paired", "independent", "auto"]
DESIGNS = ("paired", "independent", "auto")
# Run metadata that names where the items come from: when these differ, an id in one run and
# the same id in the other are not known to be one item. (The scorer, metric or harness may
# differ too; that is a different question, which the decision asks: `--accept-mismatch`.)
ITEM_SOURCE_KEYS = ("dataset", "task", "eval_name")
INDEPENDENT_HINT = "--design independent"


def check_design(value: object) -> str:
    """`--design` is one of DESIGNS; anything else is a UsageError naming the value."""
    if value not in DESIGNS:
        raise UsageError(f"--design must be one of {', '.join(DESIGNS)}, got {value!r}")
    return str(value)


@dataclass(frozen=True)
class DesignChoice:
    """The design the analysis runs with, and why.

    `design` is the analysis that runs (`paired` or `independent`); `requested` what the user
    asked for (`paired`, `independent`, `auto`); `rule` the design chooser's rule that fired
    (`D1` no shared ids, `D1-accidental` ids that coincide by accident, `requested` the user's
    choice, `D4` everything paired, `D2/D3` paired on an overlap); `reason` in plain words, the
    reason the paired analysis was impossible or not used (empty when it runs);
    `shared_ids` how many item ids both runs hold.
    """

    design: str
    requested: str
    rule: str
    reason: str
    shared_ids: int

    @property
    def independent(self) -> bool:
        return self.design == "independent"

    def to_dict(self) -> dict[str, object]:
        return {
            "design": self.design,
            "requested": self.requested,
            "rule": self.rule,
            "reason": self.reason,
            "shared_ids": self.shared_ids,
        }


def _ids(run: Run) -> pl.Series:
    return run.table.get_column(ITEM_ID).unique()


def shared_ids(baseline: Run, candidate: Run) -> int:
    """How many distinct item ids both runs hold."""
    return int(_ids(baseline).is_in(_ids(candidate).implode()).sum())


def source_mismatch(baseline: Run, candidate: Run) -> list[tuple[str, str, str]]:
    """(key, baseline value, candidate value) for each item-source key the runs disagree on."""
    out = []
    for key in ITEM_SOURCE_KEYS:
        a, b = baseline.metadata.get(key), candidate.metadata.get(key)
        if a is not None and b is not None and a != b:
            out.append((key, str(a), str(b)))
    return out


def _sources_text(differ: list[tuple[str, str, str]]) -> str:
    return ", ".join(f"{key} {a!r} vs {b!r}" for key, a, b in differ)


def _all_documents_differ(baseline: Run, candidate: Run) -> int:
    """The number of shared ids when every one of them names a different document in the two
    files (lm-eval's per-item `doc_hash`), else 0: some shared ids are the same item, and a
    partial mismatch stays the pairing's error (it names the ids)."""
    if "doc_hash" not in baseline.table.columns or "doc_hash" not in candidate.table.columns:
        return 0
    base = baseline.table.select(ITEM_ID, "doc_hash").unique(ITEM_ID, keep="first")
    cand = candidate.table.select(ITEM_ID, pl.col("doc_hash").alias("other")).unique(
        ITEM_ID, keep="first"
    )
    joined = base.join(cand, on=ITEM_ID)
    if joined.height == 0:
        return 0
    same = int((joined["doc_hash"] == joined["other"]).sum())
    return joined.height if same == 0 else 0


def why_not_paired(baseline: Run, candidate: Run, *, accept_mismatch: bool) -> tuple[str, str, int]:
    """(rule, reason, shared ids) when the paired analysis is impossible, else ("", "", shared).

    `accept_mismatch` says items from differently named sources are the same items: the names
    then do not refuse the pairing (the decision still reports them)."""
    shared = shared_ids(baseline, candidate)
    if shared == 0:
        sizes = (baseline.table[ITEM_ID].n_unique(), candidate.table[ITEM_ID].n_unique())
        return (
            "D1",
            f"the runs share no item ids (baseline {sizes[0]:,} items, candidate "
            f"{sizes[1]:,} items)",
            0,
        )
    differ = source_mismatch(baseline, candidate)
    if differ and not accept_mismatch:
        return (
            "D1-accidental",
            f"the runs name different item sources ({_sources_text(differ)}): their "
            f"{shared:,} shared item id(s) coincide by accident and do not name the same items",
            shared,
        )
    documents = _all_documents_differ(baseline, candidate)
    if documents:
        return (
            "D1-accidental",
            f"every one of the {documents:,} shared item id(s) names a different document in "
            "the two files (doc_hash differs): the ids coincide by accident",
            shared,
        )
    return "", "", shared


def choose_design(
    requested: str, baseline: Run, candidate: Run, *, accept_mismatch: bool = False
) -> DesignChoice:
    """The design for these two runs (see the module docstring). `paired` never chooses: it is
    `refuse_accidental_pairing`'s and the pairing's to refuse what cannot be paired."""
    requested = check_design(requested)
    rule, reason, shared = why_not_paired(baseline, candidate, accept_mismatch=accept_mismatch)
    if requested == "independent":
        if not reason:
            reason = (
                f"asked for with {INDEPENDENT_HINT}: the runs are compared as independent "
                f"samples, though they share {shared:,} item id(s); if those are the same "
                "items, the paired analysis (the default) is the stronger one"
            )
            rule = "requested"
        return DesignChoice("independent", requested, rule, reason, shared)
    if requested == "auto" and reason:
        return DesignChoice("independent", requested, rule, reason, shared)
    both = max(baseline.table[ITEM_ID].n_unique(), candidate.table[ITEM_ID].n_unique())
    return DesignChoice("paired", requested, "D4" if shared == both else "D2/D3", "", shared)


def refuse_accidental_pairing(baseline: Run, candidate: Run, *, accept_mismatch: bool) -> None:
    """Before pairing: runs that name different datasets, tasks or evals are not paired on
    ids that happen to coincide (cheap: metadata only; the ids are counted only to say how
    many). The message names the way out."""
    differ = source_mismatch(baseline, candidate)
    if not differ or accept_mismatch:
        return
    shared = shared_ids(baseline, candidate)
    if shared == 0:
        return  # the pairing says "no shared ids", and `explain_pairing_error` adds the hint
    raise PairingError(
        f"{baseline.source.path} and {candidate.source.path} name different item sources "
        f"({_sources_text(differ)}): their {shared:,} shared item id(s) coincide by accident, "
        "so the runs cannot be paired; compare them as independent samples with "
        f"{INDEPENDENT_HINT} (evaltui report), or, if they are the same items, say so with "
        "--accept-mismatch"
    )


def explain_pairing_error(error: PairingError, baseline: Run, candidate: Run) -> PairingError:
    """The pairing's error, with the way out when the runs are two samples of different items
    (no shared id, or every shared id a different document); otherwise the error as it was."""
    rule, reason, _ = why_not_paired(baseline, candidate, accept_mismatch=True)
    if not reason:
        return error
    return PairingError(
        f"{baseline.source.path} and {candidate.source.path} cannot be paired: {reason}; "
        f"two runs of different items are compared as independent samples with "
        f"{INDEPENDENT_HINT} (evaltui report)"
    )
