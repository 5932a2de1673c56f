"""The Messages request's remaining top-level fields, checked as the SDK's types declare them
(anthropic 2.17.0 ``MessageCreateParams`` and its beta form; API notes §3).

``container`` (an id, or ``{"id", "skills"}``), ``metadata.user_id``, ``service_tier``
(``auto`` | ``standard_only``), ``speed`` (``standard`` | ``fast``), ``inference_geo``,
``diagnostics.previous_message_id``; and the server-side fallbacks beta: ``fallbacks`` (a list
of ``{"model"}`` or ``"default"``) under ``server-side-fallback-2026-06-01``/``-07-01`` and
``fallback_credit_token`` under ``fallback-credit-*``. The offline model never declines a
request for policy reasons, so no fallback ever fires: the answer comes from the requested
model, as the API's does when the first model accepts. A credit token can only come from a
refusal, so any token sent here is one this server did not issue: a 400 (the SDK's docstring:
"a mismatch is a 400").
"""

from __future__ import annotations

from typing import Any

from .. import models
from . import wording
from .errors import invalid

FALLBACK_BETAS = ("server-side-fallback-2026-06-01", "server-side-fallback-2026-07-01")
CREDIT_BETAS = ("fallback-credit-2026-06-01", "fallback-credit-2026-07-01")
CHOICES = {"service_tier": ("auto", "standard_only"), "speed": ("standard", "fast")}


def _kind(value: Any, kind: type, path: str, expected: str) -> None:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise invalid(wording.WRONG_TYPE.format(path=path, expected=expected))


def _optional_str(obj: dict[str, Any], name: str, path: str) -> None:
    if obj.get(name) is not None:
        _kind(obj[name], str, f"{path}.{name}", "a valid string")


def _only(obj: dict[str, Any], names: tuple[str, ...], path: str) -> None:
    for name in obj:
        if name not in names:
            raise invalid(wording.EXTRA_INPUT.format(field=f"{path}.{name}"))


def check(body: dict[str, Any], betas: frozenset[str]) -> None:
    """Shapes of the fields above; a beta field without its beta is an extra input."""
    for name, allowed in CHOICES.items():
        value = body.get(name)
        if value is not None and value not in allowed:
            expected = " or ".join(f"'{a}'" for a in allowed)
            raise invalid(wording.WRONG_TYPE.format(path=name, expected=expected))
    container = body.get("container")
    if container is not None and not isinstance(container, str):
        _kind(container, dict, "container", "a valid string or dictionary")
        _only(container, ("id", "skills"), "container")
        _optional_str(container, "id", "container")
        if container.get("skills") is not None:
            _kind(container["skills"], list, "container.skills", "a valid list")
    for name, inner in (("metadata", ("user_id",)),
                        ("diagnostics", ("previous_message_id",))):
        if body.get(name) is not None:
            _kind(body[name], dict, name, "a valid dictionary")
            _only(body[name], inner, name)
            _optional_str(body[name], inner[0], name)
    if body.get("inference_geo") is not None:
        _kind(body["inference_geo"], str, "inference_geo", "a valid string")
    _fallbacks(body, betas)


def _fallbacks(body: dict[str, Any], betas: frozenset[str]) -> None:
    if "fallbacks" in body:
        if not betas & set(FALLBACK_BETAS):
            raise invalid(wording.EXTRA_INPUT.format(field="fallbacks"))
        chain = body["fallbacks"]
        if chain is not None and chain != "default":
            _kind(chain, list, "fallbacks", "'default' or a valid list")
            for i, entry in enumerate(chain):
                _kind(entry, dict, f"fallbacks.{i}", "a valid dictionary")
                if "model" not in entry:
                    raise invalid(wording.FIELD_REQUIRED.format(path=f"fallbacks.{i}.model"))
                _only(entry, ("model",), f"fallbacks.{i}")  # "per-attempt overrides are rejected"
                _kind(entry["model"], str, f"fallbacks.{i}.model", "a valid string")
                spec = models.lookup(entry["model"])
                if spec is None or spec.simulated_only:
                    raise invalid(wording.FALLBACK_MODEL.format(i=i, model=entry["model"]))
                if spec is models.lookup(str(body.get("model"))):
                    raise invalid(wording.FALLBACK_SAME.format(i=i))
    if "fallback_credit_token" in body:
        if not betas & set(CREDIT_BETAS):
            raise invalid(wording.EXTRA_INPUT.format(field="fallback_credit_token"))
        if body["fallback_credit_token"] is not None:
            raise invalid(wording.FALLBACK_CREDIT)
