"""``range = [first, last]``: one TOML entry that stands for many numbered steps or files.

Inside such an entry, ``{n}`` (or zero-padded ``{n:03d}``) in any string is replaced by the
number. Bulk plans (forty log dumps, a hundred small reads) stay readable this way; only this
placeholder is touched, so Python code with braces in other entries is left alone.
"""

from __future__ import annotations

import re
from typing import Any

from .schema import ScenarioError

_PLACEHOLDER = re.compile(r"\{n(?::0(\d+)d)?\}")


def substitute(value: Any, n: int) -> Any:
    """``value`` with every ``{n}`` placeholder in its strings replaced by ``n``."""
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: str(n).zfill(int(m.group(1) or 0)), value)
    if isinstance(value, list):
        return [substitute(item, n) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, n) for key, item in value.items()}
    return value


def expand(items: Any, file: str, key: str) -> list[tuple[str, Any]]:
    """The entries of array ``key`` with ranges unrolled, each with its location for errors."""
    if not isinstance(items, list):
        return [(key, items)]
    out: list[tuple[str, Any]] = []
    for i, item in enumerate(items):
        where = f"{key}[{i}]"
        if not isinstance(item, dict) or "range" not in item:
            out.append((where, item))
            continue
        bounds = item["range"]
        if (not isinstance(bounds, list) or len(bounds) != 2
                or not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
                or bounds[0] > bounds[1]):
            raise ScenarioError(f"{file}: {where}.range: must be [first, last] with "
                                "integers first <= last")
        body = {k: v for k, v in item.items() if k != "range"}
        out.extend((f"{where}(n={n})", substitute(body, n))
                   for n in range(bounds[0], bounds[1] + 1))
    return out
