"""Constraints re-injected outside the compressible history (guide §12.3, §12.4).

Which user sentence is a constraint is not for the context layer to judge: keep every text
the user wrote, as it arrives, outside the history. After any compaction, a user text that
is no longer visible word for word goes back into the first message as an attachment — so a
lossy summary cannot make the agent forget "do not modify config.py". Between compactions
nothing is added, so the cached prefix is not disturbed.
"""

from __future__ import annotations

from typing import Any

from ctxlab.tokens import block_text

from .ledger import Ledger

HEADER = "[Your earlier instructions, kept verbatim by the context layer:]"
LOG_NAME = "user-texts"


def block_texts(messages: list[dict[str, Any]]) -> list[str | None]:
    """Each block's own text, in order (None for a block with no text of its own): the
    answer for a history is the answers for its messages, one after another."""
    return [block if isinstance(block, str) else block.get("text")
            for message in messages for block in _blocks(message)]


def _blocks(message: dict[str, Any]) -> list[Any]:
    """A message's blocks (a text content is one block)."""
    return [message["content"]] if isinstance(message["content"], str) else message["content"]


class UserTexts:
    """Every user-written text seen so far, in order; kept in the session log once attached,
    so a resumed session knows them too (a resumed history starts with a summary, not with
    the user's words)."""

    shown = staticmethod(block_texts)  # the bench gives it a memory

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.known: set[str] = set()  # the same texts, to look one up without a scan
        self.ledger: Ledger | None = None

    def attach(self, ledger: Ledger) -> None:
        """Log every text from now on in ``ledger``'s session log; take back those logged by an
        earlier run in the same workspace."""
        self.ledger = ledger
        for entry in ledger.notes(LOG_NAME):
            if isinstance(entry.get("text"), str):
                self._add(entry["text"])

    def remember(self, messages: list[dict[str, Any]]) -> None:
        """Note the user texts of the newest message (and of the first, on the first call).

        Only messages the loop appended are read: what the context layer itself writes
        (summaries, notes, attachments) is never mistaken for something the user said.
        """
        for message in ([messages[0]] if not self.texts else []) + messages[-1:]:
            if message["role"] != "user":
                continue
            content = message["content"]
            for block in [content] if isinstance(content, str) else content:
                text = block if isinstance(block, str) else (
                    block.get("text", "") if block.get("type") == "text" else "")
                if text and self._add(text) and self.ledger is not None:
                    self.ledger.note(LOG_NAME, {"text": text})

    def _add(self, text: str) -> bool:
        """Keep ``text`` unless it is known already; whether it was new."""
        if text in self.known:
            return False
        self.texts.append(text)
        self.known.add(text)
        return True

    def reinject(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Put back, in the first message, every remembered text no longer visible (still a
        block of its own, or else inside any block's text)."""
        missing = self._unseen(messages)
        if missing:  # not a block of its own: quoted inside another one, or gone
            visible = "\n".join(block_text(b) if not isinstance(b, str) else b
                                for m in messages for b in _blocks(m))
            missing = [t for t in missing if t not in visible]
        if not missing or not messages:
            return messages
        first = messages[0]
        content = first["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        attachment = {"type": "text", "text": HEADER + "\n" + "\n".join(missing)}
        return [dict(first, content=blocks + [attachment])] + messages[1:]

    def _unseen(self, messages: list[dict[str, Any]]) -> list[str]:
        """The remembered texts that are no block of their own in ``messages``, in order."""
        shown = set(self.shown(messages))
        return [t for t in self.texts if t not in shown]
