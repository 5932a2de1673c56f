"""``GET /v1/models`` and ``GET /v1/models/{id}``: the simulator's model table (API notes §4).

Entries follow the API's ``ModelInfo`` shape, with the window and output limit the simulator
enforces and the lifecycle on the simulator's day (``lifecycle``, ``deprecated_at``,
``retires_at``; a retired model stays listed, as the record of its retirement). A model with a
dated snapshot is listed under that id, and its alias resolves to it. The release date is
unknown here, so ``created_at`` is the epoch, as the API itself does for a model whose date it
does not know. Pages as ``paging`` serves them.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from .. import models
from . import paging, wording
from .errors import APIError

EPOCH = "1970-01-01T00:00:00Z"


def _stamp(day: date | None) -> str | None:
    return None if day is None else f"{day.isoformat()}T00:00:00Z"


def info(spec: models.ModelSpec, on: date) -> dict[str, Any]:
    """One ``ModelInfo`` object, as of the day ``on``."""
    stage = spec.lifecycle(on)
    return {"type": "model", "id": spec.snapshot, "display_name": spec.display_name,
            "created_at": EPOCH, "lifecycle": stage,
            "deprecated_at": _stamp(spec.deprecated) if stage != "active" else None,
            "retires_at": _stamp(spec.retired) if stage == "deprecated" else None,
            "max_input_tokens": spec.context_window, "max_tokens": spec.max_output}


def answer(route: str, query: str, on: date) -> dict[str, Any]:
    """The body for a models route (``/v1/models`` or ``/v1/models/<id>``) on the day ``on``."""
    if route != "/v1/models":
        model_id = route.removeprefix("/v1/models/")
        spec = models.lookup(model_id)
        if spec is None:
            raise APIError(404, wording.UNKNOWN_MODEL.format(model=model_id))
        return info(spec, on)
    ids = [spec.snapshot for spec in models.MODELS]
    return paging.page(ids, query, lambda i: info(models.get(i), on))
