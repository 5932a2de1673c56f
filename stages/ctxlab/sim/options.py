"""Sampling, thinking-budget, stop-sequence and ``thread`` parameters (API notes §3, R15).

Shape rules (``shape``) run with the other request-shape checks: ranges of ``temperature``,
``top_p`` and ``top_k``, ``stop_sequences`` as a list of strings, a thinking budget of at least
1024 tokens, and ``thread``. Combination rules (``combinations``) run with the message rules:
the budget below ``max_tokens``, ``temperature`` 1 under extended thinking, and on Claude 4.5
and newer not both ``temperature`` and ``top_p``.

``thread`` (server-held conversation state, beta ``message-threads-2026-08-12``) is not kept
by the simulator: it answers as a server that cannot thread the request, with the error code
the SDK's tool runner (and Claude Code) read as "resend the full conversation without it".
"""

from __future__ import annotations

from typing import Any

from .. import models
from . import wording
from .errors import APIError, invalid

THREADS_BETA = "message-threads-2026-08-12"
BUDGET_MIN = 1024
_RANGES = {"temperature": (0.0, 1.0), "top_p": (0.0, 1.0)}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def shape(body: dict[str, Any], betas: frozenset[str]) -> None:
    """Types and ranges of the sampling fields, the budget's floor, and ``thread``."""
    for name, (low, high) in _RANGES.items():
        value = body.get(name)
        if value is None:
            continue
        if not _number(value):
            raise invalid(wording.WRONG_TYPE.format(path=name, expected="a valid number"))
        if value > high:
            raise invalid(wording.RANGE_MAX.format(path=name, limit=f"{high:g}"))
        if value < low:
            raise invalid(wording.RANGE_MIN.format(path=name, limit=f"{low:g}"))
    top_k = body.get("top_k")
    if top_k is not None and (not isinstance(top_k, int) or isinstance(top_k, bool)):
        raise invalid(wording.WRONG_TYPE.format(path="top_k", expected="a valid integer"))
    if top_k is not None and top_k < 0:
        raise invalid(wording.RANGE_MIN.format(path="top_k", limit=0))
    stops = body.get("stop_sequences")
    if stops is not None:
        if not isinstance(stops, list):
            raise invalid(wording.WRONG_TYPE.format(path="stop_sequences",
                                                    expected="a valid list"))
        for k, stop in enumerate(stops):
            if not isinstance(stop, str):
                raise invalid(wording.WRONG_TYPE.format(path=f"stop_sequences.{k}",
                                                        expected="a valid string"))
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens")
        if isinstance(budget, int) and budget < BUDGET_MIN:
            raise invalid(wording.BUDGET_MIN)
    if body.get("thread") is not None:
        if THREADS_BETA not in betas:
            raise invalid(wording.EXTRA_INPUT.format(field="thread"))
        raise APIError(400, wording.THREAD_UNSUPPORTED,
                       details={"error_code": "thread_unsupported_request"})


def combinations(body: dict[str, Any], spec: models.ModelSpec, max_tokens: int | None) -> None:
    """Rules between fields: budget below max_tokens, temperature under thinking, temperature
    with top_p on 4.5+ models."""
    thinking = body.get("thinking")
    enabled = isinstance(thinking, dict) and thinking.get("type") == "enabled"
    if enabled and max_tokens and thinking["budget_tokens"] >= max_tokens:
        raise invalid(wording.BUDGET_OVER_MAX)
    temperature = body.get("temperature")
    if enabled and temperature is not None and temperature != 1:
        raise invalid(wording.TEMPERATURE_THINKING)
    if temperature is not None and body.get("top_p") is not None and spec.generation >= 4.5:
        raise invalid(wording.TEMPERATURE_TOP_P)


def stop_sequences(body: dict[str, Any]) -> list[str]:
    """The request's non-empty stop sequences."""
    return [s for s in body.get("stop_sequences") or [] if s]
