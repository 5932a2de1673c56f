# Generated from solutions/s3_offload/budget.py — your exercise: edit it.
# `ctxlab workbook reset 3` regenerates it (your version is backed up first).
"""Exercise 3.3 — the two-level budget: per result and per message (§7.4, §2.4, §6.10).

One budget per result is not enough: ten parallel calls of 40K characters each pass it one
by one and still put 400K characters into a single message (§2.4). So there is a second
budget over all the results of one message, met by offloading the largest first.

The read tool is exempt, before any budget is consulted: offloading what ``read_file``
returned would make the agent read the offloaded file back, get a result that is offloaded
again, and loop (§6.10). The budgets are settings; the exemption is not one of them: only the
pitfall ladder's naive variant (``exempt=frozenset()``) runs without it, to show that loop.
"""

from __future__ import annotations

READ_TOOLS = frozenset({"read_file"})
PER_RESULT = 50_000  # characters one result may have (§2.4)
PER_MESSAGE = 200_000  # characters the results of one message may have together (§2.4)


def choose_offloads(results: list[tuple[str, str, int]], *, per_result: int = PER_RESULT,
                    per_message: int | None = PER_MESSAGE,
                    exempt: frozenset[str] = READ_TOOLS) -> list[str]:
    """Which results of one message to offload, given (tool_use_id, tool name, length).

    Never a result of a tool in ``exempt`` (``READ_TOOLS``). Every other result longer than
    ``per_result``; then, while the message's total length (offloaded results no longer
    counted) exceeds ``per_message`` (None: no per-message budget), the largest remaining
    result. Returns the chosen ids in the order of ``results``.
    """
    raise NotImplementedError("Exercise 3.3 — choose_offloads(): see notebooks/03_offload.ipynb")
