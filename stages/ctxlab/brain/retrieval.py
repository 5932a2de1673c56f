"""Whether the agent finds a fact that is in view (DESIGN §4 "Retrieval"; guide §4, context rot).

A visible fact is found with the chance its model family's recall table gives (``ctxlab.recall``)
for what the model reads: the request's length in tokens, the fact's relative position in it,
and the fact's kind (``kind``: literal when the text the agent seeks shares a word with it,
latent otherwise). Every copy of the fact in view (its tool result, a working note, a summary
that quotes it) is a chance to find it; the fact is missed only when every copy is.

Each copy's draw is keyed on the run's seed, the fact, the copy itself (what the tool call its
result belongs to asked, and how many identical calls came before it; or the line it sits on)
and the cell it sits in (``cell``: its kind, the request's length to the nearest doubling and
the tenth of the request it sits in), never on the request's bytes (a tool call's id is made
from them) or on the other copies: removing one copy does not hand its draw to another, and
cells do not share outcomes. A copy keeps its draw while it stays in its cell; a fetched-again
copy (a new tool call) has a draw of its own.

A re-read supersedes (``Changed``): a copy inside an older read of a file that a newer read in
view shows without the fact is not a chance any more; the agent notices that the file changed
and looks for what it needs in the newest read (as Claude Code's read-before-edit rule makes a
real agent do). A miss looks like absence: the plan fetches the fact again (``plan.decide``),
each call of the fetch but one whose last fetch brought nothing new (``plan.nothing_new``);
when that is every call, it goes on. In the 39 calibration logs no in-view re-read of a file
with the same arguments follows a re-read of it with nothing changed in between: the five
re-reads that follow a re-read are ranges of the file, each with another offset or limit.
``--rot off`` (``switched(False)``) turns the misses off for a process; a view built without a
layout (no ``spans``) is read as before, every visible fact found.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..recall import RecallTable, table
from ..scenarios import Step
from ..sim import ModelView
from .calls import CallLog
from .visible import normalize, result_text

_ON = [True]


def enabled() -> bool:
    """Whether the retrieval model is on in this process (the default)."""
    return _ON[0]


@contextlib.contextmanager
def switched(on: bool) -> Iterator[None]:
    """Within this block the retrieval model is ``on`` (``--rot on|off``)."""
    before = _ON[0]
    _ON[0] = on
    try:
        yield
    finally:
        _ON[0] = before


def kind(marker: str, seeking: str) -> str:
    """``literal`` when ``marker`` shares a word with ``seeking`` (the text of the step that
    needs it), ``latent`` when it shares none (NoLiMa's needles: no literal overlap)."""
    return "literal" if set(normalize(marker).split()) & set(normalize(seeking).split()) \
        else "latent"


def seeking(step: Step) -> str:
    """What the agent has in hand when it looks for a fact: the step's note and its calls."""
    inputs = (v for c in step.calls for v in c.input.values() if isinstance(v, str))
    return "\n".join((step.note, *inputs))


@dataclass(frozen=True)
class Miss:
    """A visible fact the agent did not find: where its latest copy sat, how long and how full
    the request was, and the fact's kind."""

    fact: str
    position: float
    occupancy: float
    tokens: int
    kind: str


@dataclass(frozen=True)
class Changed:
    """A file the agent saw change: an older read held ``fact``, the newest read does not."""

    file: str
    fact: str


@dataclass(frozen=True)
class Copy:
    """One block that shows a marker (or, for a changed file, its newest read)."""

    position: float
    identity: str
    file: str | None = None  # the path, when the block is a read of a file
    newest: bool = True  # False for an older read of a file read again since


def _block_text(block: dict[str, Any]) -> str:
    """The visible text of one block (thinking and images have none the model re-reads)."""
    kind_ = block.get("type")
    if kind_ in ("thinking", "redacted_thinking", "image"):
        return ""
    if kind_ == "tool_result":
        return result_text(block.get("content", ""))
    if kind_ == "tool_use":
        return "\n".join(v for v in (block.get("input") or {}).values() if isinstance(v, str))
    if kind_ == "compaction":
        return str(block.get("content") or "")
    return str(block.get("text", "")) if kind_ == "text" else result_text([block])


def _identity(block: dict[str, Any], text: str, at: int, calls: dict[str, str]) -> str:
    """What stays the same of a copy while a layer moves it or cuts around it: the tool call
    its result or input belongs to (as ``CallLog`` names it), else the line it sits on (not
    the text around it)."""
    ident = block.get("tool_use_id") or (block.get("id") if block.get("type") == "tool_use"
                                         else None)
    key = calls.get(str(ident), str(ident)) if ident else \
        text[text.rfind("\n", 0, at) + 1:].split("\n", 1)[0]
    return hashlib.sha1(key.encode()).hexdigest()[:16]


def _blocks(view: ModelView) -> list[dict[str, Any]]:
    return [*view.system, *(b for m in view.messages for b in m["content"])]


def _reads(blocks: list[dict[str, Any]]) -> dict[int, str]:
    """Block index → path, for every result of a ``read_file`` call in view. Only reads that
    asked the same (a whole file, or the same range of it) supersede each other, so a range's
    path carries its other arguments."""
    paths = {}
    for b in blocks:
        asked = b.get("input") or {}
        if b.get("type") == "tool_use" and b.get("name") == "read_file" \
                and isinstance(asked.get("path"), str):
            rest = {k: v for k, v in asked.items() if k != "path"}
            paths[b.get("id")] = asked["path"] + (f" {json.dumps(rest, sort_keys=True)}"
                                                  if rest else "")
    return {i: paths[b["tool_use_id"]] for i, b in enumerate(blocks)
            if b.get("type") == "tool_result" and b.get("tool_use_id") in paths}


def copies(view: ModelView, marker: str, log: CallLog | None = None) -> list[Copy]:
    """Each block in ``view`` that shows ``marker``, in order: its relative position (0–1),
    the identity its draw is keyed on (``_identity``) and, for a read, its file and whether a
    newer read of that file is in view. ``log``: the agent's calls so far (a fresh one, when
    not given, names only the calls in view)."""
    if not view.spans or not view.input_tokens:
        return []
    blocks = _blocks(view)
    calls = (CallLog() if log is None else log).read(view)
    reads = _reads(blocks)
    last = {path: i for i, path in reads.items()}
    found = []
    for i, (block, (start, tokens)) in enumerate(zip(blocks, view.spans, strict=False)):
        text = _block_text(block)
        at = text.find(marker)
        if at >= 0:
            found.append(Copy((start + tokens * at / max(len(text), 1)) / view.input_tokens,
                              _identity(block, text, at, calls), reads.get(i),
                              i not in reads or last[reads[i]] == i))
    return found


def newest_read(view: ModelView, path: str, log: CallLog | None = None) -> Copy | None:
    """The newest read of ``path`` in view, as a copy at its middle."""
    blocks = _blocks(view)
    reads = [i for i, p in _reads(blocks).items() if p == path]
    if not reads or not view.spans or not view.input_tokens:
        return None
    i = reads[-1]
    start, tokens = view.spans[i]
    calls = (CallLog() if log is None else log).read(view)
    return Copy((start + tokens / 2) / view.input_tokens, _identity(blocks[i], "", 0, calls),
                path)


def chances(view: ModelView, marker: str, log: CallLog | None = None
            ) -> tuple[list[Copy], str | None]:
    """The copies the agent looks at for ``marker`` and, when the file that held it changed
    (an older read has it, the newest read does not), that file: the newest read is then the
    one chance (a re-read supersedes)."""
    where = copies(view, marker, log)
    stale = next((c.file for c in where if not c.newest), None)
    if stale is not None and not any(c.file == stale and c.newest for c in where):
        latest = newest_read(view, stale, log)
        return ([latest] if latest is not None else []), stale
    return [c for c in where if c.newest], None


def cell(kind_: str, tokens: int, position: float) -> str:
    """The cell a copy sits in: its kind, the length to the nearest doubling, its tenth."""
    return f"{kind_}:{round(math.log2(max(tokens, 1)))}:{min(int(position * 10), 9)}"


def draw(seed: int, fact: str, copy: str, where: str) -> float:
    """The copy's uniform draw in cell ``where``: found while its chance is above it."""
    return random.Random(f"{seed}:recall:{fact}:{copy}:{where}").random()


def finds(seed: int, fact: str, where: list[Copy], kind_: str, tokens: int,
          recall: RecallTable) -> bool:
    """Whether any copy of ``fact`` (``chances``) is found in a request of ``tokens``."""
    return any(draw(seed, fact, c.identity, cell(kind_, tokens, c.position))
               < recall.accuracy(kind_, tokens, c.position) for c in where)


def look(view: ModelView, seed: int, needs: dict[str, tuple[str, str]], *,
         on: bool | None = None, log: CallLog | None = None
         ) -> tuple[list[Miss], list[Changed]]:
    """(the facts of ``needs`` — name → (marker, kind) — that are in view and yet not found,
    the files seen to change while looking). ``on`` overrides the process's switch; ``log``:
    the agent's calls so far (``copies``)."""
    rot = (enabled() if on is None else on) and bool(view.window and view.spans)
    recall = table(view.model)
    lost, changed = [], []
    for fact, (marker, kind_) in needs.items():
        where, stale = chances(view, marker, log)
        if stale is not None:
            changed.append(Changed(stale, fact))
        if rot and where and not finds(seed, fact, where, kind_, view.input_tokens, recall):
            lost.append(Miss(fact, round(where[-1].position, 4),
                             round(view.input_tokens / view.window, 4), view.input_tokens,
                             kind_))
    return lost, changed
