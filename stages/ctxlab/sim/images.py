"""Image blocks: the API's limits on base64 images (vision docs; API notes §2.2).

An image's ``source.base64`` must be JPEG, PNG, GIF or WebP, valid base64, at most 5 MB
(the limit applies to the base64 text, as the API's error counts it) and at most 8000 pixels
on each side. The pixel size is read from the format's header, without an imaging library;
the same reader prices images (``render.image_tokens``).
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Any

from . import wording
from .errors import invalid

MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAX_BYTES = 5 * 1024 * 1024
MAX_SIDE = 8000


def size(raw: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, GIF, WebP or JPEG header; None when it is none of them."""
    if raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) >= 24:
        return struct.unpack(">II", raw[16:24])
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        return struct.unpack("<HH", raw[6:10])
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP" and len(raw) >= 30:
        return _webp(raw)
    if raw[:2] == b"\xff\xd8":
        return _jpeg(raw)
    return None


def _webp(raw: bytes) -> tuple[int, int] | None:
    chunk = raw[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(raw[24:27], "little") + 1
        return width, int.from_bytes(raw[27:30], "little") + 1
    if chunk == b"VP8L":
        bits = int.from_bytes(raw[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", raw[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


def _jpeg(raw: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 9 < len(raw):
        if raw[at] != 0xFF:
            return None
        marker = raw[at + 1]
        length = struct.unpack(">H", raw[at + 2:at + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", raw[at + 5:at + 9])
            return width, height
        at += 2 + length
    return None


def decoded_size(source: dict[str, Any]) -> tuple[int, int] | None:
    """The pixel size of a ``base64`` source, from its first bytes; None if unreadable."""
    if source.get("type") != "base64" or not isinstance(source.get("data"), str):
        return None
    head = source["data"][:2048]
    head = head[:len(head) - len(head) % 4]
    try:
        return size(base64.b64decode(head))
    except (binascii.Error, ValueError):
        return None


def check_media_type(source: dict[str, Any], path: str) -> None:
    """A shape rule: a ``base64`` source's media type (``path`` ends in ``….image.source``)."""
    if source.get("type") == "base64" and source["media_type"] not in MEDIA_TYPES:
        raise invalid(wording.IMAGE_MEDIA_TYPE.format(path=f"{path}.base64"))


def check_payloads(messages: list[dict[str, Any]],
                   origin: list[list[tuple[int, int]]]) -> None:
    """The payload rules of every base64 image in a request's ``messages``: size, base64,
    pixels; ``origin`` maps each block to its place in the request as sent (error paths).

    They run with the request's other rules, not with the shape checks, so a history checker
    that only wants the message rules (``replay.check``) is not stopped by an image a public
    log's redaction damaged.
    """
    for i, message in enumerate(messages):
        for j, block in enumerate(message["content"]):
            ci, cj = origin[i][j] if origin[i] else (i, j)
            path = f"messages.{ci}.content.{cj}"
            if block.get("type") == "image":
                _check_payload(block["source"], f"{path}.image.source.base64")
            elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                for k, sub in enumerate(block["content"]):
                    if sub.get("type") == "image":
                        _check_payload(sub["source"], f"{path}.tool_result.content.{k}"
                                                      ".image.source.base64")


def payload_problem(source: dict[str, Any]) -> str | None:
    """Which payload rule a ``base64`` source breaks — ``"too big"``, ``"base64"`` or
    ``"pixels"`` — or None when the API would take it."""
    if source.get("type") != "base64":
        return None
    data = source.get("data")
    if not isinstance(data, str):
        return "base64"
    if len(data) > MAX_BYTES:
        return "too big"
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "base64"
    found = size(raw)
    return "pixels" if found is not None and max(found) > MAX_SIDE else None


def _check_payload(source: dict[str, Any], where: str) -> None:
    problem = payload_problem(source)
    if problem == "too big":
        raise invalid(wording.IMAGE_TOO_BIG.format(path=where, size=len(source["data"]),
                                                   limit=MAX_BYTES))
    if problem == "base64":
        raise invalid(wording.IMAGE_BASE64.format(path=where))
    if problem == "pixels":
        raise invalid(wording.IMAGE_DIMENSIONS.format(path=where, limit=MAX_SIDE))
