"""The note's and the rationale's text area: Tab and Shift+Tab move the focus as they are read.

Apart from `after_keys.py` (which holds the Input's twin, `FieldInput`) so that the text area
is imported only with the screens that show one (the note editor, the sign-off dialog), not
before every pair's first screen; it carries `after_keys.TextField`, the mark by which the app
knows a text field (see that module).
"""

from __future__ import annotations

from textual.widgets import TextArea

from evaltui.ui.after_keys import FIELD_KEYS, TextField


class FieldTextArea(TextField, TextArea):
    """A TextArea whose Tab and Shift+Tab move the focus as they are read (`after_keys.py`)."""

    BINDINGS = FIELD_KEYS
