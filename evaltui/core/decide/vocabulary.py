"""The words every decision speaks: its statuses, their exit codes, and its first line in parts.

Each design (the pair, the independent comparison, the run set, preferences) decides in its own
module, but all of them say the result the same way: a status from `STATUSES`, the reasons as
`Reason`s, and a first line held as data (`FirstLine`: the status, the context, the reasons'
short words, the effect) that `compose_line` turns into the one string every surface shows. A
surface that styles the line (the app's header, the Markdown sign-off) styles these parts; it
never cuts the string apart, so changing what the first line says is one edit here.
"""

from __future__ import annotations

from dataclasses import dataclass

# In the order they win: the first that applies is the decision's status.
STATUSES = ("not_comparable", "blocked", "not_enough_data", "needs_review", "ready")
STATUS_WORDS = {
    "not_comparable": "NOT COMPARABLE",
    "blocked": "BLOCKED",
    "not_enough_data": "NOT ENOUGH DATA",
    "needs_review": "NEEDS REVIEW",
    "ready": "READY TO APPROVE",
}
# Not a decision's status: what the status slot says while the analysis that decides is still
# running (the app's first screen comes before the cluster bootstrap and the metric family).
# It has no exit code and is never recorded or printed by a headless command: nothing is final.
DECIDING = "deciding"
DECIDING_WORD = "DECIDING…"
EXIT_READY = 0  # ready, or needs review: nothing blocks, reviewer work may be pending
EXIT_BLOCKED = 1
EXIT_NO_VERDICT = 4  # not enough data, or not comparable: a CI job must not pass on it
EXIT_CODES = {
    "not_comparable": EXIT_NO_VERDICT,
    "blocked": EXIT_BLOCKED,
    "not_enough_data": EXIT_NO_VERDICT,
    "needs_review": EXIT_READY,
    "ready": EXIT_READY,
}
VERDICT_SHORT = {
    "improved": "improved",
    "regressed": "regressed",
    "no_significant_difference": "no significant difference",
    "insufficient_data": "no verdict",
}
SHOWN_REASONS = 4  # on the first line; every reason is listed in full below it
SEPARATOR = " · "  # between the first line's parts


@dataclass(frozen=True)
class Reason:
    """One thing the decision rests on: plain words with the numbers, and the items."""

    kind: str
    text: str  # the full sentence, for the lines below the first
    short: str  # the few words the first line carries
    blocking: bool = False
    item_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Effect:
    """An effect as the first line says it, in parts: "mean Δ" (what is measured, when it must
    be said), "+6.0 pts" (the estimate with its unit), "[-0.7, +12.4]" (the interval the
    verdict rests on; "" when there is none), "(clusters)" (which interval it is), and the
    verdict in words ("" when the surface says it elsewhere, as the run-set matrix does)."""

    estimate: str
    interval: str = ""
    qualifier: str = ""
    verdict: str = ""
    measure: str = ""

    @property
    def text(self) -> str:
        out = f"{self.measure} {self.estimate}" if self.measure else self.estimate
        for part in (self.interval, self.qualifier):
            if part:
                out += f" {part}"
        return f"{out}, {self.verdict}" if self.verdict else out


@dataclass(frozen=True)
class CandidateEffect:
    """One candidate's effect on a line about several (the run set, preferences). With a
    `status` (a run set's pair), the first line names the candidate and its pair's status."""

    name: str
    effect: Effect
    status: str | None = None
    subject: str = ""  # the scorer the effect is of, when the runs carry several ("safe_advice")

    @property
    def text(self) -> str:
        effect = f"{self.subject} {self.effect.text}" if self.subject else self.effect.text
        if self.status is None:
            return effect
        return f"{self.name}: {STATUS_WORDS[self.status].lower()}, {effect}"


