"""Session trees on the real logs of ``../shared/transcripts`` and ``../shared/sessions``
together (flat folders: a parent in one, two of its sidechains in the other). Skipped when
either folder is absent (the logs are never copied here)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from ctxlab import models
from ctxlab.cli import main
from ctxlab.replay.discover import find_logs
from ctxlab.replay.lines import read_lines

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "replay.md"
FOLDERS = [SHARED / "transcripts", SHARED / "sessions"]
ABSENT = [str(f) for f in FOLDERS if not f.is_dir()]

pytestmark = [pytest.mark.skipif(bool(ABSENT), reason=f"no real session logs in {ABSENT}"),
              pytest.mark.reliability]  # the real logs are `make reliability`'s


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """``ctxlab replay`` of both folders (stage 1: the grouping and the bill are the point)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["replay", *map(str, FOLDERS), "--stage", "1", "--json"]) == 0
    return json.loads(out.getvalue())


def _sidechain_files() -> list[str]:
    """The logs whose every line is a sidechain line, read here without the replay's code."""
    found = []
    for path in find_logs(FOLDERS):
        entries = read_lines(path).entries
        if entries and all(e.data.get("isSidechain") for e in entries if "sessionId" in e.data):
            found.append(path.name)
    return sorted(found)


def test_all_seven_sidechains_are_grouped_under_their_parents(report: dict[str, Any]) -> None:
    sidechains = _sidechain_files()
    assert len(sidechains) == 7
    assert not any(r["orphan"] for r in report["replays"])
    grouped = sorted(s["file"] for r in report["replays"] for s in r["sidechains"])
    assert grouped == sidechains
    kinds = {s["file"]: s["kind"] for r in report["replays"] for s in r["sidechains"]}
    assert kinds["spotter__4d5611e5__agent-acompact-e1f845.jsonl"] == "compaction"
    assert kinds["spotter__4d5611e5__agent-a2898e3.jsonl"] == "explore"


def usage_lines(entries: list[Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """``message.id`` → (model, usage) of its last line; lines the client wrote and usage
    with no input left out. Written here, apart from the replay's code."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for entry in entries:
        message = entry.data.get("message") or {}
        usage = message.get("usage") or {}
        if entry.type == "assistant" and message.get("model") != "<synthetic>" and any(
                (usage.get(k) or 0) > 0 for k in ("input_tokens", "cache_read_input_tokens",
                                                  "cache_creation_input_tokens")):
            found[message["id"]] = (message["model"], usage)
    return found


def priced(lines: dict[str, tuple[str, dict[str, Any]]]) -> float:
    total = 0.0
    for model, u in lines.values():
        one_hour = int((u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0)
        total += models.cost_usd(
            models.get(model), input_tokens=int(u.get("input_tokens") or 0),
            output_tokens=int(u.get("output_tokens") or 0),
            cache_read=int(u.get("cache_read_input_tokens") or 0),
            write_5m=int(u.get("cache_creation_input_tokens") or 0) - one_hour,
            write_1h=one_hour)
    return total


def test_the_compaction_sidechain_costs_its_recorded_usage(report: dict[str, Any]) -> None:
    [compaction] = [s for r in report["replays"] for s in r["sidechains"]
                    if s["kind"] == "compaction"]
    path = SHARED / "transcripts" / compaction["file"]
    assert compaction["bill"]["recorded_usd"] == pytest.approx(
        priced(usage_lines(read_lines(path).entries)))
    bill = compaction["bill"]
    assert bill["with_zones_usd"] == pytest.approx(bill["recorded_usd"], rel=0.05)
    cold = models.cost_usd(models.get(compaction["model"]), input_tokens=0,
                           write_5m=bill["input_tokens"], output_tokens=bill["output_tokens"])
    said = " ".join(DOCS.read_text(encoding="utf-8").split())  # the figures docs/replay.md gives
    assert (f"at ${cold:.4f}, {cold / bill['recorded_usd']:.1f} times the "
            f"${bill['recorded_usd']:.4f} its usage recorded") in said
    assert f"It now costs ${bill['with_zones_usd']:.4f} both ways" in said


def test_every_trees_recorded_total_is_its_deduplicated_usage(report: dict[str, Any]) -> None:
    """The last usage line of each ``message.id`` of a session, over every file, once."""
    lines: dict[str, list[Any]] = {}
    for path in find_logs(FOLDERS):
        for entry in read_lines(path).entries:
            lines.setdefault(entry.data.get("sessionId"), []).append(entry)
    for r in report["replays"]:
        expected = priced(usage_lines(lines[r["session"]]))
        assert r["tree"]["recorded_usd"] == pytest.approx(expected), r["file"]
        members = [r, *r["sidechains"]]
        assert r["tree"]["recorded_usd"] == pytest.approx(
            sum(m["bill"]["recorded_usd"] for m in members))
