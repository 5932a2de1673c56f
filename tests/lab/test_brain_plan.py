"""The simulated agent follows its plan from what is visible: thrashing, recovery, constraints.

``Chat`` drives a Brain with fake tool results (each result carries the markers of the facts its
step yields), so these tests need neither the tools nor the simulator. ``test_brain_summary``
reuses it.
"""

from __future__ import annotations

from typing import Any

from ctxlab.brain import Brain
from ctxlab.brain.plan import Action, fetching, without_repeats
from ctxlab.brain.visible import Visible
from ctxlab.scenarios import TOOL_FIELDS, Call, Scenario, load, opening
from ctxlab.sim import ModelView, Reply

TOOLS = [{"name": name, "input_schema": {"type": "object"}} for name in TOOL_FIELDS]


def view(messages: list[dict[str, Any]], *, system: str = "", tools: bool = True,
         tool_choice: str = "auto", thinking: bool = False) -> ModelView:
    """A view as the simulator builds it (list content, alternating roles)."""
    return ModelView(model="claude-haiku-4-5",
                     system=[{"type": "text", "text": system}] if system else [],
                     messages=messages, tools=TOOLS if tools else [],
                     tool_choice={"type": tool_choice},
                     thinking={"type": "enabled", "budget_tokens": 2000} if thinking else None,
                     max_tokens=4096)


def calls(reply: Reply) -> list[Call]:
    return [Call(b["name"], b["input"]) for b in reply.content if b["type"] == "tool_use"]


PLAIN = {"reread_in_view_rate": 0.0, "parallel_read": 1.0, "parallel_search": 1.0,
         "parallel_run": 1.0}
"""The habits off that would add calls to the plan's (re-reads in view, parallel calls)."""


class Chat:
    """A conversation between a Brain and fake tools with full visibility."""

    def __init__(self, scenario: Scenario, **brain: Any) -> None:
        self.scenario = scenario  # no re-read habit and one call per response unless asked:
        self.brain = Brain(scenario, **{**PLAIN, **brain})  # these tests pin the plan
        self.messages: list[dict[str, Any]] = [opening(scenario)]
        self.ran: list[int] = []  # indexes of the steps whose calls were answered

    def output(self, call: Call) -> str:
        """The fake result: markers of the step the call stands for, among filler lines; a
        read of a committed file shows its content too (the agent edits only what it saw)."""
        reached = max(self.ran, default=-1) + 1
        matching = [i for i, s in enumerate(self.scenario.steps)
                    if call in s.calls and i <= reached]
        markers = []
        if matching:  # a repeated call answers as the latest step it can stand for
            self.ran.append(matching[-1])
            markers = [self.scenario.marker(f) for f in self.scenario.steps[matching[-1]].yields]
        source = self.scenario.source / call.input.get("path", "")
        if call.tool == "read_file" and source.is_file():
            markers.append(source.read_text(encoding="utf-8"))
        return "\n".join(["(output start)", *markers, "(output end)"])

    def turn(self) -> Reply:
        reply = self.brain.respond(view(self.messages))
        blocks = [dict(b) for b in reply.content]
        results = []
        for block in blocks:
            if block["type"] == "tool_use":
                text = self.output(Call(block["name"], block["input"]))
                block["id"] = f"toolu_{len(self.messages):03d}_{len(results)}"
                results.append({"type": "tool_result", "tool_use_id": block["id"],
                                "content": text})
        self.messages.append({"role": "assistant", "content": blocks})
        if results:
            self.messages.append({"role": "user", "content": results})
        return reply

    def run_until(self, step_id: str) -> None:
        """Take turns until the next reply would take ``step_id`` (after its predecessors)."""
        index = self.scenario.index(step_id)
        for _ in range(60):
            upcoming = calls(self.brain.respond(view(self.messages)))
            if (max(self.ran, default=-1) >= index - 1
                    and any(c in self.scenario.steps[index].calls for c in upcoming)):
                return
            self.turn()
        raise AssertionError(f"never reached {step_id}")

    def result_of(self, call: Call) -> dict[str, Any]:
        """The tool_result block answering the last tool_use of ``call``."""
        use = [b for m in self.messages for b in m["content"]
               if b["type"] == "tool_use" and Call(b["name"], b["input"]) == call][-1]
        return next(b for m in self.messages for b in m["content"]
                    if b.get("tool_use_id") == use["id"])

    def next_calls(self, **options: Any) -> list[Call]:
        return calls(self.brain.respond(view(self.messages, **options)))


