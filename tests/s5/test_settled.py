"""The band's look remembered (``ctxlab.settled``): microcompact skipping the results it left
as they were gives the plain function's answer, turn after turn, and looks at fewer results.
Checked against ``microcompact`` on the whole history, and by counting the results each
looks at (each one's tool is looked up once), never by time."""

from __future__ import annotations

import random
from typing import Any

from s5_pipeline.microcompact import located_results, microcompact, old_results

from ctxlab.settled import Settled

Messages = list[dict[str, Any]]


class _Tools(dict):
    """A tool-name table that counts the results looked up in it."""

    looked = 0

    def get(self, key: Any, default: Any = None) -> Any:
        self.looked += 1
        return super().get(key, default)


def _round(n: int, rng: random.Random) -> Messages:
    """A call and its result: short (shorter than any placeholder: it stays), of a few
    lines (cleared or not, as the lines its placeholder keeps for ``terms`` are many or
    few) or long."""
    size = rng.choice([1, 1, 5, 30])
    return [{"role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{n}", "name": rng.choice(
                    ["read_file", "run_command", "edit_file", "mcp_tool"]),
                 "input": {"n": n}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n}",
                 "content": "".join(f"line {i} of {n}{' owner' * (i == 0)}{' part' * (i % 2)}\n"
                                    for i in range(size))}]}]


def _saved_at(ident: str) -> str:
    return f".task_outputs/tool-results/{ident}.txt"


def test_the_remembered_look_is_the_plain_one_and_looks_at_less() -> None:
    """Seeded turns as a session has them — a new round, a batch freezing what the look
    decided, a change of the task's words, a note on a result, an exempt result, a history
    cut short — and each time the remembered look's answer is the plain one's."""
    rng = random.Random(3)
    history: Messages = [{"role": "user", "content": "the task"}]
    names: dict[str, str] = {}
    cleared: list[str] = []
    notes: dict[str, str] = {}
    terms = frozenset({"owner"})
    settled = Settled(microcompact, old_results)
    plain_looked = remembered_looked = 0
    for step in range(200):
        edit = rng.randrange(20)  # mostly new rounds, now and then something else
        if edit <= 13:
            rounds = _round(len(history), rng)
            names[rounds[0]["content"][0]["id"]] = rounds[0]["content"][0]["name"]
            history = history + rounds
        elif edit in (14, 15):  # a batch: what the look decided, frozen
            after, decided = microcompact(history, names, 2, cleared=cleared, terms=terms,
                                          saved_at=_saved_at)
            history, cleared = after, cleared + list(decided)
        elif edit == 16:
            terms = frozenset(rng.sample(["owner", "part", "line", "absent"], k=2))
        elif edit == 17 and names:
            notes = {**notes, rng.choice(sorted(names)): rng.choice(
                ["", "\n\n<file>changed on disk since</file>" * 2])}  # one, or none
        elif edit == 18 and len(history) > 5:
            history = history[:rng.randrange(3, len(history))]
        elif edit == 19 and len(history) > 5:  # a result's text rewritten (another layer)
            i = rng.randrange(2, len(history), 2)
            block = history[i]["content"][0]
            history = history[:i] + [dict(history[i], content=[
                dict(block, content=f"rewritten {step}\n" * 20)])] + history[i + 1:]
        exempt = [f"toolu_{rng.randrange(1, len(history) + 1)}"] if step % 5 == 0 else []
        args = {"terms": terms, "cleared": cleared, "exempt": exempt, "after": notes,
                "located": located_results(history), "saved_at": _saved_at}
        plain_tools, remembered_tools = _Tools(names), _Tools(names)
        expected = microcompact(history, plain_tools, 2, **args)
        assert settled(history, remembered_tools, 2, **args) == expected, step
        plain_looked += plain_tools.looked
        remembered_looked += remembered_tools.looked
    assert remembered_looked < plain_looked / 2


def test_a_result_left_for_its_note_is_looked_at_again_when_the_note_goes() -> None:
    """A result left as it was because its note made the placeholder longer is looked at
    again once the notes change, and cleared as the plain look clears it."""
    rng = random.Random(0)
    history: Messages = [{"role": "user", "content": "the task"}]
    while len(history) < 7:
        history += _round(len(history), rng)
    history[2]["content"][0]["content"] = "short enough to stay under a long note\n" * 3
    names = {f"toolu_{n}": "read_file" for n in (1, 3, 5)}
    settled = Settled(microcompact, old_results)
    for notes in ({"toolu_1": "\n\n<file>changed</file>" * 4}, {}):
        args = {"keep": 1, "terms": frozenset(), "saved_at": _saved_at, "after": notes,
                "located": located_results(history)}
        expected = microcompact(history, names, **args)
        assert settled(history, names, **args) == expected
    assert "toolu_1" in expected[1]  # without the note it is cleared
