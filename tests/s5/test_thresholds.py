"""Exercise 5.1 — absolute thresholds (guide §8)."""

from __future__ import annotations

import pytest
from s5_pipeline import thresholds

pytestmark = pytest.mark.exercise("5.1")


def test_same_code_different_share_on_200k_and_1m() -> None:
    small, large = thresholds(200_000), thresholds(1_000_000)
    assert small.compact_at == 167_000 and large.compact_at == 967_000  # §8.1
    assert small.compact_share == pytest.approx(0.835)
    assert large.compact_share == pytest.approx(0.967)


def test_completion_buffer_is_a_floor_not_a_second_subtraction() -> None:
    assert thresholds(200_000, completion_buffer=30_000).compact_at == 167_000
    assert thresholds(200_000, completion_buffer=50_000).compact_at == 150_000


def test_blocking_mark_and_target() -> None:
    limits = thresholds(200_000, target_share=0.6)
    assert limits.blocking_at == 197_000
    assert limits.target == int(167_000 * 0.6)


def test_a_small_model_reserves_its_own_maximum_output() -> None:
    assert thresholds(32_000, summary_reserve=8_000).compact_at == 32_000 - 21_000


def test_the_band_is_a_share_of_the_window_below_the_trigger() -> None:
    """§4.6: keep the occupancy at 50–65 % of the window; the band never rises above the
    trigger, so on a 32K window it collapses onto it."""
    limits = thresholds(200_000)
    assert (limits.band_low, limits.band_high) == (100_000, 130_000)
    small = thresholds(32_000, summary_reserve=8_000)
    assert small.band_low == small.band_high == small.compact_at == 11_000
