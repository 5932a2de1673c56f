"""``ctxlab grade --junit FILE``: the grade as a JUnit report in pytest's own format.

The same shape pytest writes with ``--junitxml`` and ``junit_family=xunit1`` (the family that
allows ``<properties>`` on a test case): ``<testsuites><testsuite name="pytest" …>`` with one
``<testcase>`` per exercise and per ladder cell. Each case carries ``points``, ``max_points``
and ``status`` as properties; one that earned nothing has a ``<failure>`` with the grade's detail,
so CI dashboards that read JUnit show the score and what is left.
"""

from __future__ import annotations

import os
import socket
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from .layout import stage
from .points import EARNS, Scored


def document(scored: list[Scored]) -> ET.ElementTree:
    """The report as an element tree."""
    failures = [s for s in scored if s.status not in EARNS or s.points < s.max]
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", {
        "name": "pytest", "errors": "0", "failures": str(len(failures)), "skipped": "0",
        "tests": str(len(scored)), "time": "0.000",
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S"), "hostname": socket.gethostname()})
    for s in scored:
        case = ET.SubElement(suite, "testcase", {
            "classname": f"{stage(s.stage).package}.{s.kind}", "name": s.item, "time": "0.000"})
        properties = ET.SubElement(case, "properties")
        for name, value in (("points", s.points), ("max_points", s.max), ("status", s.status)):
            ET.SubElement(properties, "property", {"name": name, "value": str(value)})
        if s in failures:
            failure = ET.SubElement(case, "failure", {"message": f"{s.status}: {s.detail}"})
            failure.text = f"{s.item}: {s.status} — {s.detail}"
    return ET.ElementTree(root)


def write(scored: list[Scored], path: Path) -> None:
    """Write the report to ``path`` (atomically: a crash leaves the old file or the new one)."""
    tree = document(scored)
    tmp = path.with_name(path.name + ".tmp")
    tree.write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, path)
