"""One compaction from start to finish, on the same path for manual and automatic compaction
(ch8.2 L4, guide §10.4, §9.1, §9.6).

1. Split: the newest rounds stay verbatim, so the current work is intact; the rest is folded.
2. Ask for the summary: the template (4.1), ``tool_choice: none`` so that a tool call is
   impossible rather than discouraged (§9.6), images stripped and PTL retries (4.2). Files
   attached by an earlier rebuild are taken out first: they are attached again anyway.
3. Archive the raw messages that are about to leave the context (``transcript``).
4. The new history is one user message — the summary, then the files read again (4.3) — and
   the recent rounds; ``assert_messages_valid`` checks it (§9.2).

Rebuilding is best-effort: whatever goes wrong there, the compaction stands (§10.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from s1_loop import estimate_tokens
from s2_truncate import api_rounds, assert_messages_valid

from ctxlab.session import Session

from .errors import NothingToSummarize, SummaryCutOff, ToolCallInsteadOfSummary
from .ptl import MAX_PTL_RETRIES, ptl_retry
from .rebuild import ATTACHMENT_HEADER, FileLog, reattach_files
from .template import read_summary
from .transcript import archive

Messages = list[dict[str, Any]]

SUMMARY_MAX_TOKENS = 8_000
"""The summarizer's output budget, also reserved below the window by the trigger (§8.2)."""
SUMMARY_HEADER = ("This session continues an earlier conversation that no longer fits in the "
                  "context. What happened so far, written before the older messages were "
                  "removed:")


@dataclass(frozen=True)
class Compacted:
    """A new history, which layer made it, and what was destroyed on the way."""

    messages: Messages
    layer: str
    rounds_dropped: int = 0
    tokens_dropped: int = 0


CUT_OFF = ("max_tokens", "model_context_window_exceeded")
"""Stop reasons of a summary that did not reach its end."""


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def recent_start(messages: Messages, keep_tokens: int) -> int:
    """Where the verbatim tail begins: the newest rounds within ``keep_tokens`` (the newest
    one always), never the first round."""
    rounds = api_rounds(messages)[1:]
    start = rounds[-1][0] if rounds else len(messages)
    for begin, _ in reversed(rounds[:-1]):
        if estimate_tokens(messages[begin:]) > keep_tokens:
            break
        start = begin
    return start


def without_attachments(messages: Messages) -> Messages:
    """``messages`` without the file attachments of an earlier rebuild (§9.1)."""
    def keep(block: dict[str, Any]) -> bool:
        return not (block.get("type") == "text"
                    and block.get("text", "").startswith(ATTACHMENT_HEADER))
    return [m if isinstance(m["content"], str) else
            dict(m, content=[b for b in m["content"] if keep(b)]) for m in messages]


def ask_for_summary(session: Session, history: Messages, prompt: str) -> str:
    """One summarizer call: ``history`` and the request, no tool allowed; the summary text."""
    response = session.create([*history, {"role": "user", "content": [_text(prompt)]}],
                              kind="summary", tool_choice={"type": "none"},
                              max_tokens=SUMMARY_MAX_TOKENS)
    if any(block.type == "tool_use" for block in response.content):
        raise ToolCallInsteadOfSummary("the summarizer called a tool instead of writing")
    if response.stop_reason in CUT_OFF:  # a summary with its end missing is not one (§8.1)
        raise SummaryCutOff(f"the summary stopped early ({response.stop_reason})")
    return read_summary("".join(b.text for b in response.content if b.type == "text"))


def rebuild(older: Messages, session: Session, files: FileLog | None,
            mtime_notes: bool = True) -> list[dict[str, Any]]:
    """The blocks to attach after the summary; none when rebuilding fails (§10.4) or is
    switched off (``files`` None). ``mtime_notes=False`` attaches without the notes (§10.2)."""
    if files is None:
        return []
    try:
        attached = reattach_files(older, session.workspace, files.mtimes if mtime_notes else {})
    except Exception:  # rebuilding is a bonus: it must never undo the compaction
        return []
    return [_text(attached)] if attached else []


def summarize(messages: Messages, session: Session, *, prompt: str, keep_tokens: int,
              files: FileLog | None, mtime_notes: bool = True,
              ptl_retries: int = MAX_PTL_RETRIES) -> Compacted:
    """Fold everything before the recent rounds into a summary (steps 1–4 above), with at
    most ``ptl_retries`` PTL retries; with ``files`` None, nothing is rebuilt after it."""
    cut = recent_start(messages, keep_tokens)
    if cut <= 1:
        raise NothingToSummarize("only the first message lies before the recent rounds")
    older, recent = messages[:cut], messages[cut:]
    retried = ptl_retry(lambda sent: ask_for_summary(session, sent, prompt),
                        without_attachments(older), retries=ptl_retries)
    archive(session.workspace, older)
    head = {"role": "user", "content": [_text(f"{SUMMARY_HEADER}\n\n{retried.summary}"),
                                        *rebuild(older, session, files, mtime_notes)]}
    new = [head, *recent]
    assert_messages_valid(new)
    lost = estimate_tokens(older[:retried.messages_dropped])
    return Compacted(new, "summary", retried.rounds_dropped, lost)
