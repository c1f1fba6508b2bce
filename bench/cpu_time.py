"""A pytest plugin: the CPU time each test costs (setup + call + teardown), to see where the
default run's CPU goes. Wall time misleads on a shared machine; CPU (user + sys of the pytest
process and of the children it waited for) does not depend on what else runs.

    .venv/bin/python -m pytest -q -p bench.cpu_time [--cpu-top N] [--cpu-out FILE]

prints the N most expensive tests (default 40) and the run's total at the end, and with
`--cpu-out` writes every test's CPU seconds as tab-separated lines (most expensive first), so two
runs can be compared file by file (sum a module's lines to see what a change saved).

A tmux server daemonizes: the evaltui a tmux test runs in a pane is no child pytest waits for,
and its CPU is in no rusage of the run (nor in `/usr/bin/time`'s figure). `--cpu-adopt` makes
pytest the child subreaper (Linux prctl), so the daemon is re-parented to pytest, and reaps every
exited child after each test: the panes' CPU reaches RUSAGE_CHILDREN through the tmux server's.
Measuring only: a test that waits for such a process itself would see it reaped.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
from collections.abc import Generator
from pathlib import Path

import pytest

_costs: dict[str, float] = {}
_ADOPT = pytest.StashKey[bool]()


def _cpu_seconds() -> float:
    """User + system CPU of this process and of its waited-for children, in seconds."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


PR_SET_CHILD_SUBREAPER = 36


def _adopt_orphans() -> None:
    """Make this process the subreaper of its descendants (daemons end up its children)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def _reap_exited_children() -> None:
    """Wait for every child of this process that has exited (a zombie), so its CPU and its
    waited-for descendants' count in RUSAGE_CHILDREN."""
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        state, ppid = stat[stat.rindex(")") + 2 :].split()[:2]
        if state == "Z" and int(ppid) == me:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(entry.name), 0)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cpu_time", "CPU time per test (bench/cpu_time.py)")
    group.addoption("--cpu-top", type=int, default=40, help="how many of the costliest to print")
    group.addoption("--cpu-out", default=None, help="write every test's CPU seconds here")
    group.addoption(
        "--cpu-adopt",
        action="store_true",
        help="count daemonized descendants (tmux servers and their panes) too",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--cpu-adopt"):
        _adopt_orphans()
        config.stash[_ADOPT] = True


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator:
    start = _cpu_seconds()
    yield
    if item.config.stash.get(_ADOPT, False):
        _reap_exited_children()
    _costs[item.nodeid] = _cpu_seconds() - start


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if config.stash.get(_ADOPT, False):
        _reap_exited_children()
    if not _costs:  # xdist's controller: its workers ran the tests, and report nothing here
        terminalreporter.write_line("cpu_time: no test ran in this process (measure without -n)")
        return
    ranked = sorted(_costs.items(), key=lambda kv: kv[1], reverse=True)
    top = config.getoption("--cpu-top")
    write = terminalreporter.write_line
    terminalreporter.section(f"CPU seconds per test (top {top} of {len(ranked)})")
    for nodeid, cost in ranked[:top]:
        write(f"{cost:8.2f}  {nodeid}")
    modules: dict[str, float] = {}
    for nodeid, cost in ranked:
        module = nodeid.split("::")[0]
        modules[module] = modules.get(module, 0.0) + cost
    terminalreporter.section("CPU seconds per test file (top 25)")
    for module, cost in sorted(modules.items(), key=lambda kv: kv[1], reverse=True)[:25]:
        write(f"{cost:8.2f}  {module}")
    write(f"tests' CPU: {sum(_costs.values()):.1f} s; whole process so far: {_cpu_seconds():.1f} s")
    out = config.getoption("--cpu-out")
    if out:
        Path(out).write_text("".join(f"{c:.3f}\t{n}\n" for n, c in ranked), encoding="utf-8")
