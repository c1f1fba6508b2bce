"""The "input formats" flags, generated from the formats: each format's `Options` declares its
options with their help, metavar, choices, how the flag's text parses and whether each arm may
set its own (`contract.option`), so adding a format, or an option to one, touches no file here.

The flags are read from each format's light `<name>_options` module (`format_options`), never
its reader: building the parser imports no polars, so `--help` stays instant.

Formats that share an option (the native formats' column options) share its flag, offered as
the first format in `REGISTRY` declares it. `load_run` still refuses an option the file's
format does not take, naming the formats that do.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evaltui.core.read.formats.contract import Flag

GROUP = "input formats"
ARMS = ("baseline", "candidate")  # the per-arm variants: --baseline-NAME, --candidate-NAME


@dataclass(frozen=True)
class FormatChoices:
    """The format options the command line gives, as `CompareSpec.create` takes them (None:
    not given): for both runs, and each arm's own."""

    format_options: dict[str, Any]
    baseline_options: dict[str, Any]
    candidate_options: dict[str, Any]

    def arms_differ(self) -> bool:
        """Whether the two arms choose differently (two arms of one promptfoo file)."""
        return _given(self.baseline_options) != _given(self.candidate_options)


def format_flags(formats: Iterable[str] | None = None) -> tuple[tuple[str, Flag], ...]:
    """(option name, flag) of every option of the formats (default: those of `REGISTRY` this
    build ships), in their order, each name once."""
    from evaltui.core.read.formats import available_formats, format_options
    from evaltui.core.read.formats.contract import flag_of

    found: dict[str, Flag] = {}
    for name in available_formats() if formats is None else formats:
        module = format_options(name)
        if module is None:
            continue  # a format not shipped in this build
        for options_field in fields(module.Options):
            found.setdefault(options_field.name, flag_of(options_field, module.NAME))
    return tuple(found.items())


def add_format_flags(parser: argparse.ArgumentParser) -> None:
    """The "input formats" group of a command that reads runs (report, signoff, the app)."""
    taken = {action.dest for action in parser._actions}
    group = parser.add_argument_group(GROUP)
    for name, flag in format_flags():
        variants = [(name, flag.help)]
        if flag.per_arm is not None:
            variants += [
                (f"{arm}_{name}", words) for arm, words in zip(ARMS, flag.per_arm, strict=True)
            ]
        for dest, words in variants:
            if dest in taken:  # a format's bug, caught by the tests of the flags
                raise ValueError(f"the format option {dest!r} would shadow another argument")
            taken.add(dest)
            _add(group, dest, words, flag)


def _add(group: argparse._ArgumentGroup, dest: str, words: str, flag: Flag) -> None:
    from evaltui.core.read.formats.contract import option_flag

    if flag.switch:
        group.add_argument(
            option_flag(dest), dest=dest, action="store_true", default=None, help=words
        )
        return
    extra: dict[str, Any] = {}
    if flag.metavar is not None:
        extra["metavar"] = flag.metavar
    if flag.choices is not None:
        extra["choices"] = flag.choices
    group.add_argument(option_flag(dest), dest=dest, default=None, help=words, **extra)


def format_choices(args: argparse.Namespace) -> FormatChoices:
    """The parsed format flags as the options of both runs and of each arm."""
    common: dict[str, Any] = {}
    per_arm: dict[str, dict[str, Any]] = {arm: {} for arm in ARMS}
    for name, flag in format_flags():
        common[name] = _value(getattr(args, name, None), flag)
        if flag.per_arm is not None:
            for arm in ARMS:
                per_arm[arm][name] = _value(getattr(args, f"{arm}_{name}", None), flag)
    return FormatChoices(common, per_arm["baseline"], per_arm["candidate"])


def _value(given: Any, flag: Flag) -> Any:
    if given is None:
        return None  # not given
    if flag.switch:
        return True
    return flag.parse(given) if flag.parse is not None else given


def _given(options: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in options.items() if value}