@dataclass(frozen=True)
class FirstLine:
    """The parts of a decision's first line, in the order they are said: the status word,
    the context (the design's label, "3 runs against base"), the reasons' short words (already
    cut to `SHOWN_REASONS`, "+N more" after them), the overall effect or each candidate's
    (`versus` names the baseline a preference line reads them against), then any notes (the
    run set's omnibus test)."""

    status: str
    reasons: tuple[str, ...] = ()
    effect: Effect | None = None
    context: tuple[str, ...] = ()
    candidates: tuple[CandidateEffect, ...] = ()
    versus: str | None = None
    notes: tuple[str, ...] = ()
    subject: str = "overall"  # what the effect is of: "overall", or the metric's name
    progress: str = ""  # while deciding: what the analysis is computing, how far it got

    @classmethod
    def deciding(
        cls,
        waiting_for: str,
        reasons: tuple[str, ...] = (),
        effect: Effect | None = None,
        step: int | None = None,
        steps: int | None = None,
    ) -> FirstLine:
        """The line shown while the analysis that decides is still running: "DECIDING…
        (clusters, step 1 of 3)", then only what is already final (the reasons' short words
        that no pending part can change, the estimate without its interval or verdict), so
        no status or verdict word is shown before it is known."""
        progress = waiting_for
        if step is not None and steps is not None:
            progress += f", step {step} of {steps}"
        return cls(DECIDING, reasons, effect, progress=progress)

    @property
    def final(self) -> bool:
        """Whether this line says a decision (False while still deciding)."""
        return self.status != DECIDING

    def progressed(self, what: str, step: int, steps: int) -> FirstLine:
        """A deciding line saying how far the analysis got ("clusters, step 1 of 3"); a final
        line is returned as it is (a late progress report never overwrites a decision)."""
        if self.final:
            return self
        return FirstLine.deciding(what, self.reasons, self.effect, step, steps)

    @property
    def word(self) -> str:
        """The status in words: the part every surface styles (reverse video, bold). While
        deciding, what is being computed is part of it ("DECIDING… (clusters, step 1 of 3)"):
        the status slot says why there is no status yet."""
        if self.status == DECIDING:
            return f"{DECIDING_WORD} ({self.progress})" if self.progress else DECIDING_WORD
        return STATUS_WORDS[self.status]

    @property
    def rest(self) -> tuple[str, ...]:
        """Every part after the status word, in order."""
        parts = [*self.context, *self.reasons]
        if self.effect is not None:
            parts.append(f"{self.subject} {self.effect.text}")
        if self.candidates and self.versus is not None:
            parts.append(f"vs {self.versus}: " + "; ".join(c.text for c in self.candidates))
        else:
            parts += [c.text for c in self.candidates]
        return (*parts, *self.notes)


def shown_reasons(shorts: list[str]) -> tuple[str, ...]:
    """The reasons' short words the first line has room for, "+N more" after them."""
    if len(shorts) > SHOWN_REASONS:
        return (*shorts[:SHOWN_REASONS], f"+{len(shorts) - SHOWN_REASONS} more")
    return tuple(shorts)


def compose_line(parts: FirstLine) -> str:
    """The first line: what the app's header, every report and every sign-off print first.
    A surface that styles the status word prints `parts.word` its way, then `after_word`."""
    return parts.word + after_word(parts)


def after_word(parts: FirstLine) -> str:
    """The first line after its status word, from its separator on (" · 9 of 9 untriaged ·
    overall ..."): what a surface appends, unstyled, after the word it styles."""
    return "".join(SEPARATOR + part for part in parts.rest)


def worst_status(statuses: list[str]) -> str:
    """The status that wins among several (a run set's pairs)."""
    return min(statuses, key=STATUSES.index)


def split_line(status: str, line: str) -> tuple[str, str]:
    """A line `compose_line` wrote, read back from a record (JSON keeps the line, not its
    parts): the status word and the rest after the separator, for a surface that styles the
    word (the sign-off Markdown). A line that does not start with its status word (a record
    edited by hand) is all rest."""
    word = STATUS_WORDS.get(status, "")
    if word and line.startswith(word):
        return word, line[len(word) :].removeprefix(SEPARATOR)
    return "", line


class ComposedLine:
    """What every design's decision shares: its first line composed from its parts by the one
    composer, and the exit code its status gives. A decision dataclass names `status` and
    `first_line` and inherits these, so no design writes its own line or code."""

    status: str
    first_line: FirstLine

    @property
    def line(self) -> str:
        """The first line on every surface (`compose_line`)."""
        return compose_line(self.first_line)

    @property
    def exit_code(self) -> int:
        if self.status == DECIDING:  # a bug: nothing is printed or recorded before it is final
            raise ValueError("a decision still being made has no exit code")
        return EXIT_CODES[self.status]

    @property
    def final(self) -> bool:
        """Whether this is a decision (False while the analysis that decides still runs)."""
        return self.status != DECIDING
