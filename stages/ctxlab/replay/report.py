"""What a replay found, turn by turn and in total (guide §12.6 telemetry, §12.8 acceptance).

One ``Point`` per replayed request (its size against the window), one ``Event`` per time a
layer fired (which layer, why, how much it freed), one ``Violation`` per check the history
failed, what went to disk, what removed messages held (``carry``), and the bill.
``ReplayReport.to_dict()`` is the ``--json`` document of ``ctxlab replay``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .bill import Bill
from .carry import Carry
from .transcript import ImportReport


@dataclass(frozen=True)
class Point:
    """One replayed request: the history as the layer left it, and its size."""

    turn: int
    messages: int
    tokens: int  # what the layer kept plus the overhead the log's usage shows
    baseline: int  # the same request with no layer (the recorded size when known)
    overhead: int  # recorded size beyond the logged messages' count: system, tools, gap
    occupancy: float  # tokens / window
    offered: int = 0  # the history handed to the layer, sized the same way, before it acted


@dataclass(frozen=True)
class Event:
    """A layer fired: at which request, in which hook, why, and what it freed (§12.6)."""

    turn: int
    hook: str  # "admit" or "prepare"
    layer: str
    tokens_freed: int  # as the layer reported it
    trigger: str
    measured: int | None = None  # the drop the replay measured over the whole hook call
    freed_error: int = 0  # how far the layer says ``tokens_freed`` may be off (0: counted)


@dataclass(frozen=True)
class Violation:
    """A check that failed: the history would be rejected, in the API's words (§9.2)."""

    turn: int
    hook: str
    message: str


@dataclass
class LayerTotals:
    """Per layer: how often it fired, what it freed, at which requests."""

    triggers: int = 0
    tokens_freed: int = 0
    turns: list[int] = field(default_factory=list)


@dataclass
class ReplayReport:
    """Everything one replay found."""

    file: str
    stage: int | str  # a stage's number, or the ``MODULE:FACTORY`` of the layer replayed
    model: str
    model_note: str
    window: int
    imported: ImportReport
    messages: int
    bill: Bill
    window_note: str = "the model's window"  # how the window is known (``session_window``)
    points: list[Point] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    checks: int = 0
    carry: list[Carry] = field(default_factory=list)
    disk: dict[str, int] = field(default_factory=dict)  # relative path → bytes
    errors: list[str] = field(default_factory=list)
    final_messages: int = 0

    def layers(self) -> dict[str, LayerTotals]:
        """Events summed per layer, in the order the layers first fired."""
        totals: dict[str, LayerTotals] = {}
        for event in self.events:
            layer = totals.setdefault(event.layer, LayerTotals())
            layer.triggers += 1
            layer.tokens_freed += event.tokens_freed
            if event.turn not in layer.turns:
                layer.turns.append(event.turn)
        return totals

    @property
    def through(self) -> str:
        """What the log was replayed through: ``stage 3``, or ``layer MODULE:FACTORY``."""
        return f"stage {self.stage}" if isinstance(self.stage, int) else f"layer {self.stage}"

    @property
    def peak_occupancy(self) -> float:
        return max((p.occupancy for p in self.points), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: headline numbers first, then the series."""
        return {
            "file": self.file, "stage": self.stage, "model": self.model,
            "model_note": self.model_note, "window": self.window,
            "window_note": self.window_note,
            "messages": self.messages, "final_messages": self.final_messages,
            "requests": len(self.points), "violations": len(self.violations),
            "checks": self.checks, "peak_occupancy": self.peak_occupancy,
            "layers": {name: asdict(t) for name, t in self.layers().items()},
            "disk": {"files": len(self.disk), "bytes": sum(self.disk.values()),
                     "paths": sorted(self.disk)},
            "bill": self.bill.to_dict(),
            "import": self.imported.to_dict(),
            "errors": self.errors,
            "violation_details": [asdict(v) for v in self.violations[:20]],
            "carry": [c.to_dict() for c in self.carry],
            "events": [asdict(e) for e in self.events],
            "occupancy": [asdict(p) for p in self.points],
        }
