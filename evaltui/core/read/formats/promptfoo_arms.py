"""The arms of a promptfoo file: one provider x prompt each, and which one `--arm` picks.

One file holds every provider x prompt combination of an eval, so a run is one arm. `--arm`
names one by provider id or label, prompt label, or `provider=<id>, prompt=<label>`; a value
that picks none or several stops the load with the arms listed, each with the shortest `--arm`
that picks it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.fields import Where
from evaltui.core.read.formats.jsontext import as_text

MAX_ARM_LABEL = 120  # an arm's prompt label is shown up to this many characters in a listing


@dataclass(frozen=True)
class Arm:
    provider_id: str
    provider_label: str
    prompt_label: str

    @property
    def provider(self) -> str:
        return self.provider_label or self.provider_id

    @property
    def short_label(self) -> str:
        label = listed(self.prompt_label)
        return label if len(label) <= MAX_ARM_LABEL else label[: MAX_ARM_LABEL - 3] + "..."

    def display(self) -> str:
        return f"provider={self.provider}, prompt={self.short_label}"

    def spec(self, arms: Sequence[Arm]) -> str:
        """The shortest --arm value that picks this arm out of `arms`."""
        for candidate in (f"provider={self.provider}", f"prompt={self.short_label}"):
            if [arm for arm in arms if _arm_matches(arm, candidate)] == [self]:
                return candidate
        return self.display()


def arm_of(path: Path, result: Mapping[str, Any], record: str) -> Arm:
    where = Where(path, record=record)
    provider = result.get("provider")
    if isinstance(provider, str) and provider:
        provider_id, provider_label = provider, ""
    elif isinstance(provider, dict) and (provider.get("id") or provider.get("label")):
        provider_id = _str_or_empty(provider.get("id"))
        provider_label = _str_or_empty(provider.get("label"))
    else:
        raise where.expected("provider", "the provider ({id, label} or an id string)", provider)
    prompt = result.get("prompt")
    if isinstance(prompt, dict):
        label = prompt.get("label") or prompt.get("display") or prompt.get("raw") or ""
        prompt_label = label if isinstance(label, str) else as_text(label)
    elif isinstance(prompt, str):
        prompt_label = prompt
    elif prompt is None:
        prompt_label = ""
    else:
        raise where.expected("prompt", "the prompt ({raw, label})", prompt)
    return Arm(provider_id, provider_label, prompt_label)


def choose_arm(path: Path, arms: list[Arm], wanted: str | None) -> Arm:
    listing = "; ".join(f"'{arm.spec(arms)}'" for arm in arms)
    if wanted is None:
        if len(arms) == 1:
            return arms[0]
        raise InputError(
            path,
            f"holds {len(arms)} provider/prompt combinations (arms): {listing}; pass one of "
            "them with --arm to choose the one this run is",
            field="provider",
        )
    matches = [arm for arm in arms if _arm_matches(arm, wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InputError(
            path,
            f"no arm matches --arm '{listed(wanted)}'; arms in this file: {listing}",
            field="provider",
        )
    shown = "; ".join(f"'{arm.spec(arms)}'" for arm in matches)
    raise InputError(
        path,
        f"--arm '{listed(wanted)}' matches {len(matches)} arms: {shown}; name both the provider "
        "and the prompt as 'provider=ID, prompt=LABEL'",
        field="provider",
    )


def _arm_matches(arm: Arm, wanted: str) -> bool:
    providers = {arm.provider_id, arm.provider_label} - {""}
    text = wanted.strip()
    if text.startswith("provider="):
        rest = text[len("provider=") :]
        provider, sep, prompt = rest.partition(", prompt=")
        if provider.strip() not in providers:
            return False
        return not sep or _label_matches(prompt, arm.prompt_label)
    if text.startswith("prompt="):
        return _label_matches(text[len("prompt=") :], arm.prompt_label)
    return text in providers or _label_matches(text, arm.prompt_label) or text == arm.display()


def _label_matches(given: str, label: str) -> bool:
    """The label itself, or as a listing shows it (`listed`: one line, pasteable), whole or
    shortened ("first characters...")."""
    shown = listed(label)
    if given in (label, shown):
        return True
    return (
        len(shown) > MAX_ARM_LABEL
        and given.endswith("...")
        and len(given) > 3
        and shown.startswith(given[:-3])
    )


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def listed(text: str) -> str:
    """A label on one line as listings and messages show it: newline, tab and carriage return
    as \\n \\t \\r and other control characters as \\xNN, so what is listed can be pasted
    back as `--arm` (which takes this form or the label itself) and nothing in it acts on the
    terminal."""
    return _CONTROL.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}"), text)


def _str_or_empty(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else as_text(value)
