"""The second message breakpoint: where the last batch of clearing ended (§6.4, §6.7–6.8).

The cache keeps a prefix only where a breakpoint wrote it. With the one breakpoint that moves
with the newest message, the next batch of clearing — which changes results after the last
batch — finds nothing cached behind the change and writes the whole history again. A
breakpoint left on the message that holds the newest result the last batch cleared keeps that
prefix in the cache (its lookback reaches it as long as it is warm), so the next batch
rewrites only what came after it: the cached prefix moves once per batch. Tools, the static
system zone, the moving breakpoint and this one make the API's four.

The request that runs the next batch keeps the breakpoint at the old place: that is the
prefix it can read, and a read looks back only 20 blocks from a breakpoint (§6.4), less than a
batch usually spans. The request after it marks the new place, which writes the new prefix
at no extra cost (it lies inside what that request reads anyway).

Which message it is follows from the frozen decisions alone (the newest message with a result
microcompact cleared), so a resumed session places it where the first process did. Only a
request that ran a batch marks the place before it, which the decisions no longer show once
that batch is frozen: such a mark is frozen too (``Marks``), so that a resumed session re-sends
the request byte for byte (§6.9).
"""

from __future__ import annotations

from typing import Any

from .zones import MOVING

Messages = list[dict[str, Any]]
MARKS = "anchor-marks"  # the session log's file of frozen marks


class Marks:
    """Where a request that ran a batch marked the last batch's end, by the number of messages
    in the history it was prepared from."""

    def __init__(self) -> None:
        self.by_request: dict[int, int | None] = {}

    def load(self, records: list[dict[str, Any]]) -> None:
        """The marks an earlier process froze (``Ledger.notes(MARKS)``)."""
        self.by_request.update((r["request"], r["index"]) for r in records)

    def frozen(self, request: int, marked: int | None, newest: int | None, note: Any,
               messages: Messages, decisions: dict[str, dict[str, Any]]) -> int | None:
        """The mark of ``request``: the one frozen for it, if it still marks a message of
        ``messages`` holding a cleared result (after a summary a shorter history may repeat
        an earlier request's size), else ``marked``, frozen with ``note(MARKS, record)`` when
        it is not the ``newest`` batch's end."""
        index = self.by_request.get(request)
        if index is not None and index < len(messages) and holds_cleared(messages[index],
                                                                         decisions):
            return index
        if marked != newest:
            self.by_request[request] = marked
            note(MARKS, {"request": request, "index": marked})
        return marked


def holds_cleared(message: dict[str, Any], decisions: dict[str, dict[str, Any]]) -> bool:
    """Whether ``message`` holds a result that microcompact cleared."""
    content = message["content"]
    return not isinstance(content, str) and any(
        b.get("type") == "tool_result"
        and decisions.get(b.get("tool_use_id"), {}).get("layer") == "microcompact"
        for b in content)


def find_anchor(located: list[tuple[int, str]],
                decisions: dict[str, dict[str, Any]]) -> int | None:
    """The index of the newest message holding a cleared result, or None: read backwards
    from the newest result (``located``: each result's message index and id, in order) to
    the first one microcompact cleared."""
    return next((index for index, ident in reversed(located)
                 if decisions.get(ident, {}).get("layer") == "microcompact"), None)


def mark_anchor(messages: Messages, index: int | None) -> Messages:
    """``messages`` with a breakpoint on the last cacheable block of message ``index`` (a
    copy of that message), unless it is the newest, whose breakpoint is already there."""
    if index is None or index >= len(messages) - 1:
        return messages
    blocks = [dict(b) for b in messages[index]["content"]]
    for block in reversed(blocks):
        if block.get("type") != "text" or block.get("text"):
            block["cache_control"] = dict(MOVING)
            break
    return [*messages[:index], dict(messages[index], content=blocks), *messages[index + 1:]]