def step_call(scenario: Scenario, step_id: str, comply: bool = False) -> Call:
    step = scenario.steps[scenario.index(step_id)]
    return step.comply if comply and step.comply else step.call


def test_with_everything_visible_the_plan_runs_in_order_and_ends_with_a_report() -> None:
    scenario = load("constraint")
    chat = Chat(scenario)
    taken: list[Call] = []
    for _ in range(20):
        reply = chat.turn()
        if not calls(reply):
            break
        taken += calls(reply)
    expected = [step.comply or step.call if step.tempts else step.call for step in scenario.steps]
    assert taken == expected
    assert reply.content[-1]["type"] == "text"
    assert "The task is done" in reply.content[-1]["text"]
    assert scenario.marker("all-pass") in reply.content[-1]["text"]


def test_rereads_a_file_exactly_when_its_content_is_no_longer_visible() -> None:
    scenario = load("constraint")
    chat = Chat(scenario, note_rate=0.0)  # no working note restates the log
    chat.run_until("raise-timeout")
    assert chat.next_calls() == [step_call(scenario, "raise-timeout", comply=True)]
    dump = step_call(scenario, "log-3")
    chat.result_of(dump)["content"] = "[Old tool result content cleared]"
    assert chat.next_calls() == [dump]  # the fact left: the very same call again (§12.2)
    chat.messages[0]["content"].append(
        {"type": "text", "text": "Notes so far: " + scenario.marker("slow-api")})
    assert chat.next_calls() == [step_call(scenario, "raise-timeout", comply=True)]


def test_continues_from_the_furthest_visible_step_instead_of_starting_over() -> None:
    scenario = load("constraint")
    chat = Chat(scenario)
    chat.run_until("log-3")
    del chat.messages[1:5]  # the first two rounds (checks, read-job) scroll away
    taken = [calls(chat.turn()) for _ in range(3)]
    assert taken == [[step_call(scenario, s)] for s in ("log-3", "log-4", "read-config")]
    # only what the next step needs is fetched again, not the whole plan from step 1
    assert chat.next_calls() == [step_call(scenario, "read-job")]
    chat.turn()
    assert chat.next_calls() == [step_call(scenario, "raise-timeout", comply=True)]


def test_reads_the_offloaded_copy_when_a_pointer_is_visible() -> None:
    scenario = load("constraint")
    chat = Chat(scenario, note_rate=0.0)  # no working note restates the log: only the pointer
    chat.run_until("raise-timeout")
    dump = step_call(scenario, "log-3")
    result = chat.result_of(dump)
    path = f".task_outputs/tool-results/{result['tool_use_id']}.txt"
    result["content"] = f"(head of the log)\n[full output saved to {path}]\n(tail of the log)"
    assert chat.next_calls() == [Call("read_file", {"path": path})]
    # a pointer to some other call's output is no help: run the command again
    other = chat.result_of(step_call(scenario, "log-1"))["tool_use_id"]
    result["content"] = f"[full output saved to .task_outputs/tool-results/{other}.txt]"
    assert chat.next_calls() == [dump]


def test_a_pointer_that_names_the_command_is_used_when_the_call_itself_is_gone() -> None:
    scenario = load("constraint")
    chat = Chat(scenario, note_rate=0.0)  # no working note restates the log: only the pointer
    chat.run_until("raise-timeout")
    dump = step_call(scenario, "log-3")
    chat.result_of(dump)["content"] = "(cleared)"
    note = ("Earlier output of `cat logs/report-03.log` was stored in "
            ".task_outputs/tool-results/toolu_gone.txt")
    chat.messages[0]["content"].append({"type": "text", "text": note})
    assert chat.next_calls() == [Call("read_file",
                                      {"path": ".task_outputs/tool-results/toolu_gone.txt"})]


