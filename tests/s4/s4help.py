"""Stage-4 test helpers: synthetic histories and a metered session on the simulated agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
import httpx2

from ctxlab import scenarios
from ctxlab.brain import Brain
from ctxlab.session import Session
from ctxlab.sim import Simulator, make_client
from ctxlab.tools import definitions

Messages = list[dict[str, Any]]
SIM_32K = "ctxlab-sim-32k"
TASK = "Please make `python3 check.py` pass; the failing check is about the report timeout."
RULE = "Do not modify config.py: other services import it."
LATER = "Also, keep the old log files; we still need them for the audit."


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def make_history(rounds: int, *, result_chars: int = 400, paths: list[str] | None = None,
                 follow_up_at: int | None = None) -> Messages:
    """A valid history: the task and a rule, then ``rounds`` rounds of one tool call each.

    Round ``i`` reads ``paths[i]`` when given (else runs a command); its result has
    ``result_chars`` characters. ``LATER`` is sent with the results of round ``follow_up_at``.
    """
    messages: Messages = [{"role": "user", "content": [_text(TASK), _text(RULE)]}]
    for i in range(rounds):
        call_id = f"toolu_{i:04d}"
        if paths is not None:
            use = {"type": "tool_use", "id": call_id, "name": "read_file",
                   "input": {"path": paths[i]}}
        else:
            use = {"type": "tool_use", "id": call_id, "name": "run_command",
                   "input": {"command": f"cat logs/part-{i}.log"}}
        result = {"type": "tool_result", "tool_use_id": call_id,
                  "content": f"part {i}: " + "lorem ipsum dolor " * (result_chars // 18)}
        messages.append({"role": "assistant", "content": [_text(f"Step {i}."), use]})
        extra = [_text(LATER)] if i == follow_up_at else []
        messages.append({"role": "user", "content": [result, *extra]})
    return messages


def make_session(workspace: Path, model: str = SIM_32K, *,
                 sim: Simulator | None = None) -> Session:
    """A session on the simulated agent (constraint scenario) working in ``workspace``."""
    sim = sim or Simulator(responder=Brain(scenarios.load("constraint")))
    return Session(make_client(sim), model, [_text("You are a careful coding agent.")],
                   definitions(), workspace)


def api_error(cls: type[anthropic.APIStatusError], status: int,
              message: str) -> anthropic.APIStatusError:
    """An SDK error as the client raises it for an HTTP ``status`` answer."""
    request = httpx2.Request("POST", "http://ctxlab.sim/v1/messages")
    return cls(message, response=httpx2.Response(status, request=request), body=None)


def too_long(total: int, window: int = 32_000) -> anthropic.BadRequestError:
    """The API's rejection of a prompt of ``total`` tokens (R12)."""
    error = api_error(anthropic.BadRequestError, 400,
                      f"prompt is too long: {total} tokens > {window} maximum")
    assert isinstance(error, anthropic.BadRequestError)
    return error
