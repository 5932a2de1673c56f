"""The simulated model forgets as measured models do (guide §4; DESIGN §4 "Retrieval").

Whether a visible fact is found depends on its relative position and the request's occupancy
only: the draws are keyed on the seed, the fact and the copy, never on the bytes. A miss
looks like absence (the agent fetches the fact again), every miss is telemetry, and ``--rot
off`` turns the model off.
"""

from __future__ import annotations

import json

import pytest

from ctxlab import models, needle, runner
from ctxlab.brain import retrieval
from ctxlab.brain.calls import CallLog
from ctxlab.cli import main
from ctxlab.recall import TABLES, table
from ctxlab.sim import Simulator


def test_every_family_has_a_table_with_the_published_shape() -> None:
    for recall in TABLES.values():
        assert recall.accuracy(0.5, 0.25) < recall.accuracy(0.0, 0.25) - 0.2  # Liu: 20+ points
        assert recall.accuracy(0.0, 0.25) == pytest.approx(recall.accuracy(1.0, 0.25))
        assert recall.accuracy(0.0, 0.95) < recall.accuracy(1.0, 0.95)  # primacy fades
        assert recall.accuracy(1.0, 0.9) < recall.accuracy(1.0, 0.1)  # decline with length


def _views(filler: str) -> list:
    """The needle at the same place in two requests whose other words differ."""
    sim = Simulator()
    docs = [filler * 2500, filler * 2500]  # about 25 % of the window
    return [sim.view(needle._body("claude-haiku-4-5", needle._with_needle(docs, p)))
            for p in (0.2, 0.5)]


def test_a_miss_depends_on_position_and_occupancy_never_on_the_bytes() -> None:
    a = _views("The quick brown fox jumps over the lazy dog. ")
    b = _views("Pack my box with five dozen liquor jugs today. ")
    needs = {needle.FACT: needle.NEEDLE}
    recall = table("claude-haiku-4-5")
    for va, vb in zip(a, b, strict=True):
        chances = []
        for v in (va, vb):
            ((where, copy),) = retrieval.copies(v, needle.NEEDLE)
            chances.append(recall.accuracy(where, v.input_tokens / v.window))
        assert chances[0] == pytest.approx(chances[1], abs=0.02)
        for seed in range(300):
            lost = [bool(retrieval.missed(v, seed, needs, on=True)) for v in (va, vb)]
            if lost[0] != lost[1]:  # other bytes change the outcome only through the chance
                assert min(chances) <= retrieval.draw(seed, needle.FACT, copy) < max(chances)
    # the same seed misses more often in the middle than near the start (the U)
    early, middle = (sum(bool(retrieval.missed(v, s, needs, on=True)) for s in range(300))
                     for v in a)
    assert middle > early
    assert not retrieval.missed(a[1], 0, needs, on=False)


def _tool_view(ids: list[str]) -> object:
    """A request in which the agent read the same file once per id (the needle in each
    result), under the tool-call ids another layer's request bytes would have given it."""
    filler = "The quick brown fox jumps over the lazy dog. " * 1500
    messages: list[dict] = [{"role": "user", "content": "Find the number."}]
    for ident in ids:
        messages += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": ident,
                                               "name": "read_file", "input": {"path": "a.txt"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ident,
                                          "content": f"{filler}\n{needle.NEEDLE}\n{filler}"}]}]
    messages[-1]["content"].append({"type": "text", "text": needle.QUESTION})
    return Simulator().view({"model": "claude-haiku-4-5", "max_tokens": 1024,
                             "messages": messages})


