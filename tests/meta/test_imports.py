"""The lab bench's modules import each other without a circle (DESIGN §6: one registry of rows,
below everything that shows them).

The graph is read from the sources with ``ast`` (nothing is imported): an arrow for every
``import`` anywhere in a module — inside functions and ``TYPE_CHECKING`` blocks too, since a
deferred import only hides a circle — and, as Python runs them, one to each package above the
imported module that is not also above the importer (importing ``ctxlab.peers.masking`` runs
``ctxlab/peers/__init__.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from ctxlab.workbook.layout import repo_root

ROOT = repo_root() / "stages"
BELOW_THE_BILL = ("ctxlab.rows", "ctxlab.runner")
ABOVE_THE_BILL = ("ctxlab.report", "ctxlab.beyond", "ctxlab.commands", "ctxlab.cli")


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in (ROOT / "ctxlab").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()

    def known(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, (path, package) in modules.items():
        here = name if package else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {known(a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[:len(here.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                targets |= {known(f"{base}.{a.name}") if f"{base}.{a.name}" in modules
                            else known(base) for a in node.names}
        edges = set()
        for target in targets - {"", name}:
            if not target.startswith("ctxlab"):
                continue
            edges.add(target)
            parent = target.rpartition(".")[0]
            while parent and parent != name and not name.startswith(parent + "."):
                edges.add(parent)
                parent = parent.rpartition(".")[0]
        graph[name] = edges
    return graph


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, or None (depth-first search with an explicit stack)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            step = next(stack[-1], None)
            if step is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(step) == 1:
                return path[path.index(step):] + [step]
            elif step not in state:
                state[step] = 1
                path.append(step)
                stack.append(iter(sorted(graph.get(step, ()))))
    return None


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_bench_has_no_import_circle() -> None:
    graph = _graph()
    assert "ctxlab.rows" in graph and len(graph) > 100  # the walk found the bench
    circle = _circle(graph)
    assert circle is None, " → ".join(circle or [])


def test_the_walk_finds_a_circle_when_there_is_one() -> None:
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": set()}) is None


def test_the_rows_sit_below_what_shows_them() -> None:
    """Following ``compare`` down never climbs back up to a report or a command."""
    graph = _graph()
    assert "ctxlab.rows" in _reach(graph, "ctxlab.commands.compare_cmd")
    for low in BELOW_THE_BILL:
        high = sorted(m for m in _reach(graph, low) if m.startswith(ABOVE_THE_BILL))
        assert not high, f"{low} reaches {high}"
