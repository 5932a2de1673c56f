"""Kata, stage 5 (20 minutes): the bill of the next request (guide §6.5–§6.7).

Write ``next_request(static, cached_history, idle_s, total, *, same_prefix)`` in a module of
your own. It returns an object with the attributes ``read``, ``write_5m`` and ``write_1h``:
how the next request's ``total`` input tokens split, with stage 5's cache zones — a static
zone of ``static`` tokens cached for 1 hour, the history cached for 5 minutes at one moving
breakpoint on the newest block (so nothing is billed uncached). ``cached_history`` is the
history the last request wrote; ``idle_s`` the time since it; ``same_prefix`` is False after
a compaction changed the history. Then:

    CTXLAB_KATA=my_kata PYTHONPATH=. .venv/bin/pytest tests/kata/test_kata_cache_bill.py

Without ``CTXLAB_KATA`` the reference (``ctxlab.beyond.cache_cost``) is tested. The last test
holds your function to the simulator's own bill, after idle gaps and with old results cleared
(ten turns in: early enough entries have left the 20-block lookback, R18, so only the static
zone survives a clearing).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from typing import Any

import pytest

from ctxlab import use
from ctxlab.beyond.cold_cache import cold_cache_check
from ctxlab.workbook.router import FINDER

KATA = importlib.import_module(os.environ.get("CTXLAB_KATA", "ctxlab.beyond.cache_cost"))


def split(bill: Any) -> tuple[int, int, int]:
    return bill.read, bill.write_5m, bill.write_1h


def test_a_warm_request_reads_the_whole_last_prefix() -> None:
    assert split(KATA.next_request(1_000, 9_000, 10, 12_000, same_prefix=True)) == \
        (10_000, 2_000, 0)


def test_after_five_minutes_only_the_static_zone_is_read() -> None:
    assert split(KATA.next_request(1_000, 9_000, 360, 12_000, same_prefix=True)) == \
        (1_000, 11_000, 0)


def test_after_an_hour_everything_is_written_and_the_static_zone_for_an_hour() -> None:
    assert split(KATA.next_request(1_000, 9_000, 3_660, 12_000, same_prefix=True)) == \
        (0, 11_000, 1_000)


def test_after_a_compaction_the_history_is_written_again() -> None:
    assert split(KATA.next_request(1_000, 9_000, 10, 4_000, same_prefix=False)) == \
        (1_000, 3_000, 0)


@pytest.fixture(scope="module")
def reference() -> Iterator[None]:
    before = FINDER.selection
    use("solutions")
    yield
    use(before.impl, before.stage, before.chain)


def test_it_predicts_the_simulator_s_bill(reference: None) -> None:
    check = cold_cache_check("long-task", turns=10, model="claude-sonnet-4-6")
    for row in check["requests"]:
        cacheable = row["request_tokens"] - row["volatile_tokens"]  # the clock is never cached
        predicted = KATA.next_request(check["static_tokens"], check["history_tokens"],
                                      row["pause_s"], cacheable,
                                      same_prefix=not row["cleared"])
        actual = row["actual"]
        assert split(predicted) == (actual["read"], actual["write_5m"], actual["write_1h"]), row
