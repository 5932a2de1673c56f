"""Small PNG images for user messages, built in memory without any imaging library (§9.1).

An image costs about width × height / 750 tokens however small its bytes are, which is why a
compaction request that carries old screenshots can overflow the window by itself (§9.1).
"""

from __future__ import annotations

import base64
import struct
import zlib
from functools import lru_cache
from typing import Any

from .schema import Image


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def parse_color(color: str) -> tuple[int, int, int]:
    """``#rrggbb`` as an RGB triple; ValueError when malformed."""
    if len(color) != 7 or color[0] != "#":
        raise ValueError(f"expected a colour like '#3366cc', got {color!r}")
    value = int(color[1:], 16)
    return value >> 16, (value >> 8) & 0xFF, value & 0xFF


@lru_cache(maxsize=64)
def png(width: int, height: int, color: str) -> bytes:
    """A ``width`` × ``height`` PNG filled with ``color``, with a darker top bar."""
    fill = bytes(parse_color(color))
    bar = bytes(c // 2 for c in fill)
    bar_rows = max(1, height // 8)
    rows = [b"\x00" + (bar if y < bar_rows else fill) * width for y in range(height)]
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + _chunk(b"IEND", b""))


def image_block(image: Image) -> dict[str, Any]:
    """The Messages API ``image`` block for ``image`` (base64 PNG)."""
    data = base64.b64encode(png(image.width, image.height, image.color)).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
