"""The simulated agent answers probe questions from what is visible, and only that (§12.5)."""

from __future__ import annotations

import copy

from test_brain_plan import Chat, calls, step_call, view

from ctxlab.brain import Brain
from ctxlab.brain.probe import NOT_IN_VIEW, questions
from ctxlab.scenarios import load

ASK = ("Pause the task and answer these questions from what you can see in this conversation. "
       "Answer every question on its own numbered line.\n")


def ask(chat: Chat, *items: str, messages: list | None = None, tools: bool = True) -> list[str]:
    history = copy.deepcopy(messages if messages is not None else chat.messages)
    text = ASK + "\n".join(f"{i}. {q}" for i, q in enumerate(items, 1))
    if history[-1]["role"] == "user":
        history[-1]["content"].append({"type": "text", "text": text})
    else:
        history.append({"role": "user", "content": [{"type": "text", "text": text}]})
    reply = Brain(chat.scenario).respond(view(history, tools=tools))
    assert not calls(reply), "a probe is answered in text, never with a tool call"
    lines = reply.content[-1]["text"].splitlines()
    assert [line.split(".", 1)[0] for line in lines] == [str(i) for i in range(1, len(items) + 1)]
    return [line.split(". ", 1)[1] for line in lines]


def at(step_id: str) -> Chat:
    chat = Chat(load("constraint"))
    chat.run_until(step_id)
    return chat


def test_a_numbered_request_is_a_probe_and_a_summary_request_is_not() -> None:
    chat = at("log-1")
    probe = view([*chat.messages[:-1], {"role": "user", "content": [
        *chat.messages[-1]["content"], {"type": "text", "text": ASK + "1. Why?\n2. What?"}]}])
    assert questions(probe) == ["Why?", "What?"]
    summary = view([*chat.messages[:-1], {"role": "user", "content": [
        *chat.messages[-1]["content"],
        {"type": "text", "text": "Summarize the conversation so far."}]}])
    assert questions(summary) is None


def test_facts_are_recalled_while_their_result_is_visible_and_not_after() -> None:
    chat = at("log-4")
    scenario = chat.scenario
    question = f"What did `{step_call(scenario, 'log-3').signature}` show?"
    assert scenario.marker("slow-api") in ask(chat, question)[0]
    chat.result_of(step_call(scenario, "log-3"))["content"] = "[cleared]"
    assert ask(chat, question) == [NOT_IN_VIEW]


def test_the_question_itself_is_no_evidence() -> None:
    chat = at("read-job")  # only the checks have run
    scenario = chat.scenario
    later = step_call(scenario, "read-config").signature  # a later step's mark
    answers = ask(chat, f"What did `{later}` show?",
                  "Which step was completed last, and what is the next step?")
    assert answers[0] == NOT_IN_VIEW
    assert answers[1] == "Last completed: run the checks to see what fails. Next: read the " \
                         "report job."


def test_forbidden_actions_are_the_visible_constraints() -> None:
    chat = at("log-1")
    rule = chat.scenario.constraints[0].text
    assert ask(chat, "Which actions did the user explicitly forbid?") == [rule]
    chat.messages[0]["content"] = chat.messages[0]["content"][:1]  # the rule scrolls away
    assert ask(chat, "Which actions did the user explicitly forbid?") == ["None that I can see."]


def test_a_decision_is_traced_to_its_facts_and_to_the_rule_it_obeyed() -> None:
    chat = at("re-run-checks")  # the compliant edit was made while the rule was visible
    scenario = chat.scenario
    edit = step_call(scenario, "raise-timeout", comply=True)
    answer = ask(chat, f"Why did you `{edit.signature}`? Name what it was based on.")[0]
    for fact in ("slow-api", "uses-shared", "shared-value"):
        assert scenario.marker(fact) in answer
    assert scenario.constraints[0].text in answer
    chat.messages[0]["content"] = chat.messages[0]["content"][:1]
    without_rule = ask(chat, f"Why did you `{edit.signature}`?")[0]
    assert scenario.constraints[0].text not in without_rule
    assert scenario.marker("slow-api") in without_rule


def test_answers_depend_only_on_the_view() -> None:
    chat = at("log-4")
    items = ("Which step was completed last, and what is the next step?",
             "What is the weather like?")
    first, second = ask(chat, *items), ask(chat, *items, tools=False)
    assert first == second
    assert first[0] == "Last completed: look through report log 3. Next: look through " \
                       "report log 4."
    assert first[1] == "I cannot answer that from what I see."


def test_without_a_probe_the_agent_carries_on() -> None:
    chat = at("log-4")
    assert chat.next_calls() == [step_call(chat.scenario, "log-4")]
