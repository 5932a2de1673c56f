"""What the band reads from the history before each request (§7.4, §7.5, §10.1).

Each turn the band asks the same questions of the whole history: which calls the agent made
(and which repeat a cleared one), which results it holds and which of the task's words each
one names. Every answer is made of what each message says on its own, in order: the answer
for a history is the answers for its messages, one after another. ``HistoryReads`` asks them
of the whole history, which is easy to read and costs the length of the session every turn;
``ctxlab.incremental`` gives these reads a memory, so that each message is read once.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import chain, takewhile
from typing import Any

from s3_offload.layer import result_text
from s3_offload.store import OFFLOAD_DIR
from s4_summarize.rebuild import tool_uses

from .microcompact import NON_DISCARDABLE, located_results, result_ids, terms_of

Messages = list[dict[str, Any]]
Call = tuple[str, str]  # a tool call's id, and what it asks (its tool and input, as text)


class HistoryReads:
    """The band's reads of the whole history, one pass each (see the module docs)."""

    terms: frozenset[str] | None  # the task's words (``Pipeline``)

    def uses(self, messages: Messages) -> list[dict[str, Any]]:
        """The tool calls of ``messages`` (``tool_use`` blocks), in order."""
        return tool_uses(messages)

    def calls(self, messages: Messages) -> list[Call]:
        """Each tool call's id and what it asks (``calls``), in order."""
        return calls(messages)

    def found(self, messages: Messages) -> list[frozenset[str]]:
        """For each tool result, in order, the task's words it names."""
        return found_terms(messages, self.terms or frozenset())

    def named(self, messages: Messages) -> Counter[str]:
        """How many tool results name each of the task's words (``found``, counted)."""
        return Counter(chain.from_iterable(self.found(messages)))

    def results(self, messages: Messages) -> list[str]:
        """The ids of the tool results, in order."""
        return result_ids(messages)

    def located(self, messages: Messages) -> list[tuple[int, str]]:
        """Each tool result, in order: the index of its message and its id."""
        return located_results(messages)

    def saved(self, messages: Messages) -> list[tuple[str, str]]:
        """The reads of a saved copy (``saved_reads``), in order."""
        return saved_reads(messages)


def calls(messages: Messages) -> list[Call]:
    """Each tool call's id and what it asks: two calls ask the same when their tool and their
    input are the same (§7.4: a cleared result is fetched again by the same call)."""
    return [(b["id"], json.dumps([b.get("name"), b.get("input")], sort_keys=True))
            for b in tool_uses(messages)]


def found_terms(messages: Messages, terms: frozenset[str]) -> list[frozenset[str]]:
    """For each tool result of ``messages``, in order, the words of ``terms`` it names."""
    return [terms_of(result_text(b)) & terms for m in messages if isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


def telling_terms(named: Counter[str], results: int, terms: frozenset[str]) -> frozenset[str]:
    """The task's terms that tell one result from another: those named by at most half of
    the ``results`` in view (``named``: how many name each term, ``HistoryReads.named``). A
    term in most of them, a word like "then", says nothing about any one;
    ``matching_lines`` applies the same rule to the lines of one result (§7.4). Only the
    named terms are read: one no result names is named by none of them."""
    return terms - {t for t, n in named.items() if n > results / 2}


def edited_reads(uses: list[dict[str, Any]]) -> list[str]:
    """The newest read of each file the agent has edited (``uses``: its tool calls, in
    order): its working copy (§10.1)."""
    edited = {(b.get("input") or {}).get("path") for b in uses if b.get("name") == "edit_file"}
    if not edited:
        return []  # no working copy: no read to look for
    newest = {(b.get("input") or {}).get("path"): b["id"] for b in uses
              if b.get("name") == "read_file" and (b.get("input") or {}).get("path") in edited}
    return list(newest.values())


def recovered(uses: list[dict[str, Any]]) -> list[str]:
    """The reads of a saved copy since the agent's newest edit or write (§7.4, §3.2). The
    agent reads a cleared result back because its next change needs it; cleared again before
    that change, it is read back again: the recover-and-clear loop. Once the agent has made
    a change, the copy has served, and it may be cleared like any other result."""
    since = list(takewhile(lambda b: b.get("name") not in NON_DISCARDABLE, reversed(uses)))
    return [b["id"] for b in reversed(since) if saved_copy(b)]


def saved_reads(messages: Messages) -> list[tuple[str, str]]:
    """The reads of a saved copy (a path inside the offload folder): each call's id and that
    path, in order."""
    return [(b["id"], path) for b in tool_uses(messages) if (path := saved_copy(b))]


def saved_copy(use: dict[str, Any]) -> str | None:
    """The saved copy a tool call reads (a ``read_file`` of a path inside the offload
    folder), or None."""
    path = str((use.get("input") or {}).get("path", ""))
    return path if use.get("name") == "read_file" and path.startswith(
        OFFLOAD_DIR.as_posix()) else None
