"""Distinctive items: the concrete things a tool result tells an agent (DESIGN §4, working notes).

A working note is the agent restating, in its own reply text, something a tool result showed
("billing baseline is 880 ms", "the bug is in invoice.py", "it raises KeyError"). To measure
how often that happens, a result's *distinctive items* are defined as, exactly:

- **quantities**: a number followed by a unit (``880 ms``, ``12.5 KB``, ``3 tests``, ``40%``);
  compared as number + lower-case unit, spaces ignored (``880ms`` equals ``880 ms``);
- **file names**: a path or bare name whose last part ends in a known source or data file
  extension (``src/app/invoice.py``, ``config.toml``); compared by the last part only, since
  agents say ``invoice.py`` for ``src/app/invoice.py``;
- **error names**: an exception or error class (``KeyError``, ``ModuleNotFoundError``) and
  the name of a failed check after ``FAIL`` or ``FAILED`` (``FAIL discount_taken_once``).

An item counts for a result only when it is *new there*: not in the call's own input and not
in any earlier text of the user or the agent (restating the task or the file one asked to read
is not a note). ``items(text)`` finds them, ``new_items`` applies that rule, ``mentions``
tells whether an agent's text restates one. The same functions serve ``ctxlab calibrate``
on real and simulated logs and the simulated agent's own notes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

UNITS = ("ms|µs|us|ns|s|sec|secs|seconds|min|mins|minutes|h|hrs|hours|days|kb|mb|gb|tb|kib|mib|"
         "gib|bytes|b|%|tokens|lines|files|tests|errors|warnings|rows|items|requests|calls|"
         "passed|failed|chars|characters|words|px|x")
EXTENSIONS = ("py|pyi|ipynb|js|mjs|cjs|ts|tsx|jsx|json|jsonl|toml|yaml|yml|md|rst|txt|csv|tsv|"
              "ex|exs|erl|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|sh|bash|zsh|html|css|"
              "scss|sql|lock|cfg|ini|conf|xml|log|env|proto|vue|svelte|lua|r|pl|scala|dart|tf")
_QUANTITY = re.compile(rf"(?<![\w.])(\d+(?:\.\d+)?)\s?({UNITS})(?![\w])", re.I)
_FILE = re.compile(rf"(?<![\w.\-/])(?:[\w.\-]+/)*([\w\-]+(?:\.[\w\-]+)*\.(?:{EXTENSIONS}))"
                   r"(?![\w\-])(?!\.\w)", re.I)
_ERROR = re.compile(r"\b([A-Z][A-Za-z0-9]*(?:Error|Exception))\b")
_FAILED = re.compile(r"\bFAIL(?:ED)?\b[:\s]+([A-Za-z_][\w.\-:/\[\]]*\w)")


def items(text: str) -> set[str]:
    """The distinctive items of ``text``, each as ``kind:value`` in its compared form."""
    return set(_items(text))


@lru_cache(maxsize=8192)
def _items(text: str) -> frozenset[str]:
    found = {f"qty:{m.group(1)}{m.group(2).casefold()}" for m in _QUANTITY.finditer(text)}
    found |= {f"file:{m.group(1)}" for m in _FILE.finditer(text)}
    found |= {f"error:{m.group(1)}" for m in _ERROR.finditer(text)}
    found |= {f"error:{m.group(1)}" for m in _FAILED.finditer(text)}
    return frozenset(found)


def new_items(result: str, call_input: str, earlier: Iterable[str]) -> set[str]:
    """The items of ``result`` that neither the call's input nor any earlier text holds."""
    known = items(call_input)
    for text in earlier:
        known |= items(text)
    return items(result) - known


def mentions(text: str, wanted: set[str]) -> bool:
    """Whether ``text`` restates at least one of ``wanted``: a quantity in any spacing, a file
    name or an error name as a whole word."""
    if not wanted:
        return False
    quantities = {f"qty:{m.group(1)}{m.group(2).casefold()}" for m in _QUANTITY.finditer(text)}
    return any(item in quantities if item.startswith("qty:") else _word(spoken(item), text)
               for item in wanted)


def _word(value: str, text: str) -> bool:
    return re.search(rf"(?<![\w\-]){re.escape(value)}(?![\w\-])", text) is not None


def spoken(item: str) -> str:
    """An item as an agent would write it in prose (``qty:880ms`` → ``880ms``)."""
    return item.partition(":")[2]
