"""Why offload must run before microcompact (excerpt ch8.1: "L3 必须在 L2 之前")."""

from __future__ import annotations

from pathlib import Path

import pytest
from s3_offload import OFFLOAD_DIR, choose_offloads, make_preview, offload
from s5_pipeline import microcompact

pytestmark = pytest.mark.exercise("5.3")

BIG = "line of a very long build log\n" * 3_000  # 90K characters


def _history() -> list[dict]:
    messages = [{"role": "user", "content": "the task"}]
    for n in range(5):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "run_command",
             "input": {"command": f"make {n}"}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": f"{n}:" + BIG}]})
    return messages


def _offload_all(messages: list[dict], root: Path) -> list[dict]:
    out = []
    for message in messages:
        if isinstance(message["content"], str):
            out.append(message)
            continue
        blocks = []
        for block in message["content"]:
            if block["type"] == "tool_result" and choose_offloads(
                    [(block["tool_use_id"], "run_command", len(block["content"]))]):
                path = offload(root, block["tool_use_id"], block["content"])
                block = dict(block, content=make_preview(block["content"],
                                                         path.relative_to(root).as_posix()))
            blocks.append(block)
        out.append(dict(message, content=blocks))
    return out


def _recoverable(messages: list[dict], root: Path, n: int) -> bool:
    """Can the agent still get result ``n`` back, from the context or from disk?"""
    in_context = any(f"{n}:" + BIG in str(b.get("content")) for m in messages
                     for b in (m["content"] if isinstance(m["content"], list) else []))
    on_disk = (root / OFFLOAD_DIR / f"toolu_{n}.txt").exists()
    return in_context or on_disk


@pytest.mark.checklist("B.12")
def test_offload_then_microcompact_keeps_every_result_recoverable(tmp_path: Path) -> None:
    names = {f"toolu_{n}": "run_command" for n in range(5)}
    messages, _ = microcompact(_offload_all(_history(), tmp_path), names)
    assert all(_recoverable(messages, tmp_path, n) for n in range(5))
    assert all(".task_outputs/tool-results/" in m["content"][0]["content"]
               for m in messages[2::2])  # even cleared results keep their pointer


@pytest.mark.checklist("B.12")
def test_the_reverse_order_loses_data(tmp_path: Path) -> None:
    names = {f"toolu_{n}": "run_command" for n in range(5)}
    cleared, _ = microcompact(_history(), names)
    messages = _offload_all(cleared, tmp_path)
    lost = [n for n in range(5) if not _recoverable(messages, tmp_path, n)]
    assert lost == [0, 1]  # cleared before they were ever written to disk
