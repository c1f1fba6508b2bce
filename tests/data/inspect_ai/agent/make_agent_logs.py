"""Write the two agent logs of this folder with Inspect AI itself and its offline mock model.

Run with an interpreter that has inspect_ai installed (never a dependency of evaltui):

    python3 -m venv .inspect-venv && .inspect-venv/bin/pip install inspect_ai
    .inspect-venv/bin/python tests/data/inspect_ai/agent/make_agent_logs.py

A tool-using task ("drug interactions": look up an interaction, read a label, answer) run twice
with `mockllm/model`, once per arm, each arm's model a script of outputs chosen from the
conversation so far (so the order samples run in does not matter). What the logs hold, on
purpose:

- drug-2: the baseline calls `check_interaction` with both drugs in one argument, gets a tool
  error ("no entry for Zocor + Biaxin"), retries with the right arguments, reads the label and
  answers (9 messages); the candidate makes the right call at once (7 messages) and answers
  wrongly. The baseline's first turn carries a redacted reasoning block with a summary; every
  other assistant turn a long readable reasoning block (~2.6 KB).
- drug-3: the candidate's first attempt at epoch 1 fails (a provider error) and is retried
  (`error_retries`); both arms pass.
- drug-4: the baseline is stopped by its token limit, the candidate by its message limit.
- drug-5: the candidate errors on every attempt (a sample error, kept: fail_on_error=False).
- drug-1: both pass; its input carries an image (named, not drawn, by evaltui).
- two epochs; two scorers (`includes` and `cites_label` with an explanation).

Token usage is set per output (input/output/reasoning), so the token numbers are the same on
every run; times are measured by Inspect and differ from run to run.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import shutil
import sys
import tempfile
from pathlib import Path

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageUser,
    ContentImage,
    ContentReasoning,
    ContentText,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, includes, scorer
from inspect_ai.solver import TaskState, generate, system_message, use_tools
from inspect_ai.tool import ToolError, tool

HERE = Path(__file__).resolve().parent

INTERACTIONS = {
    ("simvastatin", "clarithromycin"): "major: CYP3A4 inhibition raises simvastatin levels",
    ("ibuprofen", "lisinopril"): "moderate: may reduce the antihypertensive effect",
    ("warfarin", "aspirin"): "major: additive bleeding risk",
    ("metformin", "contrast"): "major: hold metformin around iodinated contrast",
    ("sertraline", "tramadol"): "major: serotonin syndrome risk",
}
LABELS = {
    "simvastatin": "Contraindicated with strong CYP3A4 inhibitors (e.g. clarithromycin).",
    "lisinopril": "NSAIDs may attenuate the effect; monitor blood pressure and renal function.",
    "warfarin": "Avoid aspirin unless directed; monitor INR.",
    "metformin": "Stop at the time of iodinated contrast; restart after 48 h if renal function ok.",
    "tramadol": "Serotonergic drugs increase the risk of serotonin syndrome.",
}


@tool
def check_interaction():
    async def execute(drug_a: str, drug_b: str = "") -> str:
        """Look up the interaction between two drugs.

        Args:
            drug_a: The first drug (generic name).
            drug_b: The second drug (generic name).
        """
        found = INTERACTIONS.get((drug_a.lower(), drug_b.lower()))
        if found is None:
            raise ToolError(f"no entry for {drug_a}" + (f" + {drug_b}" if drug_b else ""))
        return found

    return execute


@tool
def check_label():
    async def execute(drug: str) -> str:
        """Read the prescribing label's interaction section.

        Args:
            drug: The drug (generic name).
        """
        return LABELS.get(drug.lower(), "no label on file")

    return execute


# A 1x1 PNG (the smallest real image) for the one sample whose input has one.
PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8"
    "z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

SAMPLES = [
    Sample(
        id="drug-1",
        input=[
            ChatMessageUser(
                content=[
                    ContentText(text="The patient takes warfarin (photo of the box attached)."),
                    ContentImage(image=PIXEL),
                    ContentText(text="Can they take aspirin for a headache?"),
                ]
            )
        ],
        target="avoid",
    ),
    Sample(id="drug-2", input="I take Zocor. My dentist prescribed Biaxin. OK?", target="avoid"),
    Sample(id="drug-3", input="I take lisinopril. Is ibuprofen fine?", target="monitor"),
    Sample(id="drug-4", input="Metformin and a CT scan with contrast tomorrow?", target="hold"),
    Sample(id="drug-5", input="I take sertraline; my doctor added tramadol. Safe?", target="avoid"),
]

# Which generic names each prompt is about (the mock model "understands" the prompt).
PAIRS = {
    "drug-1": ("warfarin", "aspirin"),
    "drug-2": ("simvastatin", "clarithromycin"),
    "drug-3": ("ibuprofen", "lisinopril"),
    "drug-4": ("metformin", "contrast"),
    "drug-5": ("sertraline", "tramadol"),
}
ANSWERS = {
    "drug-1": "Avoid aspirin: with warfarin it adds bleeding risk. Use paracetamol instead.",
    "drug-2": "Avoid this combination: clarithromycin (Biaxin) raises simvastatin (Zocor) "
    "levels and the risk of muscle damage. Ask for another antibiotic or pause Zocor.",
    "drug-3": "Monitor: ibuprofen may reduce lisinopril's effect; check blood pressure.",
    "drug-4": "Hold metformin on the day of the scan and restart after 48 h.",
    "drug-5": "Avoid: the two together can cause serotonin syndrome.",
}
WRONG = {
    "drug-2": "There is no significant interaction listed; Biaxin and Zocor can be taken "
    "together as prescribed.",
}

# Reasoning text as a reasoning model writes it: long enough that folding matters (~2.6 KB).
THINKING = " ".join(
    [
        "Let me think about which enzyme pathways are involved here and whether the tool",
        "result changes what the label says. The question is about a combination, so I need",
        "the interaction entry first and then the label's own wording, because the label is",
        "what a pharmacist would read out. I should not rely on memory for the severity.",
    ]
    * 7
)
SUMMARY = (
    "Identify the generic names (Zocor = simvastatin, Biaxin = clarithromycin), then look up "
    "the interaction and the label before answering."
)
# The encrypted block a provider returns for redacted reasoning: opaque base64, never shown.
BLOB = base64.b64encode(hashlib.shake_256(b"evaltui redacted reasoning").digest(2400)).decode()


def _usage(input_tokens: int, output_tokens: int, reasoning: int) -> ModelUsage:
    return ModelUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        reasoning_tokens=reasoning,
    )


def _assistant(text: str, reasoning: list[ContentReasoning] | None = None) -> list:
    return [*(reasoning or [ContentReasoning(reasoning=THINKING)]), ContentText(text=text)]


def _call(name: str, args: dict, turn: int, reasoning=None, tokens: int = 900) -> ModelOutput:
    output = ModelOutput.for_tool_call(
        "mockllm/model", name, args, tool_call_id=f"call_{turn}_{name}"
    )
    output.choices[0].message.content = _assistant(f"Calling {name}.", reasoning)
    output.usage = _usage(tokens, 180, 120)
    return output


def _answer(text: str, tokens: int = 1400) -> ModelOutput:
    output = ModelOutput.from_content("mockllm/model", _assistant(text))
    output.usage = _usage(tokens, 90, 60)
    return output


KEYWORDS = {
    "warfarin": "drug-1",
    "zocor": "drug-2",
    "lisinopril": "drug-3",
    "metformin": "drug-4",
    "sertraline": "drug-5",
}


def _item(messages) -> str:
    """Which sample a conversation is: its first user message names a drug."""
    first = next(m for m in messages if m.role == "user").text.lower()
    for word, item in KEYWORDS.items():
        if word in first:
            return item
    raise ValueError(f"unknown prompt: {first!r}")


# Seconds each arm's model "thinks" per generation: the candidate is the slower one, so time
# and working time differ between the runs by design (Inspect measures them).
LATENCY = {"baseline": 0.05, "candidate": 0.08}


class Script:
    """One arm's model: the next output from the sample and the number of turns so far."""

    def __init__(self, arm: str) -> None:
        self.arm = arm
        self.failed_once: set[str] = set()

    async def __call__(self, messages, tools, tool_choice, config) -> ModelOutput:
        await asyncio.sleep(LATENCY[self.arm])
        item = _item(messages)
        turn = sum(isinstance(m, ChatMessageAssistant) for m in messages)
        a, b = PAIRS[item]
        if item == "drug-3" and self.arm == "candidate" and item not in self.failed_once:
            self.failed_once.add(item)  # the first attempt only: the retry succeeds
            raise RuntimeError("mock provider overloaded (HTTP 529)")
        if item == "drug-5" and self.arm == "candidate":
            raise RuntimeError("mock provider rejected the request: context window exceeded")
        if item == "drug-4":
            return self._drug4(turn)
        steps: list[ModelOutput]
        if item == "drug-2" and self.arm == "baseline":
            redacted = [ContentReasoning(reasoning=BLOB, redacted=True, summary=SUMMARY)]
            steps = [
                _call("check_interaction", {"drug_a": "Zocor + Biaxin"}, 0, redacted),
                _call("check_interaction", {"drug_a": a, "drug_b": b}, 1),
                _call("check_label", {"drug": a}, 2),
                _answer(ANSWERS[item]),
            ]
        else:
            label = b if item in ("drug-1", "drug-3", "drug-5") else a
            final = WRONG.get(item) if self.arm == "candidate" else None
            steps = [
                _call("check_interaction", {"drug_a": a, "drug_b": b}, 0),
                _call("check_label", {"drug": label}, 1),
                _answer(final or ANSWERS[item]),
            ]
        return steps[min(turn, len(steps) - 1)]

    def _drug4(self, turn: int) -> ModelOutput:
        """Never answers: the baseline spends tokens fast (token limit), the candidate keeps
        calling the label tool (message limit)."""
        if self.arm == "baseline":
            return _call("check_label", {"drug": "metformin"}, turn, tokens=9000)
        return _call("check_label", {"drug": "metformin"}, turn, tokens=600)