def test_a_tool_results_draw_follows_what_the_call_asked_not_its_id() -> None:
    """The simulator makes tool-call ids from the request's bytes, so the same call has another
    id under another layer: the draw is keyed on what it asked and how many identical calls
    came before it, so the same reads miss alike; a read again has a draw of its own."""
    needs = {needle.FACT: needle.NEEDLE}
    one, other = _tool_view(["toolu_a1", "toolu_a2"]), _tool_view(["toolu_b1", "toolu_b2"])
    first, again = (copy for _, copy in retrieval.copies(one, needle.NEEDLE))
    assert [c for _, c in retrieval.copies(other, needle.NEEDLE)] == [first, again]
    assert first != again
    for seed in range(200):
        assert retrieval.missed(one, seed, needs, on=True) == \
            retrieval.missed(other, seed, needs, on=True)
    # the agent's own log: a read made after a summary dropped the earlier two is the third
    log = CallLog()
    assert [c for _, c in retrieval.copies(one, needle.NEEDLE, log)] == [first, again]
    ((_, third),) = retrieval.copies(_tool_view(["toolu_a3"]), needle.NEEDLE, log)
    assert third not in (first, again) and len(log) == 3


@pytest.fixture(scope="module")
def long_run() -> runner.RunResult:
    return runner.run(None, "long-task", model="claude-sonnet-4-6", seed=0)


def test_a_miss_is_logged_and_the_agent_fetches_the_fact_again(long_run) -> None:
    misses = long_run.summary.misses
    assert misses, "keep-everything on long-task misses a fact in view (seed 0)"
    for miss in misses:
        assert set(miss) == {"turn", "fact", "position", "occupancy"}
        assert 0 <= miss["position"] <= 1 and 0 < miss["occupancy"] <= 1
        record = next(r for r in long_run.records if r.turn == miss["turn"] and r.misses)
        earlier = {(c["name"], c["input_hash"]) for r in long_run.records
                   if r.turn < miss["turn"] for c in r.tool_calls}
        assert any((c["name"], c["input_hash"]) in earlier for c in record.tool_calls), \
            "the missed fact is fetched again with a call made before"


def test_rot_off_finds_everything_in_view() -> None:
    with retrieval.switched(False):
        quiet = runner.run(None, "long-task", model="claude-sonnet-4-6", seed=0)
    assert quiet.summary.misses == []
    assert retrieval.enabled()


@pytest.fixture(scope="module")
def cells() -> list[needle.Cell]:
    return needle.experiment("claude-haiku-4-5")


def _row(cells: list[needle.Cell], occupancy: float) -> dict[float, float]:
    return {c.position: c.accuracy for c in cells if c.occupancy == occupancy}


def test_the_needle_experiment_has_the_papers_shape(cells) -> None:
    assert len(cells) == len(needle.POSITIONS) * 4 >= 40
    assert all(c.half_width <= needle.HALF_WIDTH for c in cells)
    for occupancy in (0.25, 0.5):  # a U: the middle lowest
        row = _row(cells, occupancy)
        middle = min(a for p, a in row.items() if 0.3 <= p <= 0.7)
        assert middle < min(row[0.05], row[0.95]) - 0.1
        assert middle == min(row.values())
    for occupancy in (0.75, 0.95):  # rising toward the end, the start no longer saved
        row = _row(cells, occupancy)
        tail = [row[p] for p in sorted(row) if p >= 0.55]
        assert tail == sorted(tail) and row[0.95] > row[0.05] + 0.05
    middles = [sum(a for p, a in _row(cells, o).items() if 0.3 <= p <= 0.7)
               for o in needle.OCCUPANCIES]
    assert middles == sorted(middles, reverse=True)  # the middle falls as the window fills


def test_rot_command_json_and_plot(tmp_path, capsys) -> None:
    plot = tmp_path / "rot.png"
    assert main(["rot", "--runs", "20", "--json", "--plot", str(plot)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"] == "claude-haiku-4-5" and data["published"]
    assert {(c["occupancy"], c["position"]) for c in data["cells"]} == {
        (o, p) for o in needle.OCCUPANCIES for p in needle.POSITIONS}
    assert all(set(c) == {"occupancy", "position", "accuracy", "runs"} for c in data["cells"])
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert main(["rot", "--model", "no-such-model"]) == 2
    assert table("claude-sonnet-4-6") is models.get("claude-sonnet-4-6").recall is TABLES["sonnet"]
