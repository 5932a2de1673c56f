"""Exercises 5.2 and 5.3 — snip and microcompact (excerpt ch8.2, guide §7.5)."""

from __future__ import annotations

import pytest
from s2_truncate import first_violation
from s5_pipeline import microcompact, placeholder, snip
from s5_pipeline.microcompact import matching_lines, task_terms


def _history(rounds: int) -> list[dict]:
    messages = [{"role": "user", "content": [{"type": "text", "text": "the task"}]}]
    for n in range(rounds):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{n}", "name": "read_file", "input": {"path": f"{n}"}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{n}", "content": f"body {n} " * 50}]})
    return messages


@pytest.mark.exercise("5.2")
@pytest.mark.checklist("B.13")
def test_snip_keeps_head_and_tail_at_round_boundaries() -> None:
    messages = _history(40)  # 81 messages
    kept, dropped = snip(messages, 3, 47)
    assert dropped == len(messages) - len(kept)
    assert kept[0] == messages[0] and kept[-47:] == messages[-47:]
    assert first_violation(kept) is None
    assert "earlier messages were snipped" in kept[2]["content"][-1]["text"]
    assert messages[2]["content"][-1]["type"] == "tool_result"  # input not modified


@pytest.mark.exercise("5.2")
def test_snip_does_nothing_when_head_and_tail_meet() -> None:
    messages = _history(20)  # 41 messages: 3 + 47 > 41
    assert snip(messages, 3, 47) == (messages, 0)


@pytest.mark.exercise("5.3")
@pytest.mark.parametrize("tool, expected", [
    ("read_file", "run the tool again"),
    ("run_command", "run the tool again"),
    ("edit_file", "rest of this result cleared"),
    ("search_docs", "'search_docs' tool cleared"),
])
def test_three_tiers(tool: str, expected: str) -> None:
    text = "x" * 1_000
    cleared = placeholder(tool, text)
    assert expected in cleared and len(cleared) < len(text)
    if tool == "edit_file":
        assert cleared.startswith("x" * 200)
    if tool == "search_docs":
        assert "1,000 characters" in cleared


@pytest.mark.exercise("5.3")
def test_an_offloaded_result_keeps_its_pointer() -> None:
    preview = "head\n[... the full output is saved in .task_outputs/tool-results/t1.txt ...]\ntail"
    assert ".task_outputs/tool-results/t1.txt" in placeholder("run_command", preview * 20)


@pytest.mark.exercise("5.3")
def test_microcompact_keeps_the_last_three_and_is_idempotent() -> None:
    messages = _history(6)
    names = {f"t{n}": "read_file" for n in range(6)}
    cleared, decisions = microcompact(messages, names, keep=3)
    assert sorted(decisions) == ["t0", "t1", "t2"]
    assert [m["content"][0]["content"] for m in cleared[-5::2]] == \
        [m["content"][0]["content"] for m in messages[-5::2]]
    again, more = microcompact(cleared, names, keep=3)
    assert again == cleared and more == {}


