"""Kata, stage 5 (15 minutes): what a sub-agent's report left out (guide §11.4).

Write ``lost_facts(history, plan)`` in a module of your own. ``history`` is a lead agent's
conversation (Messages API dicts); ``plan`` a scenario (``ctxlab.scenarios.load``). For every
``task`` tool call that has a result, the steps it handed over are those of the plan whose
``note`` appears as a ``- note`` line in the call's ``prompt`` (``ctxlab.brain.delegate.
assigned`` does this); return the markers (``plan.marker(fact)``) of the facts those steps
yield that the result's text does not contain, in the order of the results. Then:

    CTXLAB_KATA=my_kata PYTHONPATH=. .venv/bin/pytest tests/kata/test_kata_handoff.py

Without ``CTXLAB_KATA`` the reference (``ctxlab.ladder.subagent_rungs``) is tested. The last
test holds your function to the runs of the free-prose and the structured hand-off.
"""

from __future__ import annotations

import importlib
import os

from ctxlab import runner, scenarios
from ctxlab.brain.delegate import HEADER

KATA = importlib.import_module(os.environ.get("CTXLAB_KATA", "ctxlab.ladder.subagent_rungs"))
PLAN = scenarios.load("isolate-read")


def _call(call_id: str, *notes: str) -> dict:
    prompt = f"{HEADER}: x.\nSteps:\n" + "".join(f"- {n}\n" for n in notes)
    return {"type": "tool_use", "id": call_id, "name": "task",
            "input": {"description": "d", "prompt": prompt, "tools": "read_file"}}


def _result(call_id: str, text: str) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text}


def test_a_fact_the_report_leaves_out_is_lost() -> None:
    eu = [s for s in PLAN.steps if s.delegate == "eu-log"]
    history = [{"role": "assistant", "content": [_call("t1", *(s.note for s in eu))]},
               {"role": "user", "content": [_result("t1", "Found: eu log: complete, 30 nights")]}]
    assert KATA.lost_facts(history, PLAN) == [PLAN.marker("eu-peak")]


def test_a_call_without_a_result_and_other_tools_are_ignored() -> None:
    history = [{"role": "assistant", "content": [
        _call("t1", PLAN.steps[2].note),
        {"type": "tool_use", "id": "r1", "name": "read_file", "input": {"path": "peaks.py"}}]},
        {"role": "user", "content": [_result("r1", "PEAKS = {}")]}]
    assert KATA.lost_facts(history, PLAN) == []


def test_on_the_runs_free_prose_loses_each_peak_and_the_structured_report_none() -> None:
    free = runner.run(5, "isolate-read", layer_options={"handoff": "free"})
    structured = runner.run(5, "isolate-read")
    assert KATA.lost_facts(free.original, PLAN) == [
        PLAN.marker(f"{region}-peak") for region in ("eu", "us", "apac")]
    assert KATA.lost_facts(structured.original, PLAN) == []
