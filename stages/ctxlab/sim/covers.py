"""When the plain offline model calls a client tool: the user's text names it, or asks about
what the tool's name is about (DESIGN §3, ``EchoResponder``).

The name counts as written (``get_weather``) or spaced (``get weather``). Otherwise the name's
words, less the verbs any tool starts with (``get``, ``list``, ``run``…), are its subject; a
text that uses one of those subject words (or its plural) asks something the tool covers:
"What is the weather in SF?" calls ``get_weather``, "Use add on 2 and 3" calls ``add``, "Say
hello" calls neither. Only custom tools (an ``input_schema`` the model fills) are called so; a
server tool answers on the server (``server_tools``).
"""

from __future__ import annotations

import re
from typing import Any

GENERIC = frozenset({"get", "set", "put", "post", "list", "run", "do", "make", "use", "call",
                     "fetch", "find", "read", "write", "create", "update", "delete", "lookup",
                     "tool", "fn", "func", "function", "the", "a", "an", "of", "to", "for",
                     "by", "and", "or", "in", "on", "with", "from", "my", "new", "all"})
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_WORDS = re.compile(r"\w+")


def _names(name: str, text: str) -> bool:
    lowered = text.casefold()
    spaced = re.sub(r"[_-]+", " ", name).casefold()
    return any(re.search(rf"(?<!\w){re.escape(form)}(?!\w)", lowered)
               for form in {name.casefold(), spaced})


def subject(name: str) -> set[str]:
    """The words of a tool's name that say what it is about (``get_weather`` → weather)."""
    return {p.casefold() for p in _PARTS.findall(name)} - GENERIC


def covers(tool: dict[str, Any], text: str) -> bool:
    """Whether ``text`` asks for the custom ``tool``: names it, or uses its subject."""
    name = tool.get("name")
    if not isinstance(name, str) or not name or "input_schema" not in tool:
        return False
    if _names(name, text):
        return True
    said = {w.casefold() for w in _WORDS.findall(text)}
    said |= {w[:-1] for w in said if w.endswith("s")}
    return bool(subject(name) & said)
