"""``scipy.special``, imported when a statistic first asks for one of its functions.

Importing ``scipy.special`` costs 0.2-0.3 s (mostly its array-API compatibility layer), and
every statistics module needs it, so a module-level ``from scipy import special`` put that on
the main thread before the app could draw anything. The statistics modules import this module
as ``special`` and call ``special.ndtri(...)`` exactly as before: the first lookup of a name
imports ``scipy.special`` (Python's import lock makes that safe from any thread) and keeps the
function here, so later lookups are a module attribute. The values are scipy's own functions,
unchanged. `prefetch` starts the import in a thread while the runs are read: the reading is
mostly polars and hashlib, which release the GIL, so the import overlaps it instead of
following it.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

__all__ = ["prefetch"]


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # (pickling, introspection: not scipy's)
        raise AttributeError(name)
    from scipy import special

    value = getattr(special, name)
    globals()[name] = value
    return value


def prefetch() -> None:
    """Import ``scipy.special`` in a thread of its own, unless it is imported already. Not a
    daemon: a process that ends meanwhile (a bad input) waits for the import to finish rather
    than stopping an extension module halfway through its initialisation. (``scipy.fft``,
    0.017 s more, is not imported: the exact bootstrap reads its CDF in closed form,
    `exact_cdf`, and imports it only on the rare FFT route.)"""
    if "scipy.special" not in sys.modules:
        threading.Thread(target=_import, name="evaltui-import-scipy").start()


def _import() -> None:
    import scipy.special  # noqa: F401 - the import is the point
