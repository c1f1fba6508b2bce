"""Drawing the two sides of an item (their transcripts) and the diff of the two outputs, inertly.

The two transcripts are drawn as one renderable of aligned rows, one row per section (each
message, the output, the target, the grader's explanation), so the same turn of both sides
starts on the same line and one scroll offset moves both: they cannot drift apart.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from evaltui.core.read.runs import Transcript
from evaltui.core.textsafe import inert, one_line
from evaltui.ui.safe import literal
from evaltui.ui.styles import style_of

ROLE_STYLE = {role: style_of(f"role--{role}") for role in ("system", "user", "assistant", "tool")}
OUTPUT_STYLE = style_of("section--output")
TARGET_STYLE = style_of("section--target")


MAX_SHOWN = 100_000  # characters per section: a 1 MB output must not freeze the screen
MATCH_STYLE = Style(reverse=True, bold=True)  # search matches: an attribute, not a colour


@dataclass(frozen=True)
class Section:
    """One titled part of a transcript: a message, the output, the target, the explanation."""

    key: str  # how the two sides' sections are aligned: "m0", "m1", ..., "output", "target"
    title: str
    body: str | None
    style: str | Style = "bold"
    role: str = ""  # the message's role ("" for the other sections)
    note: bool = False  # a status line of ours, not text from the run


def sections(t: Transcript) -> list[Section]:
    """The whole conversation by role when there is one; input/output otherwise; then the rest."""
    out: list[Section] = []
    if t.messages:
        for i, message in enumerate(t.messages):
            style = ROLE_STYLE.get(message.role, "bold")
            out.append(Section(f"m{i}", message.role, message.content, style, message.role))
        if t.output and t.output != t.messages[-1].content:
            out.append(Section("output", "output", t.output, OUTPUT_STYLE))
    else:
        out.append(Section("m0", "input", t.input, ROLE_STYLE["user"], "user"))
        out.append(Section("output", "output", t.output, OUTPUT_STYLE))
    if t.target is not None:
        out.append(Section("target", "target", t.target, TARGET_STYLE))
    if t.explanation is not None:
        out.append(Section("grader", "grader", t.explanation, style_of("section--grader")))
    if t.metadata:
        body = "\n".join(f"{k}: {v}" for k, v in t.metadata.items())
        out.append(Section("metadata", "metadata", body, "dim"))
    if not t.complete:
        out.append(Section("status", "", "(reading the messages…)", "dim", note=True))
    elif not (t.messages or t.input or t.output or t.target or t.explanation):
        body = "(this run recorded no transcript for the item)"
        out.append(Section("status", "", body, "dim", note=True))
    return out


def final_answer_key(t: Transcript) -> str | None:
    """The section holding the final answer: the output, else the last assistant message."""
    keys = [s.key for s in sections(t)]
    if "output" in keys:
        return "output"
    for i in range(len(t.messages) - 1, -1, -1):
        if t.messages[i].role == "assistant":
            return f"m{i}"
    return None


def section_text(section: Section, needle: str = "") -> Text:
    """One section as inert Text: our header line, then the run's text literally."""
    text = Text()
    if section.note:
        text.append(section.body or "", style=section.style)
        return text
    text.append(f"── {one_line(section.title, 60)} ", style=section.style)  # a role: untrusted
    text.append("─" * 8 + "\n", style="dim")
    body = section.body if section.body else "(empty)"
    content = literal(body[:MAX_SHOWN])
    if needle:
        content.highlight_words([needle], MATCH_STYLE, case_sensitive=False)
    text.append_text(content)
    if len(body) > MAX_SHOWN:
        text.append(
            f"\n… {len(body) - MAX_SHOWN:,} more characters not shown",
            style=style_of("caution--strong"),
        )
    return text


def transcript_text(t: Transcript, title: str = "") -> Text:
    """One side as a single Text (the sections one after another)."""
    text = Text()
    if title:
        text.append(f" {title} ", style="bold reverse")
        text.append("\n\n")
    for section in sections(t):
        text.append_text(section_text(section))
        text.append("\n" if section.note else "\n\n")
    return text


