"""Reading a run for a rung: what was rejected, what fired, what the cache did (§12.6)."""

from __future__ import annotations

from ..runner import RunResult
from ..telemetry import TurnRecord

PTL = "prompt is too long"


def pct(value: float) -> str:
    """``0.837`` → ``"84 %"``."""
    return f"{value:.0%}".replace("%", " %")


def agent(result: RunResult) -> list[TurnRecord]:
    return [r for r in result.records if r.kind == "agent"]


def rejected(result: RunResult, text: str) -> TurnRecord | None:
    """The first call rejected with an error whose message contains ``text``."""
    return next((r for r in result.records if r.error and text in r.error["message"]), None)


def events(result: RunResult, *layers: str) -> list[tuple[int, dict[str, object]]]:
    """(turn, event) of every compaction by one of ``layers`` (all layers when none given)."""
    return [(r.turn, e) for r in result.records for e in r.compactions
            if not layers or e["layer"] in layers]


def turns(found: list[tuple[int, dict[str, object]]]) -> str:
    shown = sorted({t for t, _ in found})
    return ", ".join(map(str, shown[:6])) + (" …" if len(shown) > 6 else "")


def error_text(record: TurnRecord) -> str:
    assert record.error is not None
    return record.error["message"].split(" Each ")[0]


def rejected_size(record: TurnRecord) -> str:
    """``"249,292 tokens > 200,000"`` from a ``prompt is too long`` rejection."""
    import re
    found = re.search(r"(\d+) tokens > (\d+) maximum", error_text(record))
    if found is None:
        return error_text(record)
    return f"{int(found.group(1)):,} tokens > the {int(found.group(2)):,} window"
