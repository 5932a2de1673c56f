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
    """A round of one call and its result, or now and then two (one message holding both
    results): each short (shorter than any placeholder: it stays), of a few lines (cleared or
    not, as the lines its placeholder keeps for ``terms`` are many or few) or long."""
    calls = [f"toolu_{n}"] + ([f"toolu_{n}b"] if rng.random() < 0.3 else [])
    uses, results = [], []
    for ident in calls:
        size = rng.choice([1, 1, 5, 30])
        uses.append({"type": "tool_use", "id": ident, "name": rng.choice(
            ["read_file", "run_command", "edit_file", "mcp_tool"]), "input": {"n": ident}})
        results.append({"type": "tool_result", "tool_use_id": ident, "content": "".join(
            f"line {i} of {n}{' owner' * (i == 0)}{' part' * (i % 2)}\n" for i in range(size))})
    return [{"role": "assistant", "content": uses}, {"role": "user", "content": results}]


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
            names.update((use["id"], use["name"]) for use in rounds[0]["content"])
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
                dict(block, content=f"rewritten {step}\n" * 20), *history[i]["content"][1:]])
                ] + history[i + 1:]
        exempt = [rng.choice(sorted(names))] if step % 5 == 0 and names else []
        keep = rng.choice([2, 2, 2, 1, 3])  # a fetch again keeps one more
        args = {"terms": terms, "cleared": cleared, "exempt": exempt, "after": notes,
                "located": located_results(history), "saved_at": _saved_at}
        plain_tools, remembered_tools = _Tools(names), _Tools(names)
        expected = microcompact(history, plain_tools, keep, **args)
        answer = settled(history, remembered_tools, keep, **args)
        assert answer == expected, step
        assert list(answer[1].items()) == list(expected[1].items()), step  # in its order
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


def test_the_results_it_would_clear_are_not_looked_at_again_while_they_wait() -> None:
    """Results the look would clear, waiting for a batch that repays, are taken from last
    turn (their new texts and their message's copy): a turn with one new round looks only at
    the result that became old, and its answer is the plain one, the waiting copies reused."""
    history: Messages = [{"role": "user", "content": "the task"}]
    names: dict[str, str] = {}
    for n in range(6):
        history += [{"role": "assistant", "content": [
                        {"type": "tool_use", "id": f"toolu_{n}", "name": "run_command",
                         "input": {"n": n}}]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": f"toolu_{n}",
                         "content": f"output {n}\n" * 40}]}]
        names[f"toolu_{n}"] = "run_command"
    settled = Settled(microcompact, old_results)
    first = settled(history[:-2], _Tools(names), 1, located=located_results(history[:-2]))
    tools = _Tools(names)
    out, decisions = settled(history, tools, 1, located=located_results(history))
    assert (out, decisions) == microcompact(history, names, 1)
    assert list(decisions) == [f"toolu_{n}" for n in range(5)]
    assert tools.looked == 1  # toolu_4, old since this turn
    assert all(out[i] is first[0][i] for i in range(2, 9, 2))  # last turn's copies


def test_a_look_with_its_own_rule_gets_its_own_answer() -> None:
    """A learner's microcompact may clear results ``old_results`` does not name (here: the
    newest too, ``keep`` ignored): the memory then hands back that function's plain answer,
    turn after turn, instead of failing or merging what it cannot vouch for."""
    def clear_all(messages: Messages, tool_names: Any, keep: int, **kwargs: Any,
                  ) -> tuple[Messages, dict[str, str]]:
        return microcompact(messages, tool_names, 0, **kwargs)

    rng = random.Random(1)
    history: Messages = [{"role": "user", "content": "the task"}]
    names: dict[str, str] = {}
    settled = Settled(clear_all, old_results)
    for _ in range(12):
        rounds = _round(len(history), rng)
        names.update((use["id"], use["name"]) for use in rounds[0]["content"])
        history = history + rounds + [{"role": "assistant", "content": "noted"},
                                      {"role": "user", "content": "go on"}]
        args = {"located": located_results(history), "saved_at": _saved_at}
        assert settled(history, names, 2, **args) == clear_all(history, names, 2, **args)
