"""Tool types the API knows, and its server tools run offline (docs: web-search-tool,
web-fetch-tool, code-execution-tool; SDK 2.17.0 ``BetaToolUnionParam``).

A tool whose ``type`` is none of the known ones is refused as the API refuses an unknown tag.
Web search, web fetch and code execution run on the server: the answer holds a
``server_tool_use`` block, its result block and the text that uses it, and
``usage.server_tool_use`` counts the searches and fetches (what the API bills them by). Their
pages and programs are canned (``fixtures/server_tools/canned.json``): nothing goes to the
network and no code runs. When the model calls one (``wanted``): web fetch when the last user
text holds a URL, code execution when it asks to run, compute or calculate, web search when it
asks a question (a ``?``) or to search or look something up — on a fresh user turn, not on one
that answers tool calls, and only as ``tool_choice`` allows.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from .responder import ModelView, Reply

CANNED = Path(__file__).resolve().parents[3] / "fixtures" / "server_tools" / "canned.json"
TYPES = (
    "custom", "bash_20241022", "bash_20250124", "code_execution_20250522",
    "code_execution_20250825", "code_execution_20260120", "code_execution_20260521",
    "browser_toolset_20260801", "computer_20241022", "computer_20250124", "computer_20251124",
    "computer_toolset_20260801", "memory_20250818", "text_editor_20241022",
    "text_editor_20250124", "text_editor_20250429", "text_editor_20250728",
    "web_search_20250305", "web_search_20260209", "web_search_20260318", "web_fetch_20250910",
    "web_fetch_20260209", "web_fetch_20260309", "web_fetch_20260318", "advisor_20260301",
    "tool_search_tool_bm25_20251119", "tool_search_tool_bm25", "tool_search_tool_regex_20251119",
    "tool_search_tool_regex", "mcp_toolset",
)
URL = re.compile(r"https?://[^\s<>\"')\]]+")
CODE = re.compile(r"\b(run|execute|compute|calculate|python|code)\b", re.IGNORECASE)
SEARCH = re.compile(r"\?|\b(search|look up|latest|news)\b", re.IGNORECASE)
WORD = re.compile(r"[a-z0-9]+")
RESULT = {"web_search": "web_search_tool_result", "web_fetch": "web_fetch_tool_result",
          "code_execution": "code_execution_tool_result",
          "bash_code_execution": "bash_code_execution_tool_result"}


def kind(tool: dict[str, Any]) -> str | None:
    """``web_search``, ``web_fetch`` or ``code_execution`` for a server tool run here."""
    tag = str(tool.get("type") or "")
    return next((k for k in ("web_search", "web_fetch", "code_execution")
                 if tag.startswith(k + "_")), None)


@cache
def canned() -> dict[str, Any]:
    return json.loads(CANNED.read_text(encoding="utf-8"))


def _last_user_text(view: ModelView) -> str | None:
    """The text of the last message when it is a fresh user turn (no tool results)."""
    last = view.messages[-1] if view.messages else None
    if last is None or last["role"] != "user" or any(
            b.get("type") == "tool_result" for b in last["content"]):
        return None
    return " ".join(b.get("text", "") for b in last["content"] if b.get("type") == "text")


def wanted(view: ModelView) -> tuple[dict[str, Any], str] | None:
    """The server tool the model calls for this request, and the text it calls it on."""
    text = _last_user_text(view)
    choice = view.tool_choice
    if not text or choice.get("type") == "none":
        return None
    tools = {kind(t): t for t in view.tools if kind(t) is not None and (
        choice.get("type") != "tool" or choice.get("name") == t.get("name"))}
    for name, rule in (("web_fetch", URL), ("code_execution", CODE), ("web_search", SEARCH)):
        if name in tools and rule.search(text):
            return tools[name], text
    return None


def _words(text: str) -> set[str]:
    return set(WORD.findall(text.casefold()))


def _search(query: str) -> list[dict[str, Any]]:
    pages = canned()["pages"]
    asked = _words(query)
    scored = sorted(pages, key=lambda p: -len(asked & _words(p["title"] + " " + p["text"])))
    hits = [p for p in scored if asked & _words(p["title"] + " " + p["text"])][:3]
    return hits or scored[:1]


def _run(text: str) -> dict[str, Any]:
    asked = _words(text)
    programs = canned()["programs"]
    return next((p for p in programs if asked & set(p["words"])), programs[-1])


def call(tool: dict[str, Any], text: str, ids: str) -> list[dict[str, Any]]:
    """The blocks of one server tool call on ``text``: use, result, and the text using it."""
    name = kind(tool) or ""
    use_id = "srvtoolu_" + hashlib.sha256(f"{ids}:{name}".encode()).hexdigest()[:24]
    if name == "web_fetch":
        url = URL.search(text).group(0)  # type: ignore[union-attr]
        page = next((p for p in canned()["pages"] if p["url"] == url), None)
        content: Any = {"type": "web_fetch_tool_error", "error_code": "url_not_accessible"} \
            if page is None else {"type": "web_fetch_result", "url": url, "content": {
                "type": "document", "title": page["title"], "citations": None,
                "source": {"type": "text", "media_type": "text/plain", "data": page["text"]}}}
        said = f"The page at {url} is not accessible." if page is None else page["text"]
        inputs = {"url": url}
    elif name == "web_search":
        query = text.strip()[:200]
        hits = _search(query)
        content = [{"type": "web_search_result", "url": p["url"], "title": p["title"],
                    "page_age": p["page_age"], "encrypted_content": _sealed(p)} for p in hits]
        said = f"According to {hits[0]['title']}: {hits[0]['text']}"
        inputs = {"query": query}
    else:
        program = _run(text)
        bash = tool.get("type") != "code_execution_20250522"
        name = "bash_code_execution" if bash else "code_execution"
        inputs = {"command": f"python3 -c {json.dumps(program['code'])}"} if bash \
            else {"code": program["code"]}
        content = {"type": f"{name}_result", "stdout": program["stdout"], "stderr": "",
                   "return_code": 0, "content": []}
        said = f"The program printed: {program['stdout'].strip()}"
    return [{"type": "server_tool_use", "id": use_id, "name": name, "input": inputs},
            {"type": RESULT[name], "tool_use_id": use_id, "content": content},
            {"type": "text", "text": said}]


def _sealed(page: dict[str, Any]) -> str:
    """The opaque ``encrypted_content`` a search result carries (here: a digest of the page)."""
    return hashlib.sha256(page["text"].encode()).hexdigest()


def answer(view: ModelView, reply: Reply) -> Reply:
    """``reply`` with the server tool call the model makes here, if any, in place of its text
    (a reply that calls a client tool is left as it is)."""
    if any(b.get("type") == "tool_use" for b in reply.content):
        return reply
    found = wanted(view)
    if found is None:
        return reply
    thoughts = [b for b in reply.content if b.get("type") in ("thinking", "redacted_thinking")]
    return Reply(thoughts + call(*found, view.digest), "end_turn")


def usage(blocks: list[dict[str, Any]]) -> dict[str, int] | None:
    """``usage.server_tool_use``: the searches and fetches in ``blocks`` (None when none)."""
    names = [b.get("name") for b in blocks if b.get("type") == "server_tool_use"]
    if not names:
        return None
    return {"web_search_requests": names.count("web_search"),
            "web_fetch_requests": names.count("web_fetch")}
