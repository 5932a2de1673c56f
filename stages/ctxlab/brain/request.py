"""Recognising a request to summarize the conversation, and the template it asks for (§12.4).

The learner writes the request, so nothing here expects one exact phrase: a request is a last
user text that asks to summarize (or compact, condense, 总结 …) the conversation (history,
context, 对话 …); a summary handed over after a compaction ("Summary of the session: …") is
not a request. Its sections are the list items or headings whose title names a known slot:
goal, files, errors, all user messages, pending work, current work, next step, plus a few
extra slots seen in real templates (concepts, problem solving, constraints).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..sim import ModelView

_ASKS = re.compile(  # an imperative ask, not a summary being handed over ("Summary of it: …")
    r"\bsummari[sz]e\b|\b(write|create|produce|give|provide|prepare|draft|make)\b[^.\n]{0,40}"
    r"\b(summary|recap)\b|\b(compact|condense)\s+(the|this|our|your|it)\b|"
    r"请.{0,6}(总结|概括|压缩|摘要)|(总结|概括|压缩)(一下|这|以上|上面|本次|我们|当前|之前|对话|上下文)|"
    r"写.{0,4}(摘要|总结)", re.I)
_ABOUT = re.compile(r"conversation|history|context|session|transcript|dialog|chat|so far|"
                    r"above|messages|对话|上下文|会话|历史|以上", re.I)
_ITEMS = (
    # numbered, bulleted or heading lines: "1. Files touched", "## Goal", "- 待完成的事"
    re.compile(r"^\s*(?:#{1,6}\s+|\d{1,2}[.)、:]\s*|[-*•]\s+|[一二三四五六七八九十]+[、.]\s*)"
               r"(?P<title>\S.*)$"),
    re.compile(r"^\s*(?P<title>[^\s:：][^:：]{0,60})[:：]\s*$"),  # a bare "Goal:" line
    re.compile(r"^\s*<(?P<title>[A-Za-z][\w -]{0,40})>\s*$"),  # an XML-style "<goal>" line
)
_TITLE_END = re.compile(r"\s*(?::|：|\s-\s|\s—\s|\(|（)")
_SLOTS = (
    ("user", r"user.{0,20}(message|said|say|feedback|instruction)|messages? from the user|"
             r"用户.{0,4}(消息|说|反馈)"),
    ("pending", r"pending|remaining|outstanding|to-?do|to do|left to|not yet|open (task|item)|"
                r"待完成|待办|未完成|剩余|还没"),
    ("next", r"\bnext\b|下一步|接下来"),
    ("current", r"current|in progress|working on|right now|doing|当前|正在|目前"),
    ("process", r"problem.solving|approach|reasoning|decision|解决过程|思路|决策"),
    ("errors", r"error|fix|bug|mistake|problem|failure|pitfall|issue|错|坑|修复|问题"),
    ("files", r"file|code|path|文件|代码"),
    ("concepts", r"concept|technical|fact|finding|learn|knowledge|概念|技术|事实|发现"),
    ("constraints", r"constraint|rule|preference|must not|约束|规则|偏好"),
    ("goal", r"goal|intent|request|task|objective|aim|purpose|目标|意图|需求|任务|请求"),
)
KINDS = tuple((kind, re.compile(pattern, re.I)) for kind, pattern in _SLOTS)
"""Slot kinds in the order they are tried: the first whose pattern matches a title wins."""
DEFAULT_SECTIONS = (("goal", "Goal"), ("files", "Files and what they showed"),
                    ("errors", "Errors and fixes"), ("user", "All user messages"),
                    ("pending", "Pending work"), ("current", "Current work"),
                    ("next", "Next step"))


@dataclass(frozen=True)
class Section:
    """One slot of a summary template: its kind and the title the request gave it."""

    kind: str
    title: str


@dataclass(frozen=True)
class SummaryRequest:
    """A summary request: its text, its sections (none: free-form) and its format wishes."""

    text: str
    sections: tuple[Section, ...]
    analysis: bool
    tagged: bool


def asks_for_summary(text: str) -> bool:
    """Whether ``text`` asks to summarize or compact the conversation."""
    return bool(_ASKS.search(text) and _ABOUT.search(text))


def classify(title: str) -> str | None:
    """The slot a section title names, or None."""
    return next((kind for kind, pattern in KINDS if pattern.search(title)), None)


def parse(text: str, *, default_sections: bool = False) -> SummaryRequest:
    """The sections and format of a request (or of compaction ``instructions``)."""
    sections: dict[str, Section] = {}
    for line in text.splitlines():
        item = next((m for m in (p.match(line) for p in _ITEMS) if m), None)
        if item is None:
            continue
        title = _TITLE_END.split(item.group("title").replace("**", "").strip(), maxsplit=1)[0]
        kind = classify(title)
        if kind is not None and kind not in sections:
            sections[kind] = Section(kind, title.strip())
    found = tuple(sections.values()) if len(sections) >= 2 else ()
    if not found and default_sections:
        found = tuple(Section(kind, title) for kind, title in DEFAULT_SECTIONS)
    lowered = text.casefold()
    return SummaryRequest(text, found, "<analysis>" in lowered, "<summary>" in lowered)


def find_request(view: ModelView) -> SummaryRequest | None:
    """The summary request in the view's last user message, if there is one."""
    if not view.messages or view.messages[-1]["role"] != "user":
        return None
    texts = [b["text"] for b in view.messages[-1]["content"] if b.get("type") == "text"]
    if not texts or not asks_for_summary(texts[-1]):
        return None
    return parse(texts[-1])