@scorer(metrics=[accuracy()])
def cites_label():
    """Whether the answer rests on the label the agent read (with an explanation)."""

    async def score(state: TaskState, target: Target) -> Score:
        read = [m for m in state.messages if m.role == "tool" and m.function == "check_label"]
        if not read:
            return Score(value=INCORRECT, explanation="no label was read before answering")
        return Score(
            value=CORRECT,
            explanation=f"read {len(read)} label(s); last: {read[-1].text[:60]}",
        )

    return score


@task
def drug_interactions():
    return Task(
        dataset=SAMPLES,
        solver=[
            system_message("You are a careful pharmacist. Use the tools; answer briefly."),
            use_tools(check_interaction(), check_label()),
            generate(),
        ],
        scorer=[includes(), cites_label()],
        epochs=2,
        message_limit=14,
        token_limit=20_000,
    )


def main() -> None:
    out = HERE
    for arm in ("baseline", "candidate"):
        model = get_model("mockllm/model", custom_outputs=Script(arm), memoize=False)
        with tempfile.TemporaryDirectory() as tmp:
            [log] = eval(
                drug_interactions(),
                model=model,
                log_dir=tmp,
                log_format="eval",
                fail_on_error=False,
                retry_on_error=1,
                display="none",
                max_samples=1,
            )
            target = out / f"drug_interactions_{arm}.eval"
            shutil.copyfile(log.location, target)
            print(f"{target.name}: {target.stat().st_size:,} bytes, status {log.status}")


if __name__ == "__main__":
    sys.exit(main())
