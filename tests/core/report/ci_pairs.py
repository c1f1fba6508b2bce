"""Small pairs for the CI surfaces' tests: a blocked pair whose item ids try every trick a run
could play on XML, Markdown and the Actions runner."""

from __future__ import annotations

import json
from pathlib import Path

from evaltui.core.compare.spec import CompareSpec
from evaltui.core.designs import PAIR, Decided

# Ids a hostile or careless run could hold: markup, XML-illegal characters, an escape sequence,
# a line break, and each way of starting or ending a workflow command.
HOSTILE_IDS = (
    "<b>&amp;</b>",
    "esc\x1b[31mred",
    "line\nbreak::error::injected",
    "::add-mask::secret",
    "x ##[stop-commands]tok",
    "non\ufffechar",
    "pct%0Aname,with:colon",
)


def write_pair(folder: Path, both: int, regressions: int, improvements: int, fail: int):
    """Baseline and candidate JSONL files whose 2x2 table is as given; the first regressions
    carry `HOSTILE_IDS`."""
    ids = [f"q{i}" for i in range(both + regressions + improvements + fail)]
    for k, hostile in enumerate(HOSTILE_IDS[: min(regressions, len(HOSTILE_IDS))]):
        ids[both + k] = hostile
    base = [True] * (both + regressions) + [False] * (improvements + fail)
    cand = [True] * both + [False] * regressions + [True] * improvements + [False] * fail
    paths = []
    for name, verdicts in (("baseline", base), ("candidate", cand)):
        path = folder / f"{name}.jsonl"
        path.write_text(
            "".join(
                json.dumps({"item_id": i, "passed": v, "slice": "s<1>"}) + "\n"
                for i, v in zip(ids, verdicts, strict=True)
            ),
            encoding="utf-8",
        )
        paths.append(path)
    return paths[0], paths[1], ids[both : both + regressions]


def decided_pair(base: Path, cand: Path) -> Decided:
    analysis = PAIR.analyse(CompareSpec.create(base, cand))
    return PAIR.decide(analysis)
