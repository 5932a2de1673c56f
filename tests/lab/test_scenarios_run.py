"""Every scenario, run for real: Brain + simulator + tools, nothing ever compacted.

A plain loop (send → run the tools → append the results → repeat) must finish each scenario on
the model it declares, with the success check passing in the workspace. The runs also pin the
properties each scenario exists for (overflow, parallel burst, Chinese text, ch8.3 figures).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import anthropic
import pytest

from ctxlab import models
from ctxlab.brain import Brain
from ctxlab.scenarios import FollowUps, Scenario, check, load, names, open_workspace, opening
from ctxlab.sim import Simulator, make_client
from ctxlab.tokens import count_messages, estimate_messages
from ctxlab.tools import ToolBox, definitions, to_tool_result

pytestmark = pytest.mark.reliability  # outside make test: make reliability (tests/conftest.py)

MAX_TURNS = 200


@dataclass
class Run:
    """What one run left behind."""

    scenario: Scenario
    messages: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[int] = field(default_factory=list)  # input tokens of each request
    outputs: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    passed: bool = False


def drive(scenario: Scenario, model: str) -> Run:
    """The plainest agent loop, with a turn cap. The agent finds every fact in view and keeps
    no re-read habit: these runs pin the plans themselves (``test_brain_retrieval`` and
    ``test_brain_habits`` cover what the retrieval model and the habit add)."""
    run = Run(scenario, [opening(scenario)])
    client = make_client(Simulator(responder=Brain(scenario, rot=False,
                                                   reread_in_view_rate=0.0)))
    follow = FollowUps(scenario)
    with open_workspace(scenario) as workspace:
        tools = ToolBox(workspace)
        for _ in range(MAX_TURNS):
            reply = client.messages.create(model=model, max_tokens=4096, tools=definitions(),
                                           messages=run.messages)
            usage = reply.usage
            run.prompts.append(usage.input_tokens + usage.cache_read_input_tokens
                               + usage.cache_creation_input_tokens)
            content = [block.model_dump(exclude_none=True) for block in reply.content]
            run.messages.append({"role": "assistant", "content": content})
            uses = [b for b in content if b["type"] == "tool_use"]
            if not uses:
                break
            results = []
            for use in uses:
                output = tools.run(use["name"], use["input"])
                run.outputs.append((use["name"], use["input"], output.content))
                results.append(to_tool_result(use["id"], output))
            results += follow.after((u["name"], u["input"]) for u in uses)
            run.messages.append({"role": "user", "content": results})
        run.passed = check(scenario, workspace.root).passed
    return run


ROOMY = "claude-sonnet-4-6"  # a 1M window: every scenario fits when nothing is compacted


def fitting_model(scenario: Scenario) -> str:
    """The declared model when the whole task fits it, else the 1M-window model."""
    return ROOMY if scenario.name in OVERFLOWING else scenario.model


OVERFLOWING = ("long-task", "medium-results", "chat-heavy", "parallel-flood")
"""Scenarios declared on a 200K window that they outgrow when nothing is compacted."""


@cache
def finished(name: str) -> Run:
    scenario = load(name)
    return drive(scenario, fitting_model(scenario))


STALE = ("stale-file",)
"""Scenarios whose file changes under the agent: with nothing saying so, it edits its old copy."""


@pytest.mark.parametrize("name", [n for n in names() if n not in STALE])
def test_every_scenario_succeeds_on_a_window_that_fits_it(name: str) -> None:
    run = finished(name)
    scenario = run.scenario
    assert run.passed
    closing = run.messages[-1]["content"][-1]["text"].split("\n\n")  # notes may come first
    assert any(part.startswith("The task is done") for part in closing)
    assert max(run.prompts) <= models.get(fitting_model(scenario)).context_window
    # With everything visible each step is taken once, and its result shows what it yields.
    assert len(run.outputs) == len(scenario.steps)
    for step, (tool, tool_input, output) in zip(scenario.steps, run.outputs, strict=True):
        assert step.call.tool == tool
        assert tool_input in [c.input for c in step.calls]
        for fact in step.yields:
            assert scenario.marker(fact) in output, (step.id, fact)


@pytest.mark.parametrize("name", STALE)
def test_with_everything_in_view_a_changed_file_is_edited_from_the_old_copy(name: str) -> None:
    run = finished(name)
    step = next(s for s in run.scenario.steps if s.stale is not None)
    assert not run.passed
    assert [i for _, i, _ in run.outputs if i.get("old")] == [step.stale.input]


@pytest.mark.parametrize("name", OVERFLOWING)
def test_overflowing_scenarios_outgrow_their_declared_200k_window(name: str) -> None:
    scenario = load(name)
    assert models.get(scenario.model).context_window == 200_000
    assert max(finished(name).prompts) > 200_000
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long: .* > 200000"):
        drive(scenario, scenario.model)


def test_the_small_bug_fix_fits_the_32k_model() -> None:
    assert load("bugfix-small").model == "ctxlab-sim-32k"
    assert finished("bugfix-small").passed


def test_parallel_burst_sends_ten_40k_results_in_one_message() -> None:
    burst = max(finished("parallel-burst").messages,
                key=lambda m: sum(b["type"] == "tool_result" for b in m["content"]))
    sizes = [len(b["content"]) for b in burst["content"]]
    assert len(sizes) == 10
    assert all(35_000 < size < 50_000 for size in sizes)
    assert sum(sizes) > 200_000


def test_medium_results_stay_under_the_offload_threshold_yet_overflow_200k() -> None:
    run = finished("medium-results")
    assert all(len(output) < 50_000 for _, _, output in run.outputs)
    assert sum(len(output) > 15_000 for _, _, output in run.outputs) >= 25
    assert max(run.prompts) > 200_000


def test_chat_heavy_is_many_small_turns_with_the_user_writing_in() -> None:
    run = finished("chat-heavy")
    assert len(run.outputs) >= 100
    assert all(len(output) < 10_000 for _, _, output in run.outputs)
    user_texts = [b["text"] for m in run.messages[1:] if m["role"] == "user"
                  for b in m["content"] if b["type"] == "text"]
    later = [m.text for m in run.scenario.messages] + [
        c.text for c in run.scenario.constraints if c.after is not None]
    assert sorted(user_texts) == sorted(later)
    assert max(run.prompts) > 200_000


def test_chinese_text_defeats_the_chars_over_four_estimate() -> None:
    messages = finished("chinese-code").messages
    real, estimate = count_messages(messages), estimate_messages(messages)
    assert (real - estimate) / real > 0.2


def test_images_arrive_in_user_messages() -> None:
    images = [b for m in finished("images").messages if m["role"] == "user"
              for b in m["content"] if b["type"] == "image"]
    assert len(images) == 3


def _offload(messages: list[dict[str, Any]], limit: int = 50_000,
             preview: int = 2_000) -> list[dict[str, Any]]:
    """ch8.1's L3: results over ``limit`` characters go to disk, a preview stays."""
    def cut(block: dict[str, Any]) -> dict[str, Any]:
        if block["type"] != "tool_result" or len(block["content"]) <= limit:
            return block
        path = f".task_outputs/tool-results/{block['tool_use_id']}.txt"
        return {**block, "content": f"{block['content'][:preview]}\n[full output: {path}]"}
    return [{**m, "content": [cut(b) for b in m["content"]]} for m in messages]


