"""The 44 hostile payloads (tests/data/payloads) through every screen and export of the app.

A pair whose item ids, message roles, metric names, slices, gate slices and outputs are the
payloads is opened; main, item, diff, gates, slices, help and the sign-off dialog are visited,
items are tagged and noted (toasts name them) and the metric switched (a toast names it).
After each step the app must still run and the screen as drawn must hold no raw escape, C1,
bell or bidi character, and markup must show as written; the sign-off Markdown, CSV and JSON
must be inert too. The lint below keeps every notify/Static/update call from taking an
f-string or input text as markup.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import random
import re
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.textsafe import inert
from evaltui.ui.app import AppConfig, create_app
from tests.ui.helpers import screen_lines, settle

ROOT = Path(__file__).resolve().parents[2]
PAYLOADS = json.loads((ROOT / "tests" / "data" / "payloads" / "payloads.json").read_text())[
    "payloads"
]
METRICS = [PAYLOADS[24], PAYLOADS[0], PAYLOADS[36]]  # [/bogus], OSC 52, <img onerror>
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\u200b]")


RAW_TAG = re.compile(r"(?<!\\)<(img|script)")  # `\<img` is Markdown's escaped, literal text


def _outside_code_spans(markdown: str) -> str:
    """The Markdown without its code spans, whose text no renderer reads as HTML (ids are
    shown in them; a metric name no longer is)."""
    return re.sub(r"`[^`\n]*`", "``", markdown)


def _pair(tmp_path: Path) -> tuple[Path, Path, Path]:
    rng = random.Random(19)
    base, cand = [], []
    for i, payload in enumerate(PAYLOADS):
        record = {
            "item_id": payload,
            "slice": PAYLOADS[i % 8],
            "input": payload,
            "target": PAYLOADS[(i + 2) % 44],
            "explanation": PAYLOADS[(i + 3) % 44],
            "messages": [
                {"role": payload, "content": PAYLOADS[(i + 1) % 44]},
                {"role": "assistant", "content": payload},
            ],
        }
        scores = {f"score:{name}": rng.random() for name in METRICS}
        regressed = i % 2 == 0
        base.append({**record, "passed": regressed, "output": payload, **scores})
        scores = {f"score:{name}": rng.random() for name in METRICS}
        cand.append({**record, "passed": not regressed, "output": PAYLOADS[-1 - i], **scores})
    for i in range(40):  # plain items, so the verdict has data
        plain = {"item_id": f"plain-{i}", "slice": "plain", "passed": i % 3 != 0}
        base.append({**plain, **{f"score:{n}": 0.5 for n in METRICS}})
        cand.append({**plain, **{f"score:{n}": 0.5 for n in METRICS}})
    paths = []
    for name, records in (("base.jsonl", base), ("cand.jsonl", cand)):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        paths.append(path)
    policy = tmp_path / "policy.toml"
    policy.write_text(
        'primary_metric = "passed"\n'
        + "".join(
            f'[[gates]]\nkind = "no_regressions"\nslice = {json.dumps(PAYLOADS[i])}\n'
            for i in (0, 4)
        )
        + '[[gates]]\nkind = "all_triaged"\n',
        encoding="utf-8",
    )
    return paths[0], paths[1], policy


def _inert(app, step: str) -> str:
    """The screen as drawn holds nothing a terminal would act on; returns it as text."""
    assert app.is_running, f"the app stopped at {step}"
    lines = screen_lines(app)
    text = "\n".join(lines)
    found = RAW.search(text)
    assert found is None, f"{step}: raw {found.group()!r} reached the screen"
    svg = app.export_screenshot()
    assert RAW.search(svg.replace("\n", " ")) is None, f"{step}: raw control in the screenshot"
    return text


@pytest.mark.slow
async def test_every_screen_shows_the_payloads_inert_and_the_app_keeps_running(tmp_path):
    base, cand, policy = _pair(tmp_path)
    app = create_app(AppConfig.for_pair(base, cand, state_root=tmp_path / "state", policy=policy))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        shown = _inert(app, "main")
        assert "@click=app.quit" in shown or "[@click" in shown or "bold red" in shown
        for key in ("tab", "shift+tab"):  # both lists
            await pilot.press(key)
            await settle(app, pilot)
            _inert(app, f"main after {key}")
        table = app.screen.query_one("ItemTable")
        for position, row in enumerate(list(table.rows)):  # a toast names each tagged id
            if row.item_id.startswith("plain-"):
                continue
            table.cursor = position
            await pilot.press("4")
            await settle(app, pilot)
            _inert(app, f"toast after tagging {row.item_id!r}")
        await pilot.press("0", "z")  # untag, undo: two more toasts naming the id
        await settle(app, pilot)
        _inert(app, "toasts after untag and undo")
        table.cursor = 0
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen.__class__.__name__ == "ItemScreen"
        _inert(app, "item")
        for key in ("J", "J", "a", "v", "n", "n", "p"):
            await pilot.press(key)
            await settle(app, pilot)
            _inert(app, f"item after {key}")
        await pilot.press("d")
        await settle(app, pilot)
        _inert(app, "diff")
        await pilot.press("1")  # tag: a toast names the item
        await settle(app, pilot)
        _inert(app, "toast after a tag")
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        _inert(app, "toast after a tag on the list")
        await pilot.press("e")
        await settle(app, pilot)
        await pilot.press(*"[/bogus]", "ctrl+s")
        await settle(app, pilot)
        _inert(app, "toast after a note")
        for key, name in (("g", "gates"), ("l", "slices"), ("question_mark", "help")):
            await pilot.press(key)
            await settle(app, pilot)
            _inert(app, name)
            await pilot.press("j", "j")
            await settle(app, pilot)
            _inert(app, f"{name} after j")
            await pilot.press("escape")
            await settle(app, pilot)
        await pilot.press("m")  # the next metric: a toast names a payload metric
        await settle(app, pilot)
        _inert(app, "toast after m")
        await pilot.press("m")
        await settle(app, pilot)
        _inert(app, "header on a payload metric")
        await pilot.press("x")
        await settle(app, pilot)
        _inert(app, "sign-off dialog")
        await pilot.press("escape")
        await settle(app, pilot)
        _inert(app, "after the dialog")
        assert not app.unexpected_errors, app.unexpected_errors


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_a_stale_tag_on_a_payload_id_does_not_crash_the_next_open(tmp_path):
    """The load notice names the id whose outcome changed since it was tagged; with `[/bogus]`
    as that id the notice used to crash every open of the pair."""
    base, cand, _ = _pair(tmp_path)
    state = tmp_path / "state"
    config = AppConfig.for_pair(base, cand, state_root=state)
    app = create_app(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("ItemTable")
        first = PAYLOADS[24]  # "[/bogus]"
        table.cursor = [row.item_id for row in table.rows].index(first)
        await pilot.press("1")
        await settle(app, pilot)
        await pilot.press("q")
    records = [json.loads(line) for line in cand.read_text(encoding="utf-8").splitlines()]
    for record in records:
        if record["item_id"] == first:
            record["passed"] = not record["passed"]
    cand.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    app = create_app(AppConfig.for_pair(base, cand, state_root=state))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        _inert(app, "reopened with a stale tag")
        assert not app.unexpected_errors, app.unexpected_errors
        notices = [n.message for n in app._notifications]
        assert any(inert(first) in message for message in notices), notices


def test_the_sign_off_exports_of_the_payload_pair_are_inert(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    base, cand, policy = _pair(tmp_path)
    prefix = tmp_path / "signoff"
    args = ["signoff", str(base), str(cand), "--policy", str(policy), "--decision", "block"]
    assert main([*args, "--rationale", PAYLOADS[22], "--reviewer", PAYLOADS[2],
                 "--output", str(prefix)]) == 0  # fmt: skip
    capsys.readouterr()
    markdown = prefix.with_suffix(".md").read_text(encoding="utf-8")
    assert RAW.search(markdown) is None
    assert RAW_TAG.search(_outside_code_spans(markdown)) is None
    text = prefix.with_suffix(".csv").read_text(encoding="utf-8")
    assert RAW.search(text.replace("\n", "")) is None and "\r" not in text
    rows = list(csv.reader(io.StringIO(text, newline="")))
    record = json.loads(prefix.with_suffix(".json").read_text(encoding="utf-8"))
    assert len(rows) == len(record["items"]) + 1
    assert {item["item_id"] for item in record["items"]} == set(PAYLOADS)
    for row in rows[1:]:
        for cell in row:
            assert not any(line.startswith(("=", "+", "-", "@")) for line in cell.split("\n"))
    assert main(["report", str(base), str(cand), "--format", "markdown"]) in (0, 1, 4)
    out = capsys.readouterr().out
    assert RAW.search(out) is None and RAW_TAG.search(_outside_code_spans(out)) is None
    assert main(["report", str(base), str(cand)]) in (0, 1, 4)
    assert RAW.search(capsys.readouterr().out) is None


# ---------------------------------------------------------------------------------------------
# The lint: no call takes an f-string or a variable as markup

UI = ROOT / "evaltui" / "ui"
MARKUP_SINKS = {"notify", "update", "Static", "Label", "from_markup", "Markdown"}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _markup(call: ast.Call) -> bool | None:
    """The `markup=` keyword's constant value, or None when it is not given."""
    for k in call.keywords:
        if k.arg == "markup" and isinstance(k.value, ast.Constant):
            return bool(k.value.value)
    return None


