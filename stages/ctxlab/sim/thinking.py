"""Signed thinking blocks, so the simulator can tell modified ones apart (R14, API notes §3.5).

A signature is ``base64(payload).mac``: the payload names the response, the block's place among
that response's thinking blocks, how many there were, and a hash of the text. The MAC makes it
unforgeable without any server-side storage; the payload lets a check see edits, drops and
reordering within the latest assistant message.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from functools import lru_cache
from typing import Any

_KEY = b"ctxlab-simulator-thinking-key"


def _text_hash(block: dict[str, Any]) -> str:
    return _hash_of(str(block.get("thinking", "")))


@lru_cache(maxsize=65_536)
def _hash_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def sign(block: dict[str, Any], *, message_id: str, index: int, count: int) -> str:
    """The signature for ``block`` as the ``index``-th of ``count`` thinking blocks."""
    return _signature(_text_hash(block), message_id, index, count)


@lru_cache(maxsize=65_536, typed=True)  # typed: True and 1 sign differently
def _signature(text_hash: str, message_id: str, index: int, count: int) -> str:
    """The signature itself, made once: a replay re-signs the same blocks before every
    request (``replay.signatures``)."""
    payload = json.dumps({"m": message_id, "i": index, "n": count, "h": text_hash},
                         sort_keys=True).encode()
    mac = hmac.new(_KEY, payload, hashlib.sha256).hexdigest()[:32]
    return base64.urlsafe_b64encode(payload).decode() + "." + mac


def decode(signature: str) -> dict[str, Any] | None:
    """The signed payload, or None when the signature is not one the simulator issued."""
    encoded, _, mac = signature.rpartition(".")
    try:
        payload = base64.urlsafe_b64decode(encoded.encode())
    except (binascii.Error, ValueError):
        return None
    expected = hmac.new(_KEY, payload, hashlib.sha256).hexdigest()[:32]
    if not hmac.compare_digest(expected, mac):
        return None
    return json.loads(payload)


@lru_cache(maxsize=65_536)
def _verified(signature: str) -> dict[str, Any] | None:
    """``decode``, once per signature (read, never changed, by ``problem``): R14 looks at the
    latest assistant message of every request, which a conversation sends again and again."""
    return decode(signature)


def problem(blocks: list[dict[str, Any]]) -> tuple[int, str] | None:
    """First (position, kind) that breaks R14 among one message's thinking blocks.

    ``kind`` is "signature" (not issued by us) or "modified" (edited, dropped or reordered).
    Each block carries its index in the message under the key ``_pos``.
    """
    seen: list[dict[str, Any]] = []
    for block in blocks:
        # The simulator never issues redacted_thinking, so its ``data`` never verifies.
        payload = _verified(str(block.get("signature") or block.get("data") or ""))
        if payload is None:
            return block["_pos"], "signature"
        if block.get("type") == "thinking" and payload["h"] != _text_hash(block):
            return block["_pos"], "modified"
        seen.append(payload)
    if seen:
        ids = {p["m"] for p in seen}
        order = [p["i"] for p in seen]
        if len(ids) > 1 or order != list(range(seen[0]["n"])):
            return blocks[0]["_pos"], "modified"
    return None
