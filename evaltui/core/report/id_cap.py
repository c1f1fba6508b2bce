"""The JSON report's lists of item ids, cut to a bound (`evaltui report --ids N`).

A report names its discordant items: the regressions, the improvements, and each reason's and
gate's items. At a million items with a graded score that is ~870,000 ids (22 MB of JSON); at
ten million, ten times that (8.7 million ids, about 210 MB), more than the rest of the report
by four orders of magnitude and more memory than the analysis. No reader goes through such a
list by eye, and a script that wants every id asks for it (`--ids all`). So by default each
list keeps its first `DEFAULT_IDS` ids (in the report's order: file order) and the document
says, in `ids_cut`, which lists were cut, how many ids each held, and how to get them all.
Counts are never cut (`table`, `untriaged_regressions`, ...), nor is anything else.

Only the printed `report` is cut: `report_dict` stays whole, so the sign-off record (which
embeds it and lists every discordant item with its review) names every regression.
"""

from __future__ import annotations

from typing import Any

DEFAULT_IDS = 10_000
ID_KEYS = frozenset(
    {
        "regressions",
        "improvements",
        "item_ids",
        "removed",
        "missing_in_baseline",
        "missing_in_candidate",
        "excluded_items",
    }
)
"""Keys whose list value holds item ids (a count under the same name, `table.regressions`, is
no list and is left alone)."""


def cap_id_lists(document: dict[str, Any], limit: int | None) -> dict[str, Any]:
    """`document` with each list of ids longer than `limit` cut to its first `limit` ids and,
    when any was cut, an `ids_cut` block: `limit`, `lists` (each cut list's JSON pointer,
    `total` and `shown`) and a `note` in words. `limit=None`: the document as it is."""
    if limit is None:
        return document
    cut: list[dict[str, Any]] = []
    capped = _capped(document, limit, "", cut)
    if not cut:
        return document
    total = sum(entry["total"] for entry in cut)
    capped["ids_cut"] = {
        "limit": limit,
        "lists": cut,
        "note": (
            f"{len(cut)} list{'s' if len(cut) != 1 else ''} of item ids cut to their first "
            f"{limit:,} ids (holding {total:,} ids between them); "
            "`evaltui report --ids all` lists every id"
        ),
    }
    return capped


def _capped(value: Any, limit: int, pointer: str, cut: list[dict[str, Any]]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            here = f"{pointer}/{_escaped(str(key))}"
            if key in ID_KEYS and isinstance(item, (list, tuple)) and len(item) > limit:
                out[key] = list(item[:limit])
                cut.append({"path": here, "total": len(item), "shown": limit})
            else:
                out[key] = _capped(item, limit, here, cut)
        return out
    if isinstance(value, (list, tuple)) and any(isinstance(v, (dict, list, tuple)) for v in value):
        return [_capped(item, limit, f"{pointer}/{i}", cut) for i, item in enumerate(value)]
    return value


def _escaped(key: str) -> str:
    """A key as a JSON Pointer (RFC 6901) token."""
    return key.replace("~", "~0").replace("/", "~1")