def _clear_old(messages: list[dict[str, Any]], keep: int = 3) -> list[dict[str, Any]]:
    """ch8.1's L2: all but the last ``keep`` tool results become a one-line placeholder."""
    ids = [b["tool_use_id"] for m in messages for b in m["content"] if b["type"] == "tool_result"]
    old = set(ids[:-keep])
    placeholder = "[Earlier tool result compacted. Re-run the tool if you need it.]"
    return [{**m, "content": [{**b, "content": placeholder} if b.get("tool_use_id") in old
                              and b["type"] == "tool_result" else b for b in m["content"]]}
            for m in messages]


def test_the_ch8_worked_example_reproduces_the_excerpts_figures() -> None:
    messages = finished("ch8-worked-example").messages
    assert len(messages) <= 50
    turn35 = messages[:35]
    big = [b for m in turn35 for b in m["content"]
           if b["type"] == "tool_result" and len(b["content"]) > 50_000]
    assert len(big) == 3 and all(59_000 < len(b["content"]) < 61_000 for b in big)
    start = count_messages(turn35)
    after_l3 = count_messages(_offload(turn35))
    after_l2 = count_messages(_clear_old(_offload(turn35)))
    assert start == pytest.approx(180_000, rel=0.05)
    assert after_l3 == pytest.approx(132_000, rel=0.05)
    assert after_l2 == pytest.approx(71_000, rel=0.05)