def _formatted(node: ast.expr) -> bool:
    """A string built from parts at run time: an f-string, %, + or .format()."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod | ast.Add):
        while isinstance(node, ast.BinOp):  # a string concatenation starts with a string
            node = node.left
        return isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.Constant) and isinstance(node.value, str)
        )
    return isinstance(node, ast.Call) and _name(node.func) == "format"


def _offences() -> list[str]:
    """Every toast goes through the app's `notify` (`ToastRepaint.notify`, ui/toasts.py, a mixin
    of `EvalTuiApp`), which makes its text inert and turns
    markup off; so a toast may not turn markup on, nor reach Textual's own `notify` another
    way. Static, Label, Markdown and `update` take Text (`safe.literal`), not a string built at
    run time (Textual would parse it as markup); `from_markup` takes constants only."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        override = None
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == "ToastRepaint":
                override = next(
                    (f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "notify"),
                    None,
                )
        inside = set(ast.walk(override)) if override is not None else set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or _name(node.func) not in MARKUP_SINKS:
                continue
            name = _name(node.func)
            where = f"{path.relative_to(ROOT)}:{node.lineno} {name}"
            first = node.args[0] if node.args else None
            if name == "from_markup":
                if not isinstance(first, ast.Constant):
                    found.append(f"{where}: markup parsed from a value")
            elif name == "notify":
                receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
                direct = isinstance(receiver, ast.Call) and _name(receiver.func) == "super"
                direct |= isinstance(receiver, ast.Name) and receiver.id in ("App", "Widget")
                if _markup(node) is True:
                    found.append(f"{where}: a toast with markup on")
                elif direct and node not in inside:
                    found.append(f"{where}: a toast that bypasses ToastRepaint.notify")
            elif first is not None and _formatted(first) and _markup(node) is not False:
                found.append(f"{where}: an f-string or formatted text parsed as markup")
    return found


