# Generated from solutions/s1_loop/loop.py — your exercise: edit it.
# `ctxlab workbook reset 1` regenerates it (your version is backed up first).
"""Exercise 1.1 — the agent loop (guide §14 stage 1 steps 1–3, §1.2).

Keep a messages array; send it; when the answer asks for tools, run them and append every
result in one user message, right after the assistant message that asked (the API insists,
§9.2); send again; stop when the answer asks for nothing more.
"""

from __future__ import annotations

from typing import Any

from ctxlab.scenarios import FollowUps
from ctxlab.session import ContextLayer, Session
from ctxlab.tools import ToolBox, to_tool_result


def run_loop(session: Session, messages: list[dict[str, Any]], toolbox: ToolBox, *,
             layer: ContextLayer | None = None, follow_ups: FollowUps | None = None,
             max_turns: int = 50) -> list[dict[str, Any]]:
    """Drive the conversation until the model stops asking for tools; returns the history.

    Each turn: let ``layer.prepare`` rewrite the history (when there is a layer; its result
    becomes the history), send it with ``session.create(messages)``, append the assistant's
    content blocks (``block.model_dump(exclude_none=True)``), and if ``stop_reason`` is
    ``"tool_use"``: run each ``tool_use`` block with ``toolbox.run(name, input)``, turn the
    outputs into ``tool_result`` blocks (``to_tool_result``), let ``layer.admit`` see them,
    add any user messages ``follow_ups.after(...)`` releases after the results, and append
    all of it as one user message. API errors propagate to the caller.
    """
    raise NotImplementedError("Exercise 1.1 — run_loop(): see notebooks/01_loop.ipynb")
