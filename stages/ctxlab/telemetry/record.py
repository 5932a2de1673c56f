"""One record per model call: what was sent, what the API reported, what it cost (§12.6, §2).

A run writes one :class:`TurnRecord` for every call it makes, summarizer calls included, because
side calls are the ones that most easily escape the bill (§12.6, "side-call cost").
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, NotRequired, TypedDict

Kind = Literal["agent", "summary"]


class ToolCall(TypedDict):
    """A tool call fingerprint: the tool's name and a hash of its input (§12.2)."""

    name: str
    input_hash: str


class Compaction(TypedDict):
    """One compaction event: which layer fired, what triggered it, how much it freed (§12.6)."""

    layer: str
    tokens_freed: int
    trigger: str
    freed_error: NotRequired[int]  # how far an estimated ``tokens_freed`` may be off


class ErrorInfo(TypedDict):
    """An API error as the response body names it: ``error.type`` and ``error.message``."""

    type: str
    message: str


def input_hash(tool_input: dict[str, Any]) -> str:
    """A stable short hash of a tool input: equal inputs give equal hashes (§12.2).

    Keys are sorted, so ``{"a": 1, "b": 2}`` and ``{"b": 2, "a": 1}`` hash the same.
    """
    text = json.dumps(tool_input, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def tool_call(name: str, tool_input: dict[str, Any]) -> ToolCall:
    """The fingerprint of one ``tool_use`` block."""
    return {"name": name, "input_hash": input_hash(tool_input)}


def error_info(exc: BaseException) -> ErrorInfo:
    """The ``{"type", "message"}`` of an exception; API errors keep the body's own type."""
    api_type = getattr(exc, "type", None)
    api_message = getattr(exc, "api_message", None)
    if isinstance(api_type, str):
        return {"type": api_type, "message": api_message or str(exc)}
    return {"type": type(exc).__name__, "message": str(exc)}


@dataclass
class TurnRecord:
    """One model call of a run, as the telemetry sees it (§12.6, §14 stage 1 step 4).

    ``reported_input_tokens`` is the total input the API billed: uncached input plus cache
    reads plus cache writes (the three parts are disjoint). ``occupancy`` is that total divided
    by the model's context window. ``estimated_tokens`` is the local chars/4 guess, kept next to
    the reported figure so the gap stays visible (§9.5).
    """

    turn: int
    kind: Kind
    model: str
    messages: int
    estimated_tokens: int
    reported_input_tokens: int = 0
    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    occupancy: float = 0.0
    tool_calls: list[ToolCall] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    thrash: bool = False
    error: ErrorInfo | None = None
    clock: float = 0.0
    misses: list[dict[str, Any]] = field(default_factory=list)
    """Visible facts the model did not find on this call: ``{"fact", "position",
    "occupancy", "tokens", "kind"}`` each (the simulated model's retrieval, DESIGN §4)."""
    changed: list[dict[str, Any]] = field(default_factory=list)
    """Files the model saw change on this call: ``{"file", "fact"}`` each (an older read held
    the fact, the newest read does not: it works from the newest, §10.2)."""
    count_calls: int = 0
    """``count_tokens`` calls the context layer made before this request (§9.5)."""
    layer_size: int | None = None
    """The request's size as the context layer knew it before sending (the last usage plus
    its estimate of what changed, or the API's count), when the layer says (stage 5)."""
    layer_size_band: int | None = None
    """How far the layer said ``layer_size`` may be off (0: counted by the API)."""

    @property
    def size_error(self) -> int | None:
        """The layer's size minus the input tokens the API reported for the request."""
        if self.layer_size is None or self.error is not None or not self.reported_input_tokens:
            return None
        return self.layer_size - self.reported_input_tokens

    @property
    def total_tokens(self) -> int:
        """Input (all three parts) plus output: this call's share of token-per-task (§12.1)."""
        return self.reported_input_tokens + self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TurnRecord:
        """Rebuild a record from :meth:`to_dict` output; unknown keys (``type``) are ignored."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