def aligned_keys(left: Sequence[Section], right: Sequence[Section]) -> list[str]:
    """Row keys for two sides: messages by position, then output, target, grader, metadata."""
    keys: list[str] = []
    for side in (left, right):
        for section in side:
            if section.key not in keys:
                keys.append(section.key)
    order = {"output": 1, "target": 2, "grader": 3, "metadata": 4, "status": 5}

    def rank(key: str) -> tuple[int, int]:
        if key.startswith("m") and key[1:].isdigit():
            return (0, int(key[1:]))
        return (order.get(key, 6), 0)

    return sorted(keys, key=rank)


DIVIDER = " │ "


@dataclass(eq=False)
class SideBySide:
    """Rows of two cells drawn in two equal columns, each row as tall as its taller cell.

    Rendered by Rich at whatever width the widget has; the line each row starts on is kept
    per width (`row_starts`), so the screen can jump to a row exactly.
    """

    rows: list[tuple[RenderableType | None, RenderableType | None]]
    keys: list[str] = field(default_factory=list)
    row_gap: int = 1  # blank lines after each row
    divider_style: Style = field(default_factory=lambda: style_of("divider"))
    _cache: dict[int, tuple[list[list[Segment]], list[int]]] = field(default_factory=dict)

    def split(self, width: int) -> tuple[int, int]:
        left = max((width - len(DIVIDER)) // 2, 1)
        return left, max(width - len(DIVIDER) - left, 1)

    def lines(self, console: Console, options: ConsoleOptions) -> list[list[Segment]]:
        width = options.max_width
        if width in self._cache:
            return self._cache[width][0]
        left_w, right_w = self.split(width)
        out: list[list[Segment]] = []
        starts: list[int] = []
        blank_style = Style()
        for number, (left, right) in enumerate(self.rows):
            starts.append(len(out))
            cells: list[list[list[Segment]]] = []
            for cell, w in ((left, left_w), (right, right_w)):
                rendered = console.render_lines(
                    cell if cell is not None else Text(""),
                    options.update(width=w, height=None),
                    pad=True,
                )
                cells.append(rendered)
            gap = self.row_gap if number < len(self.rows) - 1 else 0
            height = max(len(cells[0]), len(cells[1])) + gap
            for i in range(height):
                row: list[Segment] = []
                for j, (lines, w) in enumerate(zip(cells, (left_w, right_w), strict=True)):
                    if i < len(lines):
                        row.extend(lines[i])
                    else:
                        row.append(Segment(" " * w, blank_style))
                    if j == 0:
                        row.append(Segment(DIVIDER, self.divider_style))
                out.append(row)
        self._cache = {width: (out, starts)}
        return out

    def row_starts(self, width: int) -> list[int]:
        """The first line of each row at `width` (empty until drawn at that width)."""
        entry = self._cache.get(width)
        return entry[1] if entry else []

    @property
    def drawn_width(self) -> int | None:
        return next(iter(self._cache), None)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        new_line = Segment.line()
        for row in self.lines(console, options):
            yield from row
            yield new_line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(len(DIVIDER) + 2, options.max_width)

    def plain(self, column: int) -> str:
        """The text of one column (0 left, 1 right), for tests and search."""
        parts = []
        for row in self.rows:
            cell = row[column]
            parts.append(_plain(cell))
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.plain(0) + "\n" + self.plain(1)


def _plain(cell: RenderableType | None) -> str:
    if cell is None:
        return ""
    if isinstance(cell, Text):
        return cell.plain
    return str(cell)


def side_by_side(
    base: Transcript, cand: Transcript, needle: str = ""
) -> tuple[SideBySide, list[tuple[Section | None, Section | None]]]:
    """Both transcripts as aligned rows; also each row's two sections (None: that side has none)."""
    left, right = sections(base), sections(cand)
    by_key = [{s.key: s for s in left}, {s.key: s for s in right}]
    keys = aligned_keys(left, right)
    pairs = [(by_key[0].get(k), by_key[1].get(k)) for k in keys]
    rows = [
        tuple(section_text(s, needle) if s is not None else None for s in pair) for pair in pairs
    ]
    return SideBySide(rows=rows, keys=keys), pairs  # type: ignore[arg-type]


def labels(left: Text, right: Text) -> SideBySide:
    """The fixed line above the panes, split exactly like them."""
    return SideBySide(rows=[(left, right)], keys=["labels"], row_gap=0)


WORD_DIFF_LIMIT = 20_000  # characters per changed block compared word by word (quadratic)
GUTTER = 2  # "- " / "+ " / "  " before every screen line of the diff, wrapped ones too
DIFF_STYLE = {
    "-": (style_of("diff--removed"), style_of("diff--removed-word")),
    "+": (style_of("diff--added"), style_of("diff--added-word")),
    " ": (Style(), Style()),
    "@": (style_of("diff--hunk"), style_of("diff--hunk")),
    "=": (Style(bold=True), Style(bold=True)),
}
_TOKEN = re.compile(r"\n|[^\S\n]+|\w+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class DiffLine:
    """One line of the diff: its marker (`-` baseline only, `+` candidate only, ` ` both, `@`
    a hunk's position, `=` a file header) and its text, literal, with changed words styled."""

    marker: str
    text: Text


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _word_diff(old: list[str], new: list[str]) -> tuple[list[Text], list[Text]]:
    """Two changed blocks compared word by word: each side's lines, the words only that side
    has in reverse video (an attribute, so the highlight survives NO_COLOR)."""
    a, b = _tokens("\n".join(old)), _tokens("\n".join(new))
    line_style = {"-": DIFF_STYLE["-"][0], "+": DIFF_STYLE["+"][0]}
    word_style = {"-": DIFF_STYLE["-"][1], "+": DIFF_STYLE["+"][1]}
    sides = {"-": Text(), "+": Text()}

    def emit(marker: str, tokens: list[str], changed: bool) -> None:
        # A changed run is highlighted from its first word to its last, spaces between them
        # included, so it reads as one phrase; spaces at its ends and line breaks are not.
        words = [i for i, t in enumerate(tokens) if not t.isspace()] if changed else []
        first, last = (words[0], words[-1]) if words else (len(tokens), -1)
        for i, token in enumerate(tokens):
            if token == "\n":
                sides[marker].append("\n")
            elif first <= i <= last:
                sides[marker].append(inert(token), word_style[marker])
            else:
                sides[marker].append(inert(token), line_style[marker])

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        emit("-", a[i1:i2], op != "equal")
        emit("+", b[j1:j2], op != "equal")
    return (
        list(sides["-"].split("\n", allow_blank=True)),
        list(sides["+"].split("\n", allow_blank=True)),
    )


def diff_lines(old: str, new: str, context: int = 3) -> list[DiffLine]:
    """A unified diff of two texts, line by line, and word by word inside changed lines."""
    a, b = old[:MAX_SHOWN].splitlines(), new[:MAX_SHOWN].splitlines()
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    groups = list(matcher.get_grouped_opcodes(context))
    if not groups or (len(groups) == 1 and all(op[0] == "equal" for op in groups[0])):
        return []
    out = [
        DiffLine("=", Text("--- baseline output")),
        DiffLine("=", Text("+++ candidate output")),
    ]
    for group in groups:
        first, last = group[0], group[-1]
        out.append(
            DiffLine(
                "@",
                Text(
                    f"@@ -{first[1] + 1},{last[2] - first[1]} "
                    f"+{first[3] + 1},{last[4] - first[3]} @@",
                    style=DIFF_STYLE["@"][0],
                ),
            )
        )
        for op, i1, i2, j1, j2 in group:
            if op == "equal":
                out += [DiffLine(" ", literal(line)) for line in a[i1:i2]]
                continue
            old_lines, new_lines = a[i1:i2], b[j1:j2]
            size = sum(map(len, old_lines)) + sum(map(len, new_lines))
            if op == "replace" and size <= WORD_DIFF_LIMIT:
                old_texts, new_texts = _word_diff(old_lines, new_lines)
            else:
                old_texts = [literal(line, style=DIFF_STYLE["-"][0]) for line in old_lines]
                new_texts = [literal(line, style=DIFF_STYLE["+"][0]) for line in new_lines]
            out += [DiffLine("-", t) for t in old_texts]
            out += [DiffLine("+", t) for t in new_texts]
    if len(old) > MAX_SHOWN or len(new) > MAX_SHOWN:
        note = Text(f"… only the first {MAX_SHOWN:,} characters of each output are compared")
        out.append(DiffLine("=", note))
    return out


@dataclass(eq=False)
class DiffView:
    """Diff lines drawn with their marker in a gutter on every screen line, so a wrapped line
    still says which side it belongs to (and the marker, not the colour, says it)."""

    lines: list[DiffLine]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width - GUTTER, 8)
        inner = options.update(width=width, height=None)
        new_line = Segment.line()
        if not self.lines:
            yield Text("The two outputs are identical.", style="dim")
            return
        for line in self.lines:
            marker = line.marker if line.marker in "-+" else " "
            style = DIFF_STYLE.get(line.marker, DIFF_STYLE[" "])[0] + Style(bold=True)
            for rendered in console.render_lines(line.text, inner, pad=False):
                yield Segment(f"{marker} ", style)
                yield from rendered
                yield new_line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(GUTTER + 8, options.max_width)

    def __str__(self) -> str:
        if not self.lines:
            return "The two outputs are identical."
        return "\n".join(
            (f"{line.marker} " if line.marker in "-+" else "") + line.text.plain
            for line in self.lines
        )


def context_text(base: Transcript, cand: Transcript, verdicts: tuple[str, str] = ("", "")) -> Text:
    """What the diff is judged against: the target, and each grader's explanation."""
    text = Text()
    targets = [t.target for t in (base, cand) if t.target is not None]
    same_target = len(targets) == 2 and targets[0] == targets[1]
    shown = False
    if same_target or len(targets) == 1:
        text.append_text(section_text(Section("target", "target", targets[0], TARGET_STYLE)))
        text.append("\n\n")
        shown = True
    for arm, t, verdict in (("baseline", base, verdicts[0]), ("candidate", cand, verdicts[1])):
        title = f"{arm} {verdict}".strip()
        if t.target is not None and not same_target and len(targets) == 2:
            text.append_text(section_text(Section("target", f"target · {arm}", t.target)))
            text.append("\n\n")
            shown = True
        if t.explanation is not None:
            body = t.explanation
            text.append_text(section_text(Section("grader", f"grader · {title}", body, "bold")))
            text.append("\n\n")
            shown = True
    if not shown:
        text.append("(no target or grader explanation recorded)", style="dim")
    return text


def output_diff(
    baseline: Transcript, candidate: Transcript, verdicts: tuple[str, str] = ("", "")
) -> DiffWithContext:
    """The two outputs' diff, with the target and both graders' explanations beside it."""
    old = baseline.output or _last(baseline) or ""
    new = candidate.output or _last(candidate) or ""
    return DiffWithContext(
        DiffView(diff_lines(old, new)), context_text(baseline, candidate, verdicts)
    )


SIDE_BY_SIDE_WIDTH = 100  # from this width the target and graders sit beside the diff


@dataclass(eq=False)
class DiffWithContext:
    """The diff and its context: side by side when wide, the context below it when narrow."""

    diff: DiffView
    context: Text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= SIDE_BY_SIDE_WIDTH:
            yield SideBySide(rows=[(self.diff, self.context)], keys=["diff"], row_gap=0)
        else:
            yield self.diff
            yield Text("")
            yield self.context

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(GUTTER + 8, options.max_width)

    def __str__(self) -> str:
        return f"{self.diff}\n\n{self.context.plain}"


def _last(t: Transcript) -> str | None:
    return t.messages[-1].content if t.messages else None


def matching_rows(pairs: Iterable[tuple[Section | None, Section | None]], needle: str) -> list[int]:
    """The rows whose text (either side) holds `needle`, case-insensitively."""
    needle = needle.lower()
    if not needle:
        return []
    out = []
    for i, pair in enumerate(pairs):
        if any(s is not None and needle in (s.body or "").lower() for s in pair):
            out.append(i)
    return out
