"""A context layer of your own on the bench: ``--layer MODULE:FACTORY`` (guide §5, §14).

Any object with ``prepare(messages, session)`` and ``admit(results, session)`` — the
``ContextLayer`` contract in ``ctxlab.session`` — runs on the same runner as the stages, metered
the same way. ``MODULE`` is an importable module (``my_layers.trim``, looked up in the current
folder too) or a ``.py`` file (``layers/trim.py``); ``FACTORY`` is a callable in it that returns
the layer, called with the ``--set KEY=VALUE`` options.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any


class LayerSpecError(ValueError):
    """A ``MODULE:FACTORY`` that cannot be used; the message says why, in one line."""


def factory(spec: str) -> Callable[..., Any]:
    """The callable ``spec`` (``MODULE:FACTORY``) names."""
    module_name, sep, name = spec.rpartition(":")
    if not sep or not module_name or not name.isidentifier():
        raise LayerSpecError(f"--layer {spec!r}: expected MODULE:FACTORY, e.g. "
                             "my_layer:make_layer or layers/trim.py:make_layer")
    module = _module(module_name, spec)
    made = getattr(module, name, None)
    if not callable(made):
        raise LayerSpecError(f"--layer {spec!r}: {module_name} has no callable {name!r}")
    return made


def build(spec: str, options: dict[str, Any] | None = None) -> Any:
    """The layer ``spec``'s factory makes with ``options``, checked against the contract."""
    try:
        layer = factory(spec)(**(options or {}))
    except TypeError as error:
        raise LayerSpecError(f"--layer {spec!r} does not take these options: {error}") from None
    missing = [hook for hook in ("prepare", "admit") if not callable(getattr(layer, hook, None))]
    if missing:
        raise LayerSpecError(f"--layer {spec!r} made a {type(layer).__name__} without "
                             f"{' and '.join(missing)} (see ContextLayer in ctxlab.session)")
    return layer


def _module(name: str, spec: str) -> ModuleType:
    if name.endswith(".py") or "/" in name or "\\" in name:
        path = Path(name)
        if not path.is_file():
            raise LayerSpecError(f"--layer {spec!r}: no file {name}")
        unit = importlib.util.spec_from_file_location(f"ctxlab_layer_{path.stem}", path)
        if unit is None or unit.loader is None:
            raise LayerSpecError(f"--layer {spec!r}: {name} is not a Python file")
        module = importlib.util.module_from_spec(unit)
        unit.loader.exec_module(module)
        return module
    here = str(Path.cwd())
    added = here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        raise LayerSpecError(f"--layer {spec!r}: cannot import {error.name!r}") from None
    finally:
        if added:
            sys.path.remove(here)
