# Generated from solutions/s3_offload/preview.py — your exercise: edit it.
# `ctxlab workbook reset 3` regenerates it (your version is backed up first).
"""Exercise 3.2 — what stays in the context: head, tail, length and the way back (§7.4, §3.2).

Keep the end as well as the beginning: errors and summaries are usually printed last (guide
§14 stage 3, "保留结尾"). The pointer must name a path the agent's own ``read_file`` accepts.
"""

from __future__ import annotations

HEAD = 2_000
TAIL = 1_000


def make_preview(content: str, path: str, *, head: int = HEAD, tail: int = TAIL) -> str:
    """The text that replaces an offloaded result.

    The first ``head`` and the last ``tail`` characters of ``content``, and between them one
    line saying how many characters were left out, the full length, and that the whole
    output is in ``path`` (readable with read_file). Content no longer than ``head + tail``
    is returned unchanged.
    """
    raise NotImplementedError("Exercise 3.2 — make_preview(): see notebooks/03_offload.ipynb")
