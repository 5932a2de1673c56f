"""Identical runs shared between processes (``ctxlab.runcache``): a shared run is the run,
only runs their arguments determine are shared, and an edit to any source starts afresh."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxlab import runcache, runner
from ctxlab.server_edits import CLEAR, ServerEdits
from ctxlab.sim import Simulator
from ctxlab.workbook.router import FINDER, Selection

CHILD = """
import sys
from ctxlab import runner
result = runner.run(2, "bugfix-small")
print(result.session is None, result.summary.tokens_per_task)
"""


def _shared_in(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.pickle"))


@pytest.mark.reliability  # a second process: make reliability
def test_another_process_gets_the_run_this_one_computed(tmp_path: Path) -> None:
    env = {**os.environ, runcache.ENV: str(tmp_path)}
    children = [subprocess.run([sys.executable, "-c", CHILD], env=env, text=True,
                               capture_output=True) for _ in range(2)]
    assert [child.returncode for child in children] == [0, 0], children[0].stderr[-2000:]
    first, second = (child.stdout.split() for child in children)
    assert first[0] == "False" and second[0] == "True"  # computed, then read back
    assert first[1] == second[1]
    assert len(_shared_in(tmp_path)) == 1


def test_a_shared_run_equals_a_computed_one(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(runcache.ENV, str(tmp_path))
    computed = runner.run(5, "bugfix-small")
    shared = runner.run(5, "bugfix-small")
    monkeypatch.delenv(runcache.ENV)
    fresh = runner.run(5, "bugfix-small")
    assert shared is not computed and shared.session is None
    for run in (computed, shared):
        assert run.summary == fresh.summary
        assert run.records == fresh.records and run.messages == fresh.messages
        assert run.loss == fresh.loss and run.problems == fresh.problems
    assert type(shared.layer) is type(fresh.layer)


@pytest.mark.parametrize("extra", [
    {"simulator": Simulator()}, {"on_record": print}, {"layer_options": {"f": print}},
    {"workspace": "kept"}, {"live": True}, {"export_log": "log.jsonl"}, {"layer": object()},
], ids=lambda extra: next(iter(extra)))
def test_only_runs_their_arguments_determine_are_shared(extra: dict) -> None:
    assert runcache.key({"stage": 1, "scenario": "bugfix-small", **extra}) is None


def test_the_key_names_the_implementation_and_every_plain_argument() -> None:
    base = {"stage": 1, "scenario": "bugfix-small", "seed": 0, "live": False}
    keys = {runcache.key(base), runcache.key({**base, "seed": 1}),
            runcache.key({**base, "layer_options": {"ratio": 0.5}})}
    assert len(keys) == 3 and None not in keys


def test_an_edited_source_file_changes_the_key(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    before = runcache._digest(tmp_path)
    assert runcache._digest(tmp_path) == before
    (tmp_path / "a.py").write_text("x = 22\n")  # seen in the same process
    assert runcache._digest(tmp_path) != before


def test_inside_computed_a_run_is_never_read_back(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(runcache.ENV, str(tmp_path))
    runner.run(1, "bugfix-small")
    with runcache.computed():
        again = runner.run(1, "bugfix-small")
    assert again.session is not None and len(_shared_in(tmp_path)) == 1


def test_selections_that_load_the_same_packages_share_their_runs() -> None:
    base = {"stage": 1, "scenario": "bugfix-small"}
    before = FINDER.selection
    try:
        keys = []
        for selection in (Selection("solutions"), Selection("solutions", 5),
                          Selection("stages", 2), Selection("stages", 5)):
            FINDER.selection = selection
            keys.append(runcache.key(base))
    finally:
        FINDER.selection = before
    assert keys[0] == keys[1] != keys[2] != keys[3] != keys[0]


def test_a_layer_named_by_a_file_the_key_digests_is_shared_and_no_other(tmp_path: Path) -> None:
    base = {"stage": None, "scenario": "bugfix-small"}
    own = tmp_path / "mine.py"
    own.write_text("def make():\n    return None\n", encoding="utf-8")
    assert runcache.key({**base, "layer": "ctxlab.peers.cache_only:CacheOnly"}) is not None
    assert runcache.key({**base, "layer": "s5_pipeline:make_layer"}) is not None
    assert runcache.key({**base, "layer": f"{own}:make"}) is None  # may change in a session
    assert runcache.key({**base, "layer": "no_such_module:make"}) is None
    edits = [runcache.key({**base, "server": ServerEdits(e)}) for e in ((), ({"type": CLEAR},))]
    assert None not in edits and edits[0] != edits[1]


def test_remembered_work_is_computed_once_and_read_back(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(runcache.ENV, str(tmp_path))
    calls: list[int] = []

    def work() -> dict[str, int]:
        calls.append(1)
        return {"value": 42, "private": 7}

    def kept(value: dict[str, int]) -> dict[str, int]:
        return {"value": value["value"]}

    first = runcache.remembered(["test", 1], work, kept)
    again = runcache.remembered(["test", 1], work, kept)
    other = runcache.remembered(["test", 2], work, kept)
    assert first == other == {"value": 42, "private": 7} and again == {"value": 42}
    assert len(calls) == 2


def test_the_ladders_runs_are_shared_without_their_simulator(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxlab.ladder import runs
    from ctxlab.ladder.core import Cell

    monkeypatch.setenv(runcache.ENV, str(tmp_path))
    cell, watching = Cell.parse("1"), runs.Setup("watch-the-task", watch=("discount code",))
    runs.clear()
    made = runs.get(cell, "bugfix-small", setup=watching)
    runs.clear()  # a new process: nothing kept in memory
    shared = runs.get(cell, "bugfix-small", setup=watching)
    runs.clear()
    assert made.result.simulator is not None and shared.result.simulator is None
    assert shared.result.summary == made.result.summary and shared.seen == made.seen
    assert any(seen for _, seen in made.seen)  # the watcher did see the text


def test_a_ladder_run_with_nothing_added_is_the_runners_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cell run with no faults and nothing watched is the plain run: one computation for
    the ladder and for a test or notebook that asks the runner for it."""
    from ctxlab.ladder import runs
    from ctxlab.ladder.core import Cell

    monkeypatch.setenv(runcache.ENV, str(tmp_path))
    runs.clear()
    cell = runs.get(Cell.parse("2"), "bugfix-small")
    runs.clear()
    assert len(_shared_in(tmp_path)) == 1 and cell.seen == []
    asked = runner.run(2, "bugfix-small")
    assert len(_shared_in(tmp_path)) == 1 and asked.session is None  # read back
    assert asked.summary == cell.result.summary and asked.records == cell.result.records


