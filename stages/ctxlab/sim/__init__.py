"""The offline Anthropic Messages API (DESIGN §3): validation, prompt caching, context editing,
compaction, faults and streaming, behind the genuine SDK client or a local HTTP server."""

from .clock import Latency, SimClock
from .engine import Call, SimResponse, Simulator
from .faults import Fault, FaultPlan
from .responder import EchoResponder, ModelView, Reply, Responder
from .transport import make_async_client, make_client

__all__ = [
    "Call", "EchoResponder", "Fault", "FaultPlan", "Latency", "ModelView", "Reply", "Responder",
    "SimClock", "SimResponse", "Simulator", "make_async_client", "make_client",
]
