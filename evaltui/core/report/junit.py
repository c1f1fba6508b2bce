"""The findings as a JUnit XML file (`evaltui report --junit PATH`): what CI dashboards read.

The shape is Apache Ant's JUnit report as the common schema describes it (windyroad/JUnit-Schema,
`JUnit.xsd`, vendored in tests/data/junit/ where a test validates every file this writes): a
`testsuites` root holding one `testsuite` per suite of findings (`report.findings`: the decision,
then one per metric), each with its required `properties`, `system-out` and `system-err`, a
`package` and an `id`; each regression a `testcase` with a `failure`, each improvement a passing
`testcase`. The schema's timestamp carries no time zone: it is UTC, and says so in a property.
The host is written as `localhost`, which the schema allows, so the file names no machine.

Text from the runs (item ids, slices, metric names) is made inert (`textsafe.inert`: control
characters as visible stand-ins) and stripped of the characters XML 1.0 cannot hold; the XML
writer escapes the rest (`&`, `<`, quotes).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from evaltui import __version__
from evaltui.core.report.findings import DECISION_SUITE, Findings, FindingSuite
from evaltui.core.textsafe import inert, one_line

# Characters XML 1.0 cannot hold that `inert` keeps: the two non-characters at the end of the
# Basic Multilingual Plane (inert already replaces C0 controls, lone surrogates and the rest).
_NOT_XML = re.compile("[\ufffe\uffff]")
PACKAGE = "evaltui"


def xml_text(text: str) -> str:
    """Untrusted text as XML character data: inert, and only characters XML 1.0 allows."""
    return _NOT_XML.sub(lambda m: f"<U+{ord(m.group()):04X}>", inert(text))


def _token(text: str, fallback: str) -> str:
    """An `xs:token` attribute (a name) that is never empty after whitespace is collapsed."""
    flat = xml_text(one_line(text))
    return flat if flat.strip() else fallback


def junit_xml(findings: Findings, now: datetime | None = None) -> str:
    """The findings as a JUnit XML document (UTF-8 text, with its declaration)."""
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    root = ET.Element("testsuites")
    for index, suite in enumerate(findings.suites):
        root.append(_suite(suite, index, stamp, findings))
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


def _suite(suite: FindingSuite, index: int, stamp: str, findings: Findings) -> ET.Element:
    element = ET.Element(
        "testsuite",
        {
            "name": _token(suite.name, f"suite {index}"),
            "package": PACKAGE,
            "id": str(index),
            "timestamp": stamp,
            "hostname": "localhost",
            "tests": str(len(suite.cases)),
            "failures": str(suite.failures),
            "errors": "0",
            "skipped": "0",
            "time": "0",
        },
    )
    properties = ET.SubElement(element, "properties")
    facts = {
        "evaltui.version": __version__,
        "evaltui.decision": findings.line,
        "evaltui.status": findings.status,
        "evaltui.exit_code": str(findings.exit_code),
        "evaltui.timestamp_zone": "UTC",
    }
    if suite.file is not None:
        facts["evaltui.candidate"] = suite.file
        facts["evaltui.unchanged_items"] = str(suite.unchanged)
    for name, value in facts.items():
        ET.SubElement(properties, "property", {"name": name, "value": xml_text(one_line(value))})
    classname = _token(suite.name, PACKAGE)
    kind = findings.status if suite.name == DECISION_SUITE else "regression"
    for case in suite.cases:
        testcase = ET.SubElement(
            element,
            "testcase",
            {"name": _token(case.name, "(empty id)"), "classname": classname, "time": "0"},
        )
        if case.failed:
            failure = ET.SubElement(
                testcase,
                "failure",
                {"message": xml_text(one_line(case.message)), "type": kind},
            )
            detail = [f"item: {case.name}", case.message]
            if case.slice is not None:
                detail.append(f"slice: {case.slice}")
            failure.text = xml_text("\n".join(detail))
    ET.SubElement(element, "system-out").text = ""
    ET.SubElement(element, "system-err").text = ""
    return element
