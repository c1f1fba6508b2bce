"""Run a save once the keys typed before it have reached their fields.

Textual handles a key in the app's queue: a priority binding (Ctrl+S in the note editor and the
sign-off dialogs) runs there at once, while the keys read just before it were only forwarded,
queued for the focused field and not yet inserted. When the last keystrokes and Ctrl+S arrive in
one burst (a laggy SSH link), reading the field in the action saved it without them.

So a save action does not read its fields itself: it asks `after_queued_keys` to run the read
through the queue of every text field of the screen (`call_later` posts a callback behind what
is queued there), and the read runs when the last of those callbacks comes through. A key is
always forwarded before the next one is read, so every key read before Ctrl+S is in a field's
queue by then, whichever field had the focus when it came.

Tab had the opposite race. Textual's Tab is not a priority binding: it is forwarded to the
focused field like a letter, and moves the focus only when that field, having inserted the keys
queued before it, lets it bubble up. The keys read after Tab in the same burst were forwarded
meanwhile to the field that still had the focus: `abc<Tab>def` put `abcdef` in the rationale and
nothing in the next field. So in the dialogs with text fields Tab and Shift+Tab are priority
bindings (`FIELD_KEYS`): the focus moves as the Tab is read, in the order of the keys, so the
keys read before it are already in the old field's queue (a field inserts its queued keys
whether or not it still has the focus) and those read after it go to the new one. Waiting for
the queues here would be wrong: the focus must move before the next key is read.

Only while a text field has the focus (the bindings are the text fields' own, `FieldInput` and
`FieldTextArea`): a choice such as the sign-off's decision list acts on Down and Enter through
the app's bindings when they come through, against whatever has the focus then, so a Tab read
at once after `Down Enter` moved the focus first and the choice was never made (the tmux burst
test: `Down Enter Tab` chose nothing). From a choice, Tab keeps Textual's order.

Which leaves the letters read after that Tab in the same burst: they were forwarded to the choice
(it still had the focus when they were read), which ignores them, and they bubbled up to the app
after the Tab had moved the focus. `StrayKeys` hands such a key to the text field that has the
focus by the time it reaches the app: a text field stops every printable key it is given, so a
printable key that reaches the app while one has the focus was read before the focus reached it
(the tmux adjudication test: `Tab` then a reason typed at once lost the reason 1 run in 3). The
bubbled keys reach the app in the order they were read, behind the Tab that moved the focus.

The same race, in general: a key that moves the focus into a text field must move it as it is
read, or the keys read after it in the burst go to the widget that still has the focus and act
there. The main screen's `/` had it: a screen binding, it ran once the list had let the key
bubble, and `/unfinished` typed at once switched to the improvements (`i`), opened a note (`e`)
and folded the header (`h`). So such a key is a priority binding (`into_field`), and its action
moves the focus with `focus_at_once`, not `Widget.focus`: that one only posts the move to the
app's queue (`call_later`), behind the keys already read, which then still go to the old focus.
A priority binding fires wherever the focus is, text fields included (Textual drops a printable
key's screen bindings while a text field has the focus, but it does not know `slash` as a
printable key), so the action first calls `typed_as_text`: in a text field it skips, and the key
goes on to the field as a character (a `/` in the search box, a path in the sign-off's prefix).
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.actions import SkipAction
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input


class TextField:
    """Marks a text field of the app other than an Input: the note's and the rationale's
    TextArea (`FieldTextArea`, `ui/text_area_field.py`, the only text areas the app makes).
    A mark, not Textual's TextArea class, so that the app's first screen does not import the
    text area (its document, edits and syntax modules: ~6 ms of start-up on the UI thread);
    it is imported when the note editor or the sign-off dialog first opens."""


TEXT_FIELDS = (Input, TextField)

# Textual's own focus keys (Screen.BINDINGS), handled as they are read (see above).
FIELD_KEYS: list[BindingType] = [
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
]


def into_field(key: str, action: str, description: str, **kwargs) -> Binding:
    """A key that moves the focus into a text field: handled as it is read (see the module); its
    action calls `typed_as_text` first and moves the focus with `focus_at_once`."""
    return Binding(key, action, description, priority=True, **kwargs)


def typed_as_text(screen: Screen) -> None:
    """In an `into_field` key's action: skip it (the key goes on to the field as text) while a
    text field has the focus."""
    if isinstance(screen.focused, TEXT_FIELDS):
        raise SkipAction()


def focus_at_once(widget: Widget) -> None:
    """Give `widget` the focus now, so the next key read goes to it (see the module)."""
    widget.screen.set_focus(widget)


class FieldInput(Input):
    """An Input whose Tab and Shift+Tab move the focus as they are read (see the module)."""

    BINDINGS = FIELD_KEYS


class StrayKeys(App):
    """The app's half of the Tab race from a choice (see the module): a printable key read while
    another widget had the focus goes to the text field that has it now, instead of being lost."""

    def on_key(self, event: events.Key) -> None:
        focused = self.focused
        if event.is_printable and isinstance(focused, TEXT_FIELDS):
            event.prevent_default()  # (not the app's bindings: the key was meant as text)
            event.stop()
            focused.post_message(events.Key(event.key, event.character))


class _Barrier:
    """Counts the fields still to be passed through; runs the action on the last."""

    def __init__(self, waiting: int, action: Callable[[], object]) -> None:
        self.waiting = waiting
        self.action = action

    def arrived(self) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.action()


def after_queued_keys(screen: Screen, action: Callable[[], object]) -> None:
    """Call `action` (on the app's loop) once every message queued so far for the screen's text
    fields has been handled; at once when the screen has none."""
    fields = [w for w in screen.query("*") if isinstance(w, TEXT_FIELDS)]
    barrier = _Barrier(len(fields) + 1, action)
    for field in fields:
        if not field.call_later(barrier.arrived):  # a field closing: nothing more will come
            barrier.arrived()
    barrier.arrived()
