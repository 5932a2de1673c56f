"""API errors as the simulator raises and renders them (API notes §2.1)."""

from __future__ import annotations

from typing import Any

ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


class APIError(Exception):
    """One error response: status, ``error.type``, message and extra headers."""

    def __init__(self, status: int, message: str, *, headers: dict[str, str] | None = None,
                 error_type: str | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = error_type or ERROR_TYPES.get(status, "api_error")
        self.headers = dict(headers or {})
        self.details = details  # ``error.details``: the SDK picks a subclass by its error_code

    def body(self, request_id: str | None) -> dict[str, Any]:
        """The JSON envelope: ``{"type":"error","error":{...},"request_id":...}``."""
        error: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return {"type": "error", "error": error, "request_id": request_id}


def invalid(message: str) -> APIError:
    """A 400 ``invalid_request_error``."""
    return APIError(400, message)
