"""The import graph: data flows one way (core -> ui -> cli), and no module imports itself back.

Walked from the source with `ast`, so a lazy import inside a function counts too: the app once
imported the CLI lazily while the CLI imported the app, and only a walk of every import sees it.
Imports under `if TYPE_CHECKING:` count as well: a cycle hidden there is still two modules that
each need the other to be understood (the UI's app, screens and triage once were seven such).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "evaltui"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(
    tree: ast.AST,
    module: str,
    is_package: bool,
    top_level_only: bool,
    type_checking: bool = False,
) -> set[str]:
    """evaltui modules this module imports (resolved to the longest existing module name);
    `type_checking`: those under `if TYPE_CHECKING:` too."""
    found: set[str] = set()

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child) and not type_checking:
                continue
            nested = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if nested and top_level_only:
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = module.split(".")
                    anchor = anchor if is_package else anchor[:-1]
                    anchor = anchor[: len(anchor) - (child.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                found.add(base)
                found.update(f"{base}.{a.name}" for a in child.names)
            visit(child, top and not nested)

    visit(tree, True)
    return found


@functools.cache
def _trees() -> dict[str, tuple[Path, ast.AST]]:
    """Every module of the package, parsed once for the whole file's tests (parsing 300
    modules is most of a walk's cost)."""
    return {
        _module_name(p): (p, ast.parse(p.read_text(encoding="utf-8")))
        for p in PACKAGE.rglob("*.py")
    }


@functools.cache  # (the tests read the graphs, never change them)
def _graph(top_level_only: bool, type_checking: bool = False) -> dict[str, set[str]]:
    sources = _trees()
    graph: dict[str, set[str]] = {}
    for name, (path, tree) in sources.items():
        wanted = _imports(tree, name, path.name == "__init__.py", top_level_only, type_checking)
        graph[name] = {w for w in wanted if w in sources and w != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle in `graph`, as the modules along it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = walk(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = walk(node)
            if found:
                return found
    return None


def _layer(module: str) -> str:
    if module.startswith("evaltui.core"):
        return "core"
    if module.startswith("evaltui.ui"):
        return "ui"
    return (
        "cli"  # evaltui.cli.main, evaltui.cli.render, evaltui.cli.progress_line, evaltui.__main__
    )


def test_module_level_imports_form_no_cycle():
    assert _cycle(_graph(top_level_only=True)) is None


def test_no_cycle_even_counting_imports_inside_functions():
    assert _cycle(_graph(top_level_only=False)) is None


def test_no_cycle_anywhere_counting_type_checking_imports_and_imports_inside_functions():
    assert _cycle(_graph(top_level_only=False, type_checking=True)) is None


def test_the_ui_imports_one_way_app_then_screens_then_widgets_then_state():
    """No screen or widget imports the app (or its parts), no widget a screen, and the state
    and the messages neither (the screens are given the state; they never fetch it)."""
    order = {"app": 0, "screens": 1, "widgets": 2, "state": 3}
    app_side = {
        "app", "actions", "base", "modes", "run_set_mode", "terminal", "toasts", "unexpected",
        "lock_choice", "cached_open", "deciding_updates", "keys_first",
    }  # fmt: skip

    def rank(module: str) -> int | None:
        parts = module.split(".")
        if parts[:2] != ["evaltui", "ui"] or len(parts) < 3:
            return None
        if parts[2] in app_side:
            return order["app"]
        if parts[2] in ("screens", "widgets"):
            return order[parts[2]]
        return order["state"]  # state, messages, triage, listmodel, config...

    graph = _graph(top_level_only=False, type_checking=True)
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if (a := rank(module)) is not None and (b := rank(target)) is not None and b < a
    )
    assert upward == []


def test_core_imports_neither_the_ui_nor_the_cli_and_the_ui_never_imports_the_cli():
    allowed = {"core": {"core"}, "ui": {"core", "ui"}, "cli": {"core", "ui", "cli"}}
    graph = _graph(top_level_only=False)
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if _layer(target) not in allowed[_layer(module)] and target != "evaltui"
    )
    assert wrong == []


def test_the_walk_finds_a_cycle_when_there_is_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    tree = ast.parse("def f():\n    from evaltui.cli.main import main\n")
    assert "evaltui.cli.main" in _imports(tree, "evaltui.ui.app", False, top_level_only=False)
    assert "evaltui.cli.main" not in _imports(tree, "evaltui.ui.app", False, top_level_only=True)
    hinted = ast.parse("if TYPE_CHECKING:\n    from evaltui.ui.app import EvalTuiApp\n")
    assert "evaltui.ui.app" not in _imports(hinted, "evaltui.ui.triage", False, False)
    assert "evaltui.ui.app" in _imports(hinted, "evaltui.ui.triage", False, False, True)