def test_no_ui_call_takes_an_f_string_or_input_text_as_markup():
    assert _offences() == []


def test_the_lint_catches_what_it_is_for(tmp_path, monkeypatch):
    bad = tmp_path / "ui" / "bad.py"
    bad.parent.mkdir()
    bad.write_text(
        "from rich.text import Text\n"
        "from textual.app import App\n"
        "def f(app, item_id, w):\n"
        "    app.notify(f'saved: {item_id}', markup=True)\n"
        "    App.notify(app, item_id)\n"
        "    w.update(f'[b]{item_id}[/b]')\n"
        "    Text.from_markup(item_id)\n"
        "    w.update('[b]' + item_id)\n"
        "    app.notify(f'ok {item_id}')\n"
        "    w.update(Text(item_id))\n"
        "class ToastRepaint(App):\n"
        "    def notify(self, message, **kw):\n"
        "        super().notify(message, markup=False)\n",
        encoding="utf-8",
    )
    module = __import__(__name__, fromlist=["x"])
    monkeypatch.setattr(module, "UI", bad.parent)
    monkeypatch.setattr(module, "ROOT", tmp_path)
    assert [line.split(" ", 1)[0] for line in _offences()] == [
        "ui/bad.py:4", "ui/bad.py:5", "ui/bad.py:6", "ui/bad.py:7", "ui/bad.py:8",
    ]  # fmt: skip


@pytest.mark.slow
async def test_every_toast_is_inert_and_literal_whatever_a_screen_passes(tmp_path):
    base, cand, _ = _pair(tmp_path)
    app = create_app(AppConfig.for_pair(base, cand, state_root=tmp_path / "state"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        app.screen.notify("[/bogus] [@click=app.quit]x[/] \x1b]0;title\x07 \u202eabc", title="[b]")
        app.notify("[bold red]alarm[/bold red]", markup=True)
        await settle(app, pilot)
        _inert(app, "toasts")
        notes = list(app._notifications)
        assert notes and not any(n.markup for n in notes)  # so Textual shows them as written
        shown = " ".join(f"{n.message} {n.title}" for n in notes)
        assert "[/bogus] [@click=app.quit]x[/]" in shown and "[bold red]alarm[/bold red]" in shown
        assert "␛]0;title␇" in shown and "<U+202E>abc" in shown and "[b]" in shown


def test_the_fixture_holds_44_distinct_payloads():
    assert len(PAYLOADS) == 44 == len(set(PAYLOADS))
