"""Which keys each screen's footer shows: the ones that matter there, most important first,
with short labels, and only as many as fit whole.

Textual's Footer shows every binding marked `show` in the order of the focus chain (the focused
widget's first, the app's last) and cuts the line where the terminal ends, mid-word, so the
app's keys (sign off, help, quit) were the first to go at 80 columns and the tag digits, `g`,
`l`, `m`, the filters and the sort never showed at all. A screen with `FooterKeys` names its
footer in `FOOTER`; its `active_bindings` (what the Footer reads) then marks exactly those
shown, in that order, dropping from the end what does not fit the width, and the footer is
redrawn on every resize. The bindings themselves (and the help screen made from them) keep
their full descriptions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from textual.binding import ActiveBinding

TAGS = "tags"  # the tag digits 1..n (as many as the review has tags), shown as one key: 1-5
PALETTE = "palette"  # the command palette's key (Ctrl+P), Textual's own binding
GAP = 1  # columns between two keys in the compact footer


@dataclass(frozen=True)
class Shown:
    """One key in a footer: the binding (by id, or TAGS, PALETTE), its short label, how the
    key is drawn when not as Textual draws it, and when it applies (default: always)."""

    binding: str  # a binding id, "action:NAME" (a widget's own binding), TAGS or PALETTE
    label: str
    key: str | None = None
    when: Callable[[Any], bool] | None = None  # given the screen


def has_gates(screen: Any) -> bool:
    loaded = screen.state.loaded
    return bool(loaded is not None and loaded.gates)


def has_slices(screen: Any) -> bool:
    loaded = screen.state.loaded
    return bool(loaded is not None and loaded.analysis.slices)


def has_metrics(screen: Any) -> bool:
    loaded = screen.state.loaded
    return bool(loaded is not None and len(loaded.analysis.metrics) > 1)


def shared_review(screen: Any) -> bool:
    """A shared review (`--review-dir`): disputes to settle (`C`) may arise."""
    loaded = screen.state.loaded
    return bool(loaded is not None and loaded.session.team is not None)


def tag_count(screen: Any) -> int:
    loaded = screen.state.loaded
    return len(loaded.session.info.tags) if loaded is not None else 0


def entry_width(key: str, label: str) -> int:
    """Columns one key takes in the compact footer: the key, a space, the label."""
    return len(key) + 1 + len(label)


class FooterKeys:
    """Mixed into a Screen (first in its bases): its footer shows `FOOTER`, in order, as many
    as fit whole."""

    FOOTER: tuple[Shown, ...] = ()

    def footer_keys(self) -> list[tuple[str, str]]:
        """What the footer shows now: (key as drawn, label), in order."""
        return [
            (self.app.get_key_display(b.binding), b.binding.description)  # type: ignore[attr-defined]
            for b in self.active_bindings.values()
            if b.binding.show
        ]

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        active: dict[str, ActiveBinding] = super().active_bindings  # type: ignore[misc]
        by_id: dict[str, str] = {}
        by_action: dict[str, str] = {}
        for key, b in active.items():  # a binding of several keys: its first (p, not [)
            if b.binding.id:
                by_id.setdefault(b.binding.id, key)
            by_action.setdefault(b.binding.action, key)
        width = self.size.width  # type: ignore[attr-defined]
        shown: dict[str, ActiveBinding] = {}
        used = -GAP
        for entry in self.FOOTER:
            if entry.when is not None and not entry.when(self):
                continue
            footer_key = self._footer_key(entry, by_id, by_action)
            if footer_key is None or footer_key in shown:
                continue
            active_binding = active[footer_key]
            display = entry.key or self.app.get_key_display(active_binding.binding)  # type: ignore[attr-defined]
            if entry.binding == TAGS:
                display = entry.key or f"1-{tag_count(self)}"
            used += GAP + entry_width(display, entry.label)
            if used > width:
                break  # the rest would be cut: keep the footer to whole keys, most important
            binding = replace(
                active_binding.binding, show=True, description=entry.label, key_display=display
            )
            shown[footer_key] = active_binding._replace(binding=binding)
        hidden = {
            key: b._replace(binding=replace(b.binding, show=False))
            for key, b in active.items()
            if key not in shown
        }
        return {**shown, **hidden}

    def _footer_key(
        self, entry: Shown, by_id: dict[str, str], by_action: dict[str, str]
    ) -> str | None:
        if entry.binding == PALETTE:
            return by_action.get("command_palette")
        if entry.binding == TAGS:
            if not tag_count(self):
                return None
            ids = ("item.tag1", "bulk.tag1", "app.tag1")
            return next((by_id[i] for i in ids if i in by_id), None)
        if entry.binding.startswith("action:"):
            return by_action.get(entry.binding.removeprefix("action:"))
        return by_id.get(entry.binding)

    def on_resize(self, event: Any) -> None:
        self.refresh_bindings()  # type: ignore[attr-defined]  # the footer fits itself anew
