"""Drawing one side of an item (its transcript) and the diff of the two outputs, inertly."""

from __future__ import annotations

import difflib

from rich.text import Text

from evaltui.core.runs import Transcript
from evaltui.ui.safe import literal

ROLE_STYLE = {
    "system": "bold magenta",
    "user": "bold cyan",
    "assistant": "bold green",
    "tool": "bold yellow",
}


MAX_SHOWN = 100_000  # characters per section: a 1 MB output must not freeze the screen


def _section(text: Text, title: str, body: str | None, style: str = "bold") -> None:
    text.append(f"── {title} ", style=style)
    text.append("─" * 8 + "\n", style="dim")
    body = body if body else "(empty)"
    text.append_text(literal(body[:MAX_SHOWN]))
    if len(body) > MAX_SHOWN:
        text.append(f"\n… {len(body) - MAX_SHOWN:,} more characters not shown", style="bold yellow")
    text.append("\n\n")


def transcript_text(t: Transcript, title: str = "") -> Text:
    """The whole conversation by role when there is one; input/output otherwise; then the rest."""
    text = Text()
    if title:
        text.append(f" {title} ", style="bold reverse")
        text.append("\n\n")
    if t.messages:
        for message in t.messages:
            _section(text, message.role, message.content, ROLE_STYLE.get(message.role, "bold"))
        if t.output and t.output != t.messages[-1].content:
            _section(text, "output", t.output, "bold green")
    else:
        _section(text, "input", t.input, "bold cyan")
        _section(text, "output", t.output, "bold green")
    if t.target is not None:
        _section(text, "target", t.target, "bold blue")
    if t.explanation is not None:
        _section(text, "grader", t.explanation, "bold yellow")
    if t.metadata:
        _section(text, "metadata", "\n".join(f"{k}: {v}" for k, v in t.metadata.items()), "dim")
    if not t.complete:
        text.append("(reading the messages…)", style="dim")
    elif not (t.messages or t.input or t.output or t.target or t.explanation):
        text.append("(this run recorded no transcript for the item)", style="dim")
    return text


def output_diff(baseline: Transcript, candidate: Transcript) -> Text:
    """A unified diff of the two outputs, line by line; markers styled, content literal."""
    old = (baseline.output or _last(baseline) or "").splitlines()
    new = (candidate.output or _last(candidate) or "").splitlines()
    text = Text()
    lines = list(
        difflib.unified_diff(old, new, "baseline output", "candidate output", lineterm="", n=3)
    )
    if not lines:
        text.append("The two outputs are identical.", style="dim")
        return text
    for line in lines:
        style = ""
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        text.append_text(literal(line[:MAX_SHOWN], style=style))
        if len(line) > MAX_SHOWN:
            text.append(f" … {len(line) - MAX_SHOWN:,} more characters", style="bold yellow")
        text.append("\n")
    return text


def _last(t: Transcript) -> str | None:
    return t.messages[-1].content if t.messages else None
