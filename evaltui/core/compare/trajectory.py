"""Two agent trajectories aligned by what the turns are, not by where they are.

Pairing turns by position puts a baseline's tool error beside the candidate's result of a
different call as soon as one run retries once, and the final answers end up rows apart. Here
each message gets a key (its role; for a turn that calls tools, the calls with their arguments;
for a tool result, the call it answers; for system and user turns, their text) and the two key
sequences are aligned by a longest common subsequence. Runs of turns only one side has are
shown as gaps; inside such a run, turns of the same role are paired as "changed" rather than
left as two gaps. The two final answers (each run's last assistant turn, when it calls no
tool) are always paired.

Pure: no terminal, no styling. The item view, `evaltui show` and the tests read the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaltui.core.read.runs import Message

MAX_CELLS = 1_000_000  # LCS table cells (two 1,000-turn runs: ~0.3 s); beyond it, by position


@dataclass(frozen=True)
class AlignedTurn:
    """One row: the baseline's and the candidate's message index (None: a gap on that side),
    and whether the two say the same thing (their text, calls and results; reasoning aside)."""

    base: int | None
    cand: int | None
    same: bool


@dataclass(frozen=True)
class TrajectoryCounts:
    """Per run: messages, tool calls made, tool calls that failed."""

    messages: tuple[int, int]
    tool_calls: tuple[int, int]
    tool_errors: tuple[int, int]

    def words(self) -> str:
        """`9 vs 7 messages, 3 vs 2 tool calls, 1 vs 0 tool errors` (calls and errors only
        when a run has some)."""
        parts = [f"{self.messages[0]} vs {self.messages[1]} messages"]
        if any(self.tool_calls):
            parts.append(f"{self.tool_calls[0]} vs {self.tool_calls[1]} tool calls")
        if any(self.tool_errors):
            parts.append(f"{self.tool_errors[0]} vs {self.tool_errors[1]} tool errors")
        return ", ".join(parts)


@dataclass(frozen=True)
class Alignment:
    """The aligned rows, the first row where the runs diverge (None: they never do), the row
    holding both final answers (None: neither run answered) and the counts."""

    rows: tuple[AlignedTurn, ...]
    first_divergence: int | None
    final_row: int | None
    counts: TrajectoryCounts
    by_position: bool = False  # too long to align by content: paired by position instead


def turn_key(message: Message) -> tuple[str, ...]:
    """What a turn is, for the alignment: the role, and the calls it makes or answers; a
    system or user turn also by its text. An assistant turn without calls is "an answer"."""
    role = message.role
    if message.calls:
        return (role, *message.calls)
    if role in ("system", "user"):
        return (role, message.content.strip())
    return (role,)


def turn_essence(message: Message) -> tuple[str, ...]:
    """What a turn says, reasoning aside: two turns with the same essence are the same turn
    (reasoning differs from run to run even when the actions do not)."""
    if not message.blocks:
        return (message.role, message.content.strip())
    parts = [message.role]
    for block in message.blocks:
        if block.kind in ("reasoning", "redacted"):
            continue
        parts.append(f"{block.kind}:{block.name}:{block.text.strip()}:{block.size}")
    return tuple(parts)


def final_answer(messages: Sequence[Message]) -> int | None:
    """The index of the run's final answer: its last assistant turn, unless that turn calls a
    tool (a run stopped by a limit or an error mid-task gave no answer); None then."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant":
            return None if messages[i].calls else i
    return None


def counts(base: Sequence[Message], cand: Sequence[Message]) -> TrajectoryCounts:
    def calls(ms: Sequence[Message]) -> int:
        return sum(len(m.calls) for m in ms if m.role == "assistant")

    def errors(ms: Sequence[Message]) -> int:
        return sum(1 for m in ms for b in m.blocks if b.kind == "tool_error")

    return TrajectoryCounts(
        messages=(len(base), len(cand)),
        tool_calls=(calls(base), calls(cand)),
        tool_errors=(errors(base), errors(cand)),
    )


