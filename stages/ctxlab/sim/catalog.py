"""``GET /v1/models`` and ``GET /v1/models/{id}``: the simulator's model table (API notes §4).

Entries follow the API's ``ModelInfo`` shape, with the window and output limit the simulator
enforces. The release date is unknown here, so ``created_at`` is the epoch, as the API itself
does for a model whose date it does not know. Pages as ``paging`` serves them.
"""

from __future__ import annotations

from typing import Any

from .. import models
from . import paging, wording
from .errors import APIError

EPOCH = "1970-01-01T00:00:00Z"


def info(spec: models.ModelSpec) -> dict[str, Any]:
    """One ``ModelInfo`` object."""
    words = spec.id.replace("claude-", "Claude ").replace("-", " ").split()
    display = " ".join(w.capitalize() if w.isalpha() else w for w in words)
    return {"type": "model", "id": spec.id, "display_name": display, "created_at": EPOCH,
            "lifecycle": "active", "max_input_tokens": spec.context_window,
            "max_tokens": spec.max_output}


def answer(route: str, query: str) -> dict[str, Any]:
    """The body for a models route (``/v1/models`` or ``/v1/models/<id>``)."""
    if route != "/v1/models":
        model_id = route.removeprefix("/v1/models/")
        spec = models.lookup(model_id)
        if spec is None:
            raise APIError(404, wording.UNKNOWN_MODEL.format(model=model_id))
        return info(spec)
    ids = [spec.id for spec in models.MODELS]
    return paging.page(ids, query, lambda i: info(models.get(i)))
