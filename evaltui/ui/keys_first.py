"""A key read from the terminal goes before the background readers (a mixin of the app).

The item screen holds the background gate (`background_gate.py`) from its handler on, but an
Enter that lands while the previews' and search index's readers run first waits for the UI
thread to reach it: the readers' Python loops share the GIL with it, and the list redraws they
posted are queued before the key. At a million items that wait was most of the item open
(about 200-390 ms from the key to the item screen's handler in a traced reopen). So the key
holds the gate from the moment the input thread posts it until the frame after its handling
is drawn; the item screen's own hold then lasts until its transcripts are drawn.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from textual import events
from textual.app import App
from textual.message import Message

from evaltui.ui.state import ReviewState


class KeysFirst(App[int]):
    """Holds the background gate for each key from its post (the input thread) until the
    frame after its dispatch (see the module's docstring)."""

    state: ReviewState
    _key_holds: deque[Callable[[], None]]

    def post_message(self, message: Message) -> bool:
        if (
            not isinstance(message, events.Key)
            or message.is_forwarded
            or not hasattr(self, "state")
        ):
            # (a forwarded key is one bubbling back from the focused widget: held already)
            return super().post_message(message)
        release = self.state.background.hold()
        holds = self.__dict__.setdefault("_key_holds", deque())  # (thread-safe appends)
        holds.append(release)
        posted = super().post_message(message)
        if not posted:  # (closing, or keys not taken now: never dispatched)
            release()
        return posted

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            holds = self.__dict__.get("_key_holds")
            while holds:  # every key posted so far: this one and any that never came
                release = holds.popleft()
                # (two refreshes: after the handlers the key's messages reach, and their frame)
                self.call_after_refresh(self.call_after_refresh, release)
        await super().on_event(event)