def test_two_ways_of_asking_for_one_run_share_it(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The scenario's own model named or left out, its turn limit spelled out, options at
    their defaults or empty: the runner reads them the same, so the run is computed once
    (``runner.same_run``)."""
    from ctxlab import scenarios

    plan = scenarios.load("bugfix-small")
    monkeypatch.setenv(runcache.ENV, str(tmp_path))
    asked = [runner.run(2, "bugfix-small"),
             runner.run(2, "bugfix-small", model=plan.model, layer_options={}),
             runner.run(2, "bugfix-small", max_turns=3 * len(plan.steps) + 20, delegation={}),
             runner.run(2, "bugfix-small", layer_options={"ratio": 0.8, "naive": False})]
    assert len(_shared_in(tmp_path)) == 1
    assert asked[0].session is not None and all(run.session is None for run in asked[1:])
    other = runner.run(2, "bugfix-small", model="claude-sonnet-4-6")  # another model: its own
    assert len(_shared_in(tmp_path)) == 2 and other.records[0].model == "claude-sonnet-4-6"
    runner.run(2, "bugfix-small", layer_options={"ratio": 0.5})  # another option: its own
    assert len(_shared_in(tmp_path)) == 3
    monkeypatch.delenv(runcache.ENV)
    fresh = runner.run(2, "bugfix-small", model=plan.model)
    assert all(run.summary == fresh.summary and run.records == fresh.records for run in asked)