@pytest.mark.exercise("5.3")
def test_a_result_the_agent_has_not_seen_is_never_cleared() -> None:
    """The newest results of a reply go out before any reply to them: they stay whole, even
    with ``keep=0``, and are cleared once a reply follows them."""
    messages = _history(4)
    names = {f"t{n}": "read_file" for n in range(4)}
    _, decisions = microcompact(messages, names, keep=0)
    assert sorted(decisions) == ["t0", "t1", "t2"]  # t3 has no reply after it yet
    replied = [*messages, {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]
    _, decisions = microcompact(replied, names, keep=0)
    assert sorted(decisions) == ["t0", "t1", "t2", "t3"]


@pytest.mark.exercise("5.3")
def test_a_cleared_result_names_its_file_and_keeps_the_lines_the_task_asks_about() -> None:
    """§7.4: the way back to the whole result, and the lines naming the task's terms."""
    log = "".join(f"12:00 INFO request {n} took 40ms\n" for n in range(300))
    log += "12:01 INFO orders baseline p99 = 212ms\n" + log
    text = placeholder("read_file", log, ".task_outputs/tool-results/t1.txt",
                       matching_lines(log, task_terms("Find each service's baseline p99.")))
    assert text.splitlines() == [
        "[older tool result cleared; saved in "
        ".task_outputs/tool-results/t1.txt]", "12:01 INFO orders baseline p99 = 212ms"]
    names = {f"t{n}": "read_file" for n in range(5)}
    _, decisions = microcompact(_history(5), names, saved_at=lambda i: f"x/{i}.txt")
    assert decisions["t0"].startswith("[older tool result cleared; saved "
                                      "in x/t0.txt]")


def test_a_chinese_task_keeps_the_lines_of_a_chinese_result_it_asks_about() -> None:
    """§7.4 in Chinese: no spaces between words, so the task's terms are its pairs of
    neighbouring characters; the manual's line on the restock cycle names two of them."""
    terms = task_terms("仓库的补货提醒来得太晚，请对照运营手册修好 inventory.py。")
    assert {"补货", "仓库", "手册", "inventory"} <= terms
    manual = "".join(f"第 {n} 节：门店陈列与收银流程说明。\n" for n in range(40))
    manual += "补货周期：所有仓库统一按 7 天计算。\n" + manual
    assert matching_lines(manual, terms) == ["补货周期：所有仓库统一按 7 天计算。"]


@pytest.mark.parametrize("task, line", [
    ("Пересчитайте страховой запас по правилам склада.", "Страховой запас: 1,5 × спрос."),
    ("Größe der Pufferzone prüfen", "die größe beträgt 12 MB"),
    ("在庫の安全係数を確認してください", "安全係数は 1.5 とする。"),
])
def test_a_task_in_any_script_keeps_the_lines_it_asks_about(task: str, line: str) -> None:
    """§7.4 beyond English: words in any script that spaces them (case-folded), and pairs of
    characters in Japanese, as in Chinese."""
    text = "".join(f"{n}: -- {n * 7} --\n" for n in range(30)) + line + "\n"
    assert matching_lines(text, task_terms(task)) == [line]


@pytest.mark.exercise("5.3")
def test_a_result_cleared_before_is_never_cleared_again() -> None:
    """§6.9: a placeholder is frozen. Cleared a second time, a placeholder that kept lines the
    task asks about would be judged on its own text and lose them, changing bytes the cache
    holds; the ids cleared before (``cleared``) are left as they read."""
    def rows(n: int) -> str:
        return "".join(f"row {i} carries filler words\n" for i in range(20)) + \
            f"discount rule {n} applies once\n" * 2
    messages = _history(6)
    for n, message in enumerate(messages[2::2]):
        message["content"][0]["content"] = rows(n)
    names = {f"t{n}": "read_file" for n in range(6)}
    terms = task_terms("Check the discount rule.")
    first, decisions = microcompact(messages, names, terms=terms, saved_at=lambda i: f"x/{i}")
    assert sorted(decisions) == ["t0", "t1", "t2"] and "discount rule 0" in decisions["t0"]
    later = [*first, *_history(8)[13:]]  # two more rounds: t3 and t4 fall out of the last three
    names.update(t6="read_file", t7="read_file")
    _, again = microcompact(later, names, terms=terms, saved_at=lambda i: f"x/{i}")
    assert "t0" in again  # judged on its placeholder, it would change
    _, frozen = microcompact(later, names, terms=terms, saved_at=lambda i: f"x/{i}",
                             cleared=decisions)
    assert sorted(frozen) == ["t3", "t4"]


def test_ascii_text_has_the_words_the_general_path_finds() -> None:
    """``task_terms`` reads ASCII text with ASCII patterns: a non-ASCII space at the end
    (no word, no CJK) sends the same text down the general path, which must agree."""
    import random

    rng = random.Random(7)
    alphabet = "abcdXYZ_09 .,/-\n\t"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        assert task_terms(text) == task_terms(text + "\u00a0"), text


def test_a_pointer_is_found_where_the_unanchored_pattern_finds_it() -> None:
    """``POINTER`` starts a match only where a run of non-spaces starts: the leftmost match of
    the pattern without that condition always starts there too, and ends at the same place;
    ``pointer_in``, which searches from the run where the folder's name first appears, finds
    the same pointer."""
    import random
    import re

    from s5_pipeline.microcompact import POINTER, pointer_in

    unanchored = re.compile(POINTER.pattern.removeprefix(r"(?<!\S)"))
    rng = random.Random(3)
    parts = ["x", " ", "\n", "\u00a0", "a/", ".task_outputs/tool-results/", "t_1", ".txt", "-",
             "q.txt", ".task_outputs/"]
    for _ in range(2000):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(0, 12)))
        found, expected = POINTER.search(text), unanchored.search(text)
        assert (found and found.span()) == (expected and expected.span()), text
        assert pointer_in(text) == (expected and expected.group(0)), text


def test_a_message_nothing_is_cleared_in_is_passed_on_as_it_is() -> None:
    """Only messages that change are copied: an old result shorter than its placeholder stays
    as it is, and so does its message object (a copy would count as a change downstream)."""
    history = _history(6)
    history[2] = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t0", "content": "ok"}]}
    out, decisions = microcompact(history, {f"t{n}": "read_file" for n in range(6)}, keep=1)
    assert "t0" not in decisions and out[2] is history[2]
    assert "t1" in decisions and out[4] is not history[4]
