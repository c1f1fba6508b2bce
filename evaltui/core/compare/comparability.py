"""Whether two runs are shown to measure the same thing, and where their items' texts differ.

Pairing on item ids assumes that id 7 in one file is id 7 in the other. The logs can show it:
both name the same task, or both carry lm-eval's per-document `doc_hash` (pairing checks those).
When they show neither (lm-eval 0.4.0-0.4.2 wrote no task name and no hashes; a JSONL run may
carry neither), the items' own inputs are compared: a sha256 of each document computed at
load (`input_hash`). If they differ, the runs are not shown to be the same task and the
decision refuses a verdict (`not_comparable`) until the user says the comparison is intended
(`--accept-mismatch`); wmdp_bio against wmdp_chem must not pair on doc ids 0..N.

Prompts are a separate question: the same documents asked zero-shot in one run and few-shot in
the other are the same task, but the difference measured includes the prompt change, and the
reader must be told (lm-eval's `prompt_hash`; an Inspect sample's input, hashed at load).
"""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.compare.item_join import first_per_item
from evaltui.core.read.runs import Run

DOC_HASH = "doc_hash"  # lm-eval >= 0.4.3, written in the log
INPUT_HASH = "input_hash"  # computed at load from the item's document (lm-eval 0.4.0-0.4.2)
PROMPT_HASH = "prompt_hash"  # lm-eval's prompt hash, or an Inspect sample's input, hashed
TASK_KEYS = ("task", "eval_name")


@dataclass(frozen=True)
class ItemDifference:
    """How many of the items both runs hold have a different text (`column`'s hash)."""

    column: str
    differ: int
    shared: int

    @property
    def text(self) -> str:
        return f"{self.differ:,} of {self.shared:,} item{'s' if self.shared != 1 else ''}"


@dataclass(frozen=True)
class Comparability:
    """What the logs show about the two runs being the same task, and what differs.

    `shown_by` says how sameness is shown ("task name", "doc_hash"), empty when the logs show
    nothing; `inputs` the items whose documents differ (None: no hashes to compare); `prompts`
    the items whose prompts differ (None: no prompt hashes in both runs)."""

    shown_by: str
    inputs: ItemDifference | None
    prompts: ItemDifference | None

    @property
    def refused(self) -> bool:
        """The logs do not show the same task and the items' inputs differ."""
        return not self.shown_by and self.inputs is not None and self.inputs.differ > 0

    @property
    def refusal(self) -> str:
        """The reason in words, with the way out (empty when not refused)."""
        if not self.refused or self.inputs is None:
            return ""
        return (
            "the logs do not show that the two runs are the same task (no task name and no doc "
            f"hashes in both) and the items' documents differ on {self.inputs.text}: "
            "the shared item ids may name different questions; if this comparison is "
            "intended, say so with --accept-mismatch"
        )

    @property
    def prompts_text(self) -> str:
        """ "prompts differ on 609 of 609 items", or empty."""
        if self.prompts is None or self.prompts.differ == 0:
            return ""
        return f"prompts differ on {self.prompts.text}"

    def to_dict(self) -> dict[str, object]:
        def counts(d: ItemDifference | None) -> dict[str, object] | None:
            return None if d is None else {"differ": d.differ, "of": d.shared, "by": d.column}

        return {
            "same_task_shown_by": self.shown_by or None,
            "inputs_differ": counts(self.inputs),
            "prompts_differ": counts(self.prompts),
        }


def assess(baseline: Run, candidate: Run) -> Comparability:
    """See the module docstring. Cheap: metadata, and one join of two hash columns."""
    return Comparability(
        shown_by=_shown_by(baseline, candidate),
        inputs=_differences(baseline, candidate, (DOC_HASH, INPUT_HASH)),
        prompts=_differences(baseline, candidate, (PROMPT_HASH,)),
    )


def _task(run: Run) -> str | None:
    for key in TASK_KEYS:
        value = run.metadata.get(key)
        if value:
            return str(value)
    return None


def _shown_by(baseline: Run, candidate: Run) -> str:
    base, cand = _task(baseline), _task(candidate)
    if base is not None and cand is not None:
        return "task name"  # different names are the decision's other reason (they differ in)
    both = baseline.table.columns, candidate.table.columns
    if all(DOC_HASH in columns for columns in both):
        return "doc_hash"  # pairing refuses a doc_id whose document differs
    return ""


def _differences(baseline: Run, candidate: Run, columns: tuple[str, ...]) -> ItemDifference | None:
    """Each run's first of `columns` (lm-eval's written doc_hash and the one computed at load
    hash a document alike), compared over the shared item ids (each item's first record:
    epochs of one item share its input). None when either run carries none of them."""
    base_column = next((c for c in columns if c in baseline.table.columns), None)
    cand_column = next((c for c in columns if c in candidate.table.columns), None)
    if base_column is None or cand_column is None:
        return None
    joined = first_per_item(baseline.table, candidate.table, base_column, cand_column)
    joined = joined.drop_nulls()
    if joined.height == 0:
        return None
    differ = int((joined["base"] != joined["cand"]).sum())
    label = base_column if base_column == cand_column else f"{base_column}/{cand_column}"
    return ItemDifference(label, differ, joined.height)
