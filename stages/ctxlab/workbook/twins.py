"""The Chinese notebooks (DESIGN §2): ``notebooks/zh-CN/`` twins of the English ones, checked.

A twin has the English notebook's file name, the same cells in the same order, code cells
byte-identical to the English (so they print the same) and stored without outputs, and a
markdown cell written in Chinese wherever the English has one. Chinese text is measured in
characters on the lines that hold Chinese, from their first to their last CJK character (code
and numbers inside a Chinese sentence count, an English line does not): it must reach
``SHARE`` of the English cell's prose, both measured without code blocks, link targets and
whitespace. ``sync`` brings drifted code cells over from the English and lists the markdown
cells a translator has to write or review; each translated cell records a digest of the English
it was written from (metadata ``zh-CN.en``), so a later English edit shows up.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .layout import repo_root

LANG = "zh-CN"
SHARE = 0.30
"""The least Chinese a markdown twin holds, as a share of the English cell's prose."""
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_SPAN = re.compile(f"[{_CJK}](?:.*[{_CJK}])?")
_NOT_PROSE = re.compile(r"```.*?```|\]\([^)]*\)|<!--.*?-->", re.S)


def english_folder() -> Path:
    return repo_root() / "notebooks"


def _prose(markdown: str) -> str:
    return _NOT_PROSE.sub(" ", markdown)


def prose_length(markdown: str) -> int:
    """Characters of a markdown cell's prose: no code blocks, link targets or whitespace."""
    return len("".join(_prose(markdown).split()))


def chinese_length(markdown: str) -> int:
    """Characters of the Chinese in a markdown cell: per line, first to last CJK character."""
    return sum(len("".join(m.group().split())) for m in _SPAN.finditer(_prose(markdown)))


def digest(source: str) -> str:
    """The short digest a translated cell keeps of the English it was written from."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def load(path: Path) -> dict:
    """A notebook's JSON; ValueError naming the file when it is not a notebook."""
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path.parent.name}/{path.name} is not a notebook: {error}") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, dict) and "cell_type" in c
                                              for c in cells):
        raise ValueError(f"{path.parent.name}/{path.name} is not a notebook: no list of cells")
    return notebook


def save(path: Path, notebook: dict) -> None:
    """Write a notebook as Jupyter does (one-space indent, sorted keys), atomically."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)  # never write through a link left under the temporary name
    tmp.write_text(json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    tmp.replace(path)


def _cell_problems(name: str, english: list[dict], twin: list[dict]) -> list[str]:
    where = f"notebooks/{LANG}/{name}"
    kinds, twin_kinds = [c["cell_type"] for c in english], [c["cell_type"] for c in twin]
    if kinds != twin_kinds:
        common = min(len(kinds), len(twin_kinds))
        at = next((i for i in range(common) if kinds[i] != twin_kinds[i]), common)
        return [f"{where}: cell {at}: the English has {_kind(kinds, at)}, the twin "
                f"{_kind(twin_kinds, at)} ({len(kinds)} cells against {len(twin)}); run "
                f"`ctxlab workbook zh-sync`"]
    problems = []
    for i, (en, zh) in enumerate(zip(english, twin, strict=True)):
        if en["cell_type"] == "code":
            if source(en) != source(zh):
                problems.append(f"{where}: code cell {i} differs from the English; run "
                                f"`ctxlab workbook zh-sync`")
            if zh.get("outputs") or zh.get("execution_count") is not None:
                problems.append(f"{where}: code cell {i} has outputs; clear them")
        elif en["cell_type"] == "markdown":
            wanted, got = prose_length(source(en)) * SHARE, chinese_length(source(zh))
            if got < wanted:
                problems.append(f"{where}: markdown cell {i} holds {got} characters of Chinese, "
                                f"under {SHARE:.0%} of the English cell's "
                                f"{prose_length(source(en))}: write it in Chinese")
    return problems


def _kind(kinds: list[str], at: int) -> str:
    return f"a {kinds[at]} cell" if at < len(kinds) else "no cell"


def check(folder: Path | None = None) -> list[str]:
    """Every English notebook's twin, cell by cell (empty = all twins complete)."""
    folder = folder or english_folder()
    problems = []
    for path in sorted(folder.glob("*.ipynb")):
        twin = folder / LANG / path.name
        if not twin.exists():
            problems.append(f"notebooks/{LANG}/{path.name}: missing (no Chinese twin yet)")
            continue
        try:
            problems += _cell_problems(path.name, load(path)["cells"], load(twin)["cells"])
        except ValueError as error:
            problems.append(str(error))
    for twin in sorted((folder / LANG).glob("*.ipynb")):
        if not (folder / twin.name).exists():
            problems.append(f"notebooks/{LANG}/{twin.name}: no English notebook of that name")
    return problems


@dataclass
class Synced:
    """What ``sync`` did to one twin and what is left for a translator."""

    name: str
    copied: list[int] = field(default_factory=list)
    untranslated: list[int] = field(default_factory=list)
    changed: list[int] = field(default_factory=list)
    dropped: int = 0


def _key(cell: dict) -> tuple[str, str]:
    return (cell["cell_type"], source(cell) if cell["cell_type"] == "code" else "")


def merge(english: list[dict], twin: list[dict], report: Synced) -> list[dict]:
    """The twin's cells laid out as the English's: code from the English, Chinese kept."""
    cells: list[dict] = []
    matcher = difflib.SequenceMatcher(None, [_key(c) for c in english],
                                      [_key(c) for c in twin], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        spare = [c for c in twin[j1:j2] if c["cell_type"] == "markdown"]
        for en in english[i1:i2]:
            if en["cell_type"] != "markdown":
                if tag != "equal":
                    report.copied.append(len(cells))
                cells.append(dict(en))
            elif not spare:
                report.untranslated.append(len(cells))
                cells.append(dict(en))
            else:
                zh = spare.pop(0)
                if chinese_length(source(zh)) < prose_length(source(en)) * SHARE:
                    report.untranslated.append(len(cells))
                elif zh.get("metadata", {}).get(LANG, {}).get("en") != digest(source(en)):
                    report.changed.append(len(cells))
                cells.append(zh)
        report.dropped += len(spare)
    return cells


def sync(folder: Path | None = None) -> list[Synced]:
    """Mirror the English notebooks' code cells into their twins (a missing twin starts as a
    copy of the English); returns, per twin, what changed and what waits for a translator."""
    folder = folder or english_folder()
    (folder / LANG).mkdir(parents=True, exist_ok=True)
    reports = []
    for path in sorted(folder.glob("*.ipynb")):
        english, target = load(path), folder / LANG / path.name
        twin = load(target) if target.exists() else {**english, "cells": []}
        report = Synced(path.name)
        cells = merge(english["cells"], twin["cells"], report)
        if cells != twin["cells"]:
            save(target, {**twin, "cells": cells})
        reports.append(report)
    return reports
