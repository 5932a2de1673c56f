"""Exercise 1.3 — the reported size of a request is the sum of the usage partition (§2)."""

from __future__ import annotations

import pytest
from s1_loop import reported_tokens

from ctxlab.sim import Simulator, make_client

pytestmark = pytest.mark.exercise("1.3")

SYSTEM = [{"type": "text", "text": "Project rules. " * 800, "cache_control": {"type": "ephemeral"}}]


def test_total_matches_count_tokens_with_cache_write_and_read() -> None:
    client = make_client(Simulator())
    messages = [{"role": "user", "content": "What changed?"}]
    expected = client.messages.count_tokens(model="claude-sonnet-4-6", system=SYSTEM,
                                            messages=messages).input_tokens
    first = client.messages.create(model="claude-sonnet-4-6", max_tokens=50, system=SYSTEM,
                                   messages=messages)
    second = client.messages.create(model="claude-sonnet-4-6", max_tokens=50, system=SYSTEM,
                                    messages=messages)
    assert first.usage.cache_creation_input_tokens > 0  # written on the first call
    assert second.usage.cache_read_input_tokens > 0  # read on the second
    assert reported_tokens(first.usage) == expected
    assert reported_tokens(second.usage) == expected
    assert second.usage.input_tokens < expected  # input_tokens alone is not the size


def test_missing_cache_fields_count_as_zero() -> None:
    from anthropic.types import Usage

    usage = Usage(input_tokens=120, output_tokens=7)
    assert reported_tokens(usage) == 120
