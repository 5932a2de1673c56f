"""Summaries written by the simulated agent: templates, free-form prose, §9.6 tool calls."""

from __future__ import annotations

import re

import pytest
from test_brain_plan import Chat, calls, step_call, view

from ctxlab.brain import Brain
from ctxlab.brain.request import asks_for_summary
from ctxlab.scenarios import Call, load, names, opening

CLAUDE_CODE_LIKE = """Your task is to create a detailed summary of the conversation so far.
Before the summary, think it through inside <analysis> tags, then write it inside <summary> tags
with these sections:
1. Primary Request and Intent: what the user asked for
2. Key Technical Concepts: facts established so far
3. Files and Code Sections: every file looked at or changed, with its path
4. Errors and fixes: what went wrong and how it was fixed
5. Problem Solving: how the work went
6. All user messages: every message from the user that is not a tool result
7. Pending Tasks: what is left
8. Current Work: what was being done right before this request
9. Optional Next Step: the next action"""

GUIDE_SIX_ZH = """请总结这段对话，按下面的格式：
1. 用户的原始目标
2. 改过哪些文件（要具体路径）
3. 踩过哪些坑 / 修过哪些错
4. 所有用户消息（全列，不做判断）
5. 待完成的事
6. 当前正在做什么"""

PLAIN_HEADINGS = """Please compact our conversation history into these headings.
## Goal
## Files touched
## Errors
## What the user said
## Still to do
## Next step"""

FREE = "Summarize the conversation so far."

FOLLOW_UP = "Also, please keep the log format as it is."


def chat_at_tempting_step() -> Chat:
    """The constraint scenario right before its tempting step, with a user follow-up."""
    chat = Chat(load("constraint"))
    chat.run_until("log-4")
    chat.messages[-1]["content"].append({"type": "text", "text": FOLLOW_UP})
    chat.run_until("raise-timeout")
    return chat


def ask(chat: Chat, request: str, **brain: object) -> str:
    """Append ``request`` to the history and return the text the brain answers with."""
    messages = [*chat.messages[:-1], {"role": "user", "content": [
        *chat.messages[-1]["content"], {"type": "text", "text": request}]}]
    reply = Brain(chat.scenario, **brain).respond(view(messages))
    assert not calls(reply)
    return reply.content[-1]["text"]


def sections(summary: str) -> list[str]:
    return re.findall(r"^\d+\. ([^:\n]+):", summary, re.M)


@pytest.mark.parametrize(("template", "titles"), [
    (CLAUDE_CODE_LIKE, ["Primary Request and Intent", "Key Technical Concepts",
                        "Files and Code Sections", "Errors and fixes", "Problem Solving",
                        "All user messages", "Pending Tasks", "Current Work",
                        "Optional Next Step"]),
    (GUIDE_SIX_ZH, ["用户的原始目标", "改过哪些文件", "踩过哪些坑 / 修过哪些错", "所有用户消息",
                    "待完成的事", "当前正在做什么"]),
    (PLAIN_HEADINGS, ["Goal", "Files touched", "Errors", "What the user said", "Still to do",
                      "Next step"]),
])
def test_a_template_gets_every_section_filled(template: str, titles: list[str]) -> None:
    chat = chat_at_tempting_step()
    scenario = chat.scenario
    summary = ask(chat, template)
    assert sections(summary) == titles
    for part in re.split(r"^\d+\. .+:$", summary, flags=re.M)[1:]:
        assert part.strip() and part.strip() != "</summary>"
    for user_text in (scenario.task, scenario.constraints[0].text, FOLLOW_UP):
        assert f"<user-message>\n{user_text}\n</user-message>" in summary
    assert template not in summary  # the request itself is not a user message to keep
    for marker in ("uses-shared", "slow-api", "shared-value"):
        assert scenario.marker(marker) in summary
    assert "report_job.py" in summary and "config.py" in summary
    assert "give the report job a timeout long enough" in summary  # pending / next


def test_analysis_and_summary_tags_appear_when_asked() -> None:
    summary = ask(chat_at_tempting_step(), CLAUDE_CODE_LIKE)
    assert summary.startswith("<analysis>\n")
    assert re.search(r"</analysis>\s*<summary>\n1\. ", summary)
    assert summary.endswith("</summary>")
    assert "<analysis>" not in ask(chat_at_tempting_step(), GUIDE_SIX_ZH)


