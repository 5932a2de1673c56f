"""The stage-3 context layer: offload big results as they arrive (§14 stage 3).

Only ``admit`` does anything: each new batch of tool results is measured against the two
budgets, and the chosen results are written to disk and replaced by their preview (a result's
images stay beside the preview: the offloaded file holds text only). The history itself is
never cut — which is why a task of many small turns still overflows here.
"""

from __future__ import annotations

from typing import Any

from ctxlab.session import Session
from ctxlab.tokens import count_text

from .budget import PER_MESSAGE, PER_RESULT, READ_TOOLS, choose_offloads
from .preview import make_preview
from .store import OFFLOAD_DIR, offload

Blocks = list[dict[str, Any]]


def result_text(block: dict[str, Any]) -> str:
    """The text of a tool_result's content (string or list of text blocks)."""
    content = block.get("content", "")
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
    return str(content)


class OffloadLayer:
    """Offload tool results over budget; leave the history alone.

    ``per_message=None`` drops the per-message budget and ``read_exemption=False`` the read
    tool's exemption: the naive variants, to watch §2.4 and §6.10 happen.
    """

    def __init__(self, *, per_result: int = PER_RESULT, per_message: int | None = PER_MESSAGE,
                 read_exemption: bool = True) -> None:
        self.per_result = per_result
        self.per_message = per_message
        self.exempt = READ_TOOLS if read_exemption else frozenset()

    def prepare(self, messages: Blocks, session: Session) -> Blocks:
        return messages

    def admit(self, results: Blocks, session: Session) -> Blocks:
        sizes = [(b["tool_use_id"], session.tool_names.get(b["tool_use_id"], ""),
                  len(result_text(b))) for b in results if b.get("type") == "tool_result"]
        chosen = set(choose_offloads(sizes, per_result=self.per_result,
                                     per_message=self.per_message, exempt=self.exempt))
        admitted = []
        for block in results:
            if block.get("tool_use_id") not in chosen:
                admitted.append(block)
                continue
            text = result_text(block)
            try:
                offload(session.workspace, block["tool_use_id"], text)
            except ValueError:  # an id that cannot be a file name: the result stays as it is
                admitted.append(block)
                continue
            path = (OFFLOAD_DIR / f"{block['tool_use_id']}.txt").as_posix()
            preview = make_preview(text, path)
            session.report("offload", count_text(text) - count_text(preview),
                           f"{len(text):,} characters over budget")
            admitted.append(dict(block, content=_with_images(block, preview)))
        return admitted


def _with_images(block: dict[str, Any], preview: str) -> str | Blocks:
    """The preview, plus the result's images: a text file cannot hold them, so they stay."""
    content = block.get("content")
    images = [b for b in content if b.get("type") == "image"] if isinstance(content, list) else []
    return [{"type": "text", "text": preview}, *images] if images else preview
