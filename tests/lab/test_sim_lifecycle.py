"""Model lifecycle: dates in the model table, read on the simulator's day (fixed here, never the
wall clock's), retired ids refused with the API's 404, deprecated ones answered, snapshot ids
listed and resolved, display names as the API words them (docs: model-deprecations; SDK
``ModelInfo``)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import anthropic
import pytest

from ctxlab import models, scenarios
from ctxlab.sim import Simulator
from ctxlab.sim.clock import SimClock

ROOT = Path(__file__).resolve().parents[2]
ON = date(2026, 12, 1)  # set explicitly: nothing here flips as real dates pass


@pytest.fixture
def sim() -> Simulator:
    """A simulator whose clock starts on ``ON``."""
    return Simulator(clock=SimClock(epoch=datetime(2026, 12, 1, tzinfo=UTC).timestamp()))


def ask(client: anthropic.Anthropic, model: str) -> anthropic.types.Message:
    return client.messages.create(model=model, max_tokens=32,
                                  messages=[{"role": "user", "content": "hi"}])


@pytest.mark.parametrize("model", ["claude-opus-4-0", "claude-sonnet-4-20250514",
                                   "claude-sonnet-4-5"])
def test_a_retired_model_is_a_404_worded_as_the_api(connect, model) -> None:
    with pytest.raises(anthropic.NotFoundError) as info:
        ask(connect(max_retries=0), model)
    error = info.value.body["error"]
    assert (error["type"], error["message"]) == ("not_found_error", f"model: {model}")


def test_a_deprecated_model_answers_and_the_catalogue_says_so(connect) -> None:
    client = connect()
    with pytest.warns(DeprecationWarning, match="end-of-life"):  # the SDK's own, client-side
        assert ask(client, "claude-opus-4-5").stop_reason == "end_turn"  # the API: no signal
    info = client.models.retrieve("claude-opus-4-5")
    assert (info.id, info.display_name, info.lifecycle) == (
        "claude-opus-4-5-20251101", "Claude Opus 4.5", "deprecated")
    assert (info.deprecated_at.date(), info.retires_at.date()) == (date(2026, 11, 23),
                                                                    date(2027, 1, 22))
    retired = client.models.retrieve("claude-opus-4-0")  # kept as the record
    assert (retired.lifecycle, retired.retires_at, retired.display_name) == (
        "retired", None, "Claude Opus 4")


def test_the_day_is_the_simulated_clocks_unless_fixed(sim: Simulator) -> None:
    assert sim.day() == ON and Simulator(today=date(2027, 1, 1)).day() == date(2027, 1, 1)
    at_start = Simulator()  # in-process: second 0 is 2026-03-02 (ctxlab.dynamic.EPOCH)
    assert at_start.day() == date(2026, 3, 2)
    assert models.get("claude-sonnet-4-0").lifecycle(at_start.day()) == "active"
    later = Simulator(clock=SimClock(epoch=at_start.clock.epoch + 120 * 86_400))
    assert models.get("claude-sonnet-4-0").lifecycle(later.day()) == "retired"


def test_snapshot_ids_are_listed_and_aliases_resolve(connect) -> None:
    client = connect()
    listed = {m.id: m for m in client.models.list(limit=1000).data}
    assert "claude-haiku-4-5-20251001" in listed and "claude-haiku-4-5" not in listed
    assert "claude-opus-4-6" in listed  # a model named without a date is listed as it is
    for alias in ("claude-haiku-4-5", "claude-haiku-4-5-20251001"):
        assert client.models.retrieve(alias).id == "claude-haiku-4-5-20251001"
    names = {m.display_name for m in listed.values()}
    assert {"Claude Haiku 4.5", "Claude Fable 5.2", "Claude Opus 5", "Claude Sonnet 4"} <= names
    assert not any(re.search(r"\d \d", n) for n in names), names


def _used_models() -> set[str]:
    used = {scenarios.load(name).model for name in scenarios.names()}
    for readme in ("README.md", "README.zh-CN.md"):
        text = (ROOT / readme).read_text(encoding="utf-8")
        used |= {m for m in re.findall(r"claude-[a-z]+-[0-9-]*[0-9]", text) if models.lookup(m)}
    return used


def test_every_model_the_workbook_uses_is_active_on_its_days() -> None:
    used = _used_models()
    assert "claude-haiku-4-5" in used
    for day in (Simulator().day(), models.TABLE_DATE):
        stages = {m: models.get(m).lifecycle(day) for m in used}
        assert set(stages.values()) == {"active"}, (day, stages)


def test_serve_reads_the_table_on_a_fixed_day(capsys) -> None:
    from ctxlab.cli import main

    with pytest.raises(SystemExit) as info:
        main(["serve", "--date", "tomorrow"])
    assert info.value.code == 2 and "not a date like" in capsys.readouterr().err
