"""``GET /v1/models`` and ``GET /v1/models/{id}``: the simulator's model table (API notes §4).

Entries follow the API's ``ModelInfo`` shape, with the window and output limit the simulator
enforces. The release date is unknown here, so ``created_at`` is the epoch, as the API itself
does for a model whose date it does not know. Pages use ``limit`` (default 20, 1–1000),
``after_id`` and ``before_id``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from .. import models
from . import wording
from .errors import APIError, invalid

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
    params = {k: v[-1] for k, v in parse_qs(query).items()}
    raw_limit = params.get("limit", "20")
    if not raw_limit.isdigit():
        raise invalid(wording.WRONG_TYPE.format(path="limit", expected="a valid integer"))
    if not 1 <= int(raw_limit) <= 1000:
        template = wording.RANGE_MIN if int(raw_limit) < 1 else wording.RANGE_MAX
        raise invalid(template.format(path="limit", limit=1 if int(raw_limit) < 1 else 1000))
    ids = [spec.id for spec in models.MODELS]
    start, end = 0, len(ids)
    if params.get("after_id") in ids:
        start = ids.index(params["after_id"]) + 1
    if params.get("before_id") in ids:
        end = ids.index(params["before_id"])
    limit = int(raw_limit)
    chosen = ids[start:end]
    page = chosen[-limit:] if "before_id" in params and "after_id" not in params else \
        chosen[:limit]
    data = [info(models.lookup(i)) for i in page]  # type: ignore[arg-type]
    return {"data": data, "has_more": len(page) < len(chosen),
            "first_id": page[0] if page else None, "last_id": page[-1] if page else None}
