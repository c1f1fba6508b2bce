"""The docs cannot drift from the tree: every module is in the layout, every link resolves, and
CI runs the README's own test command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
LAYOUT = DOCS / "layout.md"
MODULE_PATH = re.compile(r"`(evaltui/[\w/]+\.py)`")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def modules() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "evaltui").rglob("*.py"))


def readme_commands() -> list[str]:
    block = re.match(r"# evaltui\n\n```sh\n(.*?)\n```\n", README.read_text(encoding="utf-8"), re.S)
    assert block, "README.md must start with its title and the fenced block of two commands"
    return block.group(1).splitlines()


def test_every_module_under_evaltui_is_named_in_the_layout_doc():
    named = set(MODULE_PATH.findall(LAYOUT.read_text(encoding="utf-8")))
    missing = [m for m in modules() if m not in named]
    assert not missing, f"docs/layout.md does not name: {', '.join(missing)}"


def test_every_module_the_layout_doc_names_exists():
    named = set(MODULE_PATH.findall(LAYOUT.read_text(encoding="utf-8")))
    gone = sorted(named - set(modules()))
    assert not gone, f"docs/layout.md names modules that do not exist: {', '.join(gone)}"


def test_readme_starts_with_the_install_and_the_test_command():
    assert readme_commands() == [
        "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/evaltui",
        "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
        ".venv/bin/python -m pytest -q",
    ]


def test_ci_runs_the_readme_test_command_verbatim_before_the_lint():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = readme_commands()[1]
    assert test_command in ci
    assert (
        ci.index(test_command)
        < ci.index(".venv/bin/ruff check")
        < ci.index(".venv/bin/ruff format --check")
    )


@pytest.mark.parametrize(
    "page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_relative_links_in_the_docs_resolve(page: Path):
    text = page.read_text(encoding="utf-8")
    targets = [t for t in LINK.findall(text) if "://" not in t]
    broken = [t for t in targets if not (page.parent / t).exists()]
    assert not broken, f"{page.name} links to missing {', '.join(broken)}"
