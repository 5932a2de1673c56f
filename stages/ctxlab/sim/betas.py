"""The ``anthropic-beta`` header: values the API knows, and its refusal of any other.

The docs list betas feature by feature and say nothing about an unknown value; live answers do:
a 400 ``invalid_request_error`` "Unexpected value(s) `…` for the `anthropic-beta` header …"
(3P-LIVE: anthropics/claude-code#53855, #13770, zed-industries/zed#42715 quote it verbatim), so
the simulator refuses the same way. Known values: the SDK's ``AnthropicBetaParam`` (anthropic
2.17.0), plus the values Claude Code sends to the first-party API (its ``claude-code``,
``oauth``, ``fine-grained-tool-streaming``, ``effort``, ``prompt-caching-scope`` and
``redact-thinking`` betas: the reports above show only proxies and Vertex refusing them).
"""

from __future__ import annotations

from collections.abc import Mapping

from . import wording
from .errors import invalid

SDK = (
    "computer-use-2024-10-22", "computer-use-2025-01-24", "output-128k-2025-02-19",
    "mcp-client-2025-04-04", "mcp-client-2025-11-20", "dev-full-thinking-2025-05-14",
    "interleaved-thinking-2025-05-14", "code-execution-2025-05-22", "context-1m-2025-08-07",
    "context-management-2025-06-27", "model-context-window-exceeded-2025-08-26",
    "fast-mode-2026-02-01", "output-300k-2026-03-24", "user-profiles-2026-03-24",
    "user-profiles-2026-08-18", "user-profiles-2026-09-04", "advisor-tool-2026-03-01",
    "managed-agents-2026-04-01", "dreaming-2026-04-21", "thinking-token-count-2026-05-13",
    "server-side-fallback-2026-06-01", "server-side-fallback-2026-07-01",
    "fallback-credit-2026-06-01", "fallback-credit-2026-07-01", "agent-memory-2026-07-22",
    "mid-conversation-tool-changes-2026-07-01", "compact-2026-01-12", "computer-use-2025-11-24",
    "mcp-tunnels-2026-06-22", "structured-outputs-2025-11-13", "task-budgets-2026-03-13",
    "thinking-display-updates-2026-08-18", "mid-conversation-output-config-2026-07-01",
    "thinking-binding-controls-2026-08-01", "mid-conversation-system-clear-at-2026-08-21",
    "compact-2026-09-04", "inline-tools-2026-09-15", "mcp-client-2026-09-15",
    "ce-plugins-2026-09-01", "spend-limit-reads-2026-09-26", "telemetry-destinations-2026-08-11",
    "webhooks-2026-10-07", "admin-user-sign-out-2026-10-08", "message-threads-2026-08-12",
    "analytics-usage-cost-2026-08-24", "experimental-claude-tag-2026-10-21",
    "message-batches-2024-09-24", "prompt-caching-2024-07-31", "pdfs-2024-09-25",
    "token-counting-2024-11-01", "token-efficient-tools-2025-02-19", "files-api-2025-04-14",
    "extended-cache-ttl-2025-04-11", "skills-2025-10-02", "cache-diagnosis-2026-04-07",
    "ce-user-management-2026-07-13", "ce-claude-code-managed-settings-2026-10-06",
    "efs-2026-10-01", "google-managed-data-controls-2026-09-01",
    "user-profiles-billing-2026-10-01",
)
CLAUDE_CODE = ("claude-code-20250219", "oauth-2025-04-20", "fine-grained-tool-streaming-2025-05-14",
               "effort-2025-11-24", "prompt-caching-scope-2026-01-05", "redact-thinking-2026-02-12")
KNOWN = frozenset(SDK + CLAUDE_CODE)


def read(headers: Mapping[str, str]) -> frozenset[str]:
    """The request's betas; an unknown value is refused with the API's 400."""
    betas = [b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()]
    unknown = [b for b in betas if b not in KNOWN]
    if unknown:
        raise invalid(wording.UNKNOWN_BETA.format(values=", ".join(f"`{b}`" for b in unknown)))
    return frozenset(betas)