def test_free_form_keeps_goal_and_last_action_but_loses_paths_facts_and_rules() -> None:
    chat = chat_at_tempting_step()
    scenario = chat.scenario
    summary = ask(chat, FREE)
    assert scenario.gist in summary
    assert "reading one of the project files" in summary  # the last action: read config.py
    for step in scenario.steps:
        for call in step.calls:
            assert call.input.get("path", "\0") not in summary
    for marker in scenario.facts.values():
        assert marker not in summary
    assert "config" not in summary.casefold() and "modify" not in summary.casefold()
    assert len(summary) < 600


def test_after_a_structured_summary_the_work_goes_on_without_rereading_or_breaking_rules() -> None:
    chat = chat_at_tempting_step()
    summary = ask(chat, GUIDE_SIX_ZH)
    chat.messages = [{"role": "user", "content": [{"type": "text", "text": summary}]}]
    # no fact is fetched again; only the file to edit is read, as its content is not in view
    assert chat.next_calls() == [Call("read_file", {"path": "report_job.py"})]
    chat.turn()
    assert chat.next_calls() == [step_call(chat.scenario, "raise-timeout", comply=True)]


def test_after_a_free_form_summary_lost_facts_are_fetched_again_and_the_rule_is_broken() -> None:
    chat = chat_at_tempting_step()
    scenario = chat.scenario
    summary = ask(chat, FREE)
    recent = chat.messages[-2:]  # keep the last round, as a naive "summary + recent" does
    chat.messages = [{"role": "user", "content": [{"type": "text", "text": summary}]}, *recent]
    refetched = chat.next_calls()
    assert refetched == [step_call(scenario, "log-3"), step_call(scenario, "read-job")]
    chat.turn()
    assert chat.next_calls() == [step_call(scenario, "raise-timeout")]  # edits config.py


def test_a_later_summary_carries_the_quoted_user_messages_over() -> None:
    chat = chat_at_tempting_step()
    first = ask(chat, GUIDE_SIX_ZH)
    wrapped = "This session continues an earlier one. Summary of it:\n" + first
    chat.messages = [{"role": "user", "content": [{"type": "text", "text": wrapped}]}]
    chat.turn()
    second = ask(chat, PLAIN_HEADINGS)
    quoted = re.findall(r"<user-message>\n(.*?)\n</user-message>", second, re.S)
    assert quoted == [chat.scenario.task, chat.scenario.constraints[0].text, FOLLOW_UP]
    assert "continues an earlier one" not in second


def test_server_side_compaction_gets_a_structured_summary() -> None:
    chat = chat_at_tempting_step()
    text = chat.brain.summarize(view(chat.messages), None)
    assert sections(text)[:2] == ["Goal", "Files and what they showed"]
    assert f"<user-message>\n{chat.scenario.constraints[0].text}\n</user-message>" in text
    compacted = [{"role": "user", "content": [{"type": "compaction", "content": text}]}]
    assert chat.brain.respond(view(compacted)).content[-1]["input"]["path"] == "report_job.py"


@pytest.mark.parametrize(("probability", "options", "low", "high"), [
    (0.3, {}, 0.24, 0.36),
    (0.0, {}, 0.0, 0.0),
    (1.0, {"tool_choice": "none"}, 0.0, 0.0),
    (1.0, {"tools": False}, 0.0, 0.0),
])
def test_tool_calls_instead_of_a_summary_follow_the_configured_rate(
        probability: float, options: dict[str, object], low: float, high: float) -> None:
    chat = chat_at_tempting_step()
    messages = [*chat.messages, {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
                {"role": "user", "content": [{"type": "text", "text": GUIDE_SIX_ZH}]}]
    request = view(messages, **options)
    called = sum(bool(calls(Brain(chat.scenario, seed=seed,
                                  tool_instead_of_summary=probability).respond(request)))
                 for seed in range(400))
    assert low <= called / 400 <= high


@pytest.mark.parametrize("text", [
    FREE, CLAUDE_CODE_LIKE, GUIDE_SIX_ZH, PLAIN_HEADINGS, "请总结以上对话。",
    "Compact the context: write a recap of the session.",
    "Condense this chat history into a brief for the next agent.",
])
def test_summary_requests_are_recognised_in_many_wordings(text: str) -> None:
    assert asks_for_summary(text)


def test_no_scenario_message_looks_like_a_summary_request() -> None:
    for name in names():
        scenario = load(name)
        texts = [b["text"] for b in opening(scenario)["content"] if b["type"] == "text"]
        texts += [m.text for m in scenario.messages] + [c.text for c in scenario.constraints]
        assert not [t for t in texts if asks_for_summary(t)], name
