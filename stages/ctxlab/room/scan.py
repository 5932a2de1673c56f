"""What a submission's source says before it runs: pytest machinery has no place in it.

Read by the grader, in its own process, from its copy of the package (``ctxlab room``): no
code of the participant runs here, so nothing can hide from it what the files say. An
exercise has no use for pytest's internals, a hook implementation or the grader's modules; a
package that imports ``_pytest``, ``pluggy``, the workbook's plugin or ``ctxlab.room``,
defines a function named like one of pytest's hooks (``pytest_runtest_makereport``…), or sets
``pytest_plugins`` carries a plugin and is marked tampered. Code built at run time
(``exec`` of a string, ``__import__`` of a computed name) is not seen here: the run's
``sentinel`` and the grader's cross-checks are what see its effect (docs/workshop.md).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from .copying import shown

REACHES = ("_pytest", "pluggy", "ctxlab.room", "ctxlab.workbook.pytest_plugin")
"""Modules a stage package has no reason to import."""
HOOK_PREFIX = "pytest_"
PYTEST_NAMES = ("pluginmanager", "hookimpl", "pytest_plugins")


def _reaches(module: str) -> bool:
    return any(module == r or module.startswith(r + ".") for r in REACHES)


def plugin_code(package: Path) -> list[str]:
    """One line per place in ``package``'s Python files that carries pytest machinery."""
    found: list[str] = []
    for folder, _, files in os.walk(os.fsencode(package)):
        for name in sorted(files):
            if not name.endswith(b".py"):
                continue
            path = os.path.join(folder, name)
            rel = shown(os.path.relpath(path, os.fsencode(package.parent)))
            try:
                with open(path, "rb") as source:
                    tree = ast.parse(source.read())
            except (SyntaxError, ValueError, OSError):
                continue  # the run reports a module that cannot be imported
            found += [f"{rel}:{line}: {what}" for line, what in _findings(tree)]
    return found


def _findings(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"imports {a.name}") for a in node.names if _reaches(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if _reaches(node.module) or any(_reaches(f"{node.module}.{a.name}")
                                            for a in node.names):
                found.append((node.lineno, f"imports from {node.module}"))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and \
                node.name.startswith(HOOK_PREFIX):
            found.append((node.lineno, f"defines the hook {node.name}()"))
        elif isinstance(node, ast.Name) and node.id == "pytest_plugins" and \
                isinstance(node.ctx, ast.Store):
            found.append((node.lineno, "sets pytest_plugins"))
        elif isinstance(node, ast.Attribute) and node.attr in PYTEST_NAMES:
            found.append((node.lineno, f"uses pytest's {node.attr}"))
    return found