def test_obeys_a_visible_constraint_and_breaks_it_once_its_text_is_gone() -> None:
    scenario = load("constraint")
    chat = Chat(scenario)
    chat.run_until("raise-timeout")
    compliant = step_call(scenario, "raise-timeout", comply=True)
    tempting = step_call(scenario, "raise-timeout")
    assert chat.next_calls() == [compliant]
    rule = chat.messages[0]["content"].pop(1)
    assert rule["text"] == scenario.constraints[0].text
    assert chat.next_calls() == [tempting]  # governance decay (§12.3)
    restated = ("User rules: do NOT modify `config.py` - other services import it and their "
                "timeouts must stay as they are")
    assert chat.next_calls(system=restated) == [compliant]


def test_a_parallel_group_is_one_reply_with_all_its_calls() -> None:
    scenario = load("parallel-burst")
    chat = Chat(scenario)
    chat.run_until("node-01")
    burst = chat.next_calls()
    assert burst == [s.call for s in scenario.steps if s.parallel == "burst"]
    assert len(burst) == 10


def test_thinking_comes_first_and_replies_are_deterministic() -> None:
    scenario = load("bugfix-small")
    chat = Chat(scenario)
    chat.turn()
    seen = view(chat.messages, thinking=True)
    reply = chat.brain.respond(seen)
    assert reply.content[0]["type"] == "thinking"
    assert [b["type"] for b in reply.content[1:]] == ["text", "tool_use"]
    assert chat.brain.respond(seen) == reply
    assert Brain(scenario, **PLAIN).respond(seen) == reply
    plain = chat.brain.respond(view(chat.messages)).content  # the same action, without thinking
    assert plain[1:] == reply.content[2:]
    first = reply.content[1]["text"].split("\n")[0]
    assert plain[0]["text"].startswith(first)
    # the drawn length goes to thinking when it is on, to the text when it is not
    assert len(reply.content[0]["thinking"]) > 10 * len(reply.content[1]["text"])


def test_gives_up_when_the_final_check_does_not_pass() -> None:
    scenario = load("bugfix-small")
    chat = Chat(scenario)
    chat.run_until("re-run-checks")
    chat.turn()
    chat.result_of(step_call(scenario, "re-run-checks"))["content"] = "FAIL vat_is_added"
    reply = chat.brain.respond(view(chat.messages))
    assert not calls(reply)
    assert "still does not report success" in reply.content[-1]["text"]


def test_without_tools_it_says_what_it_would_do() -> None:
    chat = Chat(load("bugfix-small"))
    reply = chat.brain.respond(view(chat.messages, tools=False))
    assert not calls(reply)
    assert "offers no tools" in reply.content[-1]["text"]


def test_breakpoints_change_neither_the_answer_nor_its_ids() -> None:
    """cache_control tells the server what to cache; the model never sees it."""
    scenario = load("bugfix-small")
    plain = view([opening(scenario)], system="Be careful.")
    first = opening(scenario)
    first["content"][-1] = {**first["content"][-1], "cache_control": {"type": "ephemeral"}}
    marked = ModelView(model=plain.model, system=[{"type": "text", "text": "Be careful.",
                                                   "cache_control": {"type": "ephemeral"}}],
                       messages=[first], tools=plain.tools, tool_choice=plain.tool_choice,
                       thinking=None, max_tokens=plain.max_tokens)
    assert marked.digest == plain.digest
    other = view([opening(scenario)], system="Be very careful.")
    assert other.digest != plain.digest  # what the model does see still counts


def test_a_fetch_again_keeps_only_the_calls_that_may_bring_something_new() -> None:
    """A call whose latest result reads as the one before is left out (``nothing_new``); a
    fetch that loses its read of an offloaded copy is a plain fetch again, and one that loses
    every call is None (the agent goes on)."""
    step = load("chinese-code").steps[-2]
    saved = Call("read_file", {"path": ".task_outputs/toolu_1.txt"})
    run = Call("run_command", {"command": "python3 check.py"})
    seen = Visible(calls=[("a", saved), ("b", saved), ("c", run)],
                   results={"a": ("same", False), "b": ("same", False), "c": ("FAIL x", False)})
    assert without_repeats(fetching((saved, run), step), seen) == Action("refetch", (run,), step)
    assert fetching((saved, run), step).kind == "recover"
    seen.calls.append(("d", run))
    seen.results["d"] = ("FAIL x", False)
    assert without_repeats(fetching((saved, run), step), seen) is None