def align(base: Sequence[Message], cand: Sequence[Message]) -> Alignment:
    """Align two message sequences by content (see the module's docstring)."""
    if len(base) * len(cand) > MAX_CELLS:
        pairs = _by_position(range(len(base)), range(len(cand)))
        return _finish(base, cand, pairs, by_position=True)
    fb, fc = final_answer(base), final_answer(cand)
    if fb is None or fc is None:
        pairs = _align_range(base, cand, range(len(base)), range(len(cand)))
    else:
        pairs = _align_range(base, cand, range(fb), range(fc))
        pairs.append((fb, fc))
        pairs += _align_range(base, cand, range(fb + 1, len(base)), range(fc + 1, len(cand)))
    return _finish(base, cand, pairs)


def _finish(
    base: Sequence[Message],
    cand: Sequence[Message],
    pairs: list[tuple[int | None, int | None]],
    by_position: bool = False,
) -> Alignment:
    rows = tuple(
        AlignedTurn(
            b, c, b is not None and c is not None and turn_essence(base[b]) == turn_essence(cand[c])
        )
        for b, c in pairs
    )
    first = next((i for i, row in enumerate(rows) if not row.same), None)
    fb, fc = final_answer(base), final_answer(cand)
    finals = [
        i
        for i, r in enumerate(rows)
        if (fb is not None and r.base == fb) or (fc is not None and r.cand == fc)
    ]
    final = finals[0] if finals else None
    return Alignment(rows, first, final, counts(base, cand), by_position)


def _align_range(
    base: Sequence[Message], cand: Sequence[Message], bs: range, cs: range
) -> list[tuple[int | None, int | None]]:
    """LCS over the turn keys of two ranges; the unmatched stretches between two matches are
    paired role by role (`_fill_gap`)."""
    keys_b = [turn_key(base[i]) for i in bs]
    keys_c = [turn_key(cand[j]) for j in cs]
    matches = _lcs(keys_b, keys_c)
    out: list[tuple[int | None, int | None]] = []
    pb, pc = 0, 0
    for mb, mc in [*matches, (len(keys_b), len(keys_c))]:
        gap_b = [bs[i] for i in range(pb, mb)]
        gap_c = [cs[j] for j in range(pc, mc)]
        out += _fill_gap(base, cand, gap_b, gap_c)
        if mb < len(keys_b):
            out.append((bs[mb], cs[mc]))
        pb, pc = mb + 1, mc + 1
    return out


def _fill_gap(
    base: Sequence[Message], cand: Sequence[Message], gap_b: list[int], gap_c: list[int]
) -> list[tuple[int | None, int | None]]:
    """Turns only one side has between two matched turns: the same roles paired (a changed
    turn), the rest shown against a gap."""
    if not gap_b or not gap_c:
        return [(b, None) for b in gap_b] + [(None, c) for c in gap_c]
    roles = _lcs([(base[i].role,) for i in gap_b], [(cand[j].role,) for j in gap_c])
    out: list[tuple[int | None, int | None]] = []
    pb, pc = 0, 0
    for mb, mc in [*roles, (len(gap_b), len(gap_c))]:
        out += [(gap_b[i], None) for i in range(pb, mb)]
        out += [(None, gap_c[j]) for j in range(pc, mc)]
        if mb < len(gap_b):
            out.append((gap_b[mb], gap_c[mc]))
        pb, pc = mb + 1, mc + 1
    return out


def _lcs(a: list[tuple[str, ...]], b: list[tuple[str, ...]]) -> list[tuple[int, int]]:
    """The index pairs of a longest common subsequence of `a` and `b` (dynamic programming;
    among equally long ones the latest match on the left is kept, so when a run repeats a
    call, its retry (not its failed first attempt) is paired with the other run's call)."""
    n, m = len(a), len(b)
    if not n or not m:
        return []
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if a[i] == b[j] else max(below[j], row[j + 1])
    out = []
    i = j = 0
    while i < n and j < m:
        if table[i + 1][j] == table[i][j]:
            i += 1
        elif a[i] == b[j]:
            out.append((i, j))
            i += 1
            j += 1
        else:
            j += 1
    return out


def _by_position(bs: range, cs: range) -> list[tuple[int | None, int | None]]:
    n = max(len(bs), len(cs))
    return [(bs[i] if i < len(bs) else None, cs[i] if i < len(cs) else None) for i in range(n)]
