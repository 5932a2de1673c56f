"""Scenario files: the shipped ones load, bad ones are rejected with a message naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab import models
from ctxlab.scenarios import FIXTURES, FollowUps, ScenarioError, load, names, opening

SHIPPED = ["bugfix-small", "ch8-worked-example", "chat-heavy", "chinese-code", "constraint",
           "images", "long-task", "medium-results", "parallel-burst"]

GOOD = '''
name = "bad"
description = "A scenario for loader tests."
model = "claude-haiku-4-5"
task = "Fix the greeting in app.py."
gist = "fix the greeting"
goal = ["ok"]

[workspace]
source = "ws"

[facts]
greeting = "GREETING = 'helo'"
ok = "CHECK OK"

[[steps]]
id = "read"
tool = "read_file"
input = { path = "app.py" }
yields = ["greeting"]

[[steps]]
id = "fix"
tool = "edit_file"
input = { path = "app.py", old = "'helo'", new = "'hello'" }
needs = ["greeting"]

[[steps]]
id = "check"
tool = "run_command"
input = { command = "python3 check.py" }
yields = ["ok"]

[success]
command = "python3 check.py"
'''


def write(tmp_path: Path, text: str) -> Path:
    workspaces = tmp_path / "workspaces"
    (workspaces / "ws").mkdir(parents=True, exist_ok=True)
    (workspaces / "ws" / "app.py").write_text("GREETING = 'helo'\n")
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


def load_text(tmp_path: Path, text: str):
    return load(write(tmp_path, text), workspaces=tmp_path / "workspaces")


def test_every_shipped_scenario_loads_and_names_a_known_model() -> None:
    assert set(SHIPPED) <= set(names())
    for name in names():
        scenario = load(name)
        assert scenario.name == name
        assert models.lookup(scenario.model) is not None
        assert scenario.steps and scenario.goal


def test_a_good_file_loads(tmp_path: Path) -> None:
    scenario = load_text(tmp_path, GOOD)
    assert [s.id for s in scenario.steps] == ["read", "fix", "check"]
    assert scenario.steps[1].marks == ("'hello'",)
    assert scenario.marker("ok") == "CHECK OK"


@pytest.mark.parametrize(("old", "new", "message"), [
    ('tool = "read_file"', 'tool = "read"',
     "bad.toml: steps[0].tool: unknown tool 'read'; known tools: read_file, run_command"),
    ('input = { path = "app.py" }', 'input = { file = "app.py" }',
     "bad.toml: steps[0].input.path: missing"),
    ('input = { path = "app.py" }', 'input = { path = "app.py", mode = "r" }',
     "bad.toml: steps[0].input.mode: unknown field"),
    ('yields = ["greeting"]', 'yields = ["greting"]',
     "bad.toml: steps[0].yields: unknown fact 'greting'"),
    ('yields = ["greeting"]', "yields = []",
     "bad.toml: steps[1].needs: fact 'greeting' is not yielded by any earlier step"),
    ('model = "claude-haiku-4-5"', 'model = "gpt-4"', "bad.toml: model: unknown model 'gpt-4'"),
    ('name = "bad"', 'name = "other"', "bad.toml: name: must match the file name 'bad'"),
    ('id = "fix"', 'id = "read"', "bad.toml: steps[1].id: duplicate step id 'read'"),
    ('new = "\'hello\'"', 'new = "GREETING"',
     "bad.toml: steps[1].input.new: is already in app.py"),
    ('old = "\'helo\'"', 'old = "hello"', "bad.toml: steps[1].input.old: must occur exactly once"),
    ('gist = "fix the greeting"', 'gist = "fix the greeting in app.py"',
     "bad.toml: gist: must not mention 'app.py'"),
    ('goal = ["ok"]', 'goal = ["greeting", "nope"]', "bad.toml: goal: fact 'nope'"),
    ('source = "ws"', 'source = "missing"', "bad.toml: workspace.source: no workspace directory"),
    ('task = "Fix the greeting in app.py."', "task = 3", "bad.toml: task: must be a string"),
    ('[success]\ncommand = "python3 check.py"', '[success]\ncommand = ""',
     "bad.toml: success.command: must not be empty"),
    ('name = "bad"', 'colour = 1\nname = "bad"', "bad.toml: colour: unknown field"),
    ('command = "python3 check.py"\n', 'command = "python3 check.py"\nunchanged = ["cfg.py"]\n',
     "bad.toml: success.unchanged[0]: 'cfg.py' is neither committed nor generated"),
    ('source = "ws"', 'source = "ws"\nsorce = "ws"', "bad.toml: workspace.sorce: unknown field"),
    ('ok = "CHECK OK"', 'ok = "CHECK OK"\nshort = "CHECK"',
     "bad.toml: facts.short: its marker occurs inside the marker of fact 'ok'"),
    ('yields = ["greeting"]\n', 'yields = ["greeting"]\ndelegate = "look"\n',
     "bad.toml: steps[0].note: a delegable step needs a note of its own"),
    ('needs = ["greeting"]\n', 'needs = ["greeting"]\ndelegate = "fix"\nnote = "fix it"\n',
     "bad.toml: steps[1].yields: the last step of part 'fix' must yield a fact"),
])
def test_bad_files_are_rejected_naming_file_and_field(tmp_path: Path, old: str, new: str,
                                                      message: str) -> None:
    assert old in GOOD
    with pytest.raises(ScenarioError) as caught:
        load_text(tmp_path, GOOD.replace(old, new, 1))
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_a_delegable_part_is_adjacent_steps(tmp_path: Path) -> None:
    text = GOOD.replace('yields = ["greeting"]\n', 'yields = ["greeting"]\ndelegate = "p"\n'
                        'note = "read it"\n').replace('yields = ["ok"]\n', 'yields = ["ok"]\n'
                                                       'delegate = "p"\nnote = "check it"\n')
    with pytest.raises(ScenarioError, match=r"steps\[2\]\.delegate: the steps of part 'p' must "
                                            "be adjacent"):
        load_text(tmp_path, text)
    assert [s.delegate for s in load_text(tmp_path, text.replace(
        'delegate = "p"\nnote = "check it"', 'note = "check it"')).steps] == ["p", None, None]


@pytest.mark.parametrize(("extra", "message"), [
    ('[[steps]]\nid = "again"\ntool = "read_file"\ninput = { path = "app.py" }\n',
     "bad.toml: steps[3].yields: repeats the call of step 'read'"),
    ('[[steps]]\nid = "x"\ntool = "read_file"\ninput = { path = "b.py" }\ntempts = "rule"\n',
     "bad.toml: steps[3].tempts: unknown constraint 'rule'"),
    ('[[constraints]]\nid = "rule"\ntext = "Leave b.py alone."\n[[steps]]\nid = "x"\n'
     'tool = "read_file"\ninput = { path = "b.py" }\ntempts = "rule"\n',
     "bad.toml: steps[3].comply: a tempting step needs both 'tempts' and 'comply'"),
    ('[[messages]]\nafter = "nowhere"\ntext = "hi"\n',
     "bad.toml: messages[0].after: unknown step 'nowhere'"),
    ('images = [{ width = 10, height = 10, color = "red" }]\n',
     "bad.toml: images[0].color: expected a colour like '#3366cc'"),
    ('[[steps]]\nid = "n{n}"\nrange = [3, 1]\ntool = "read_file"\ninput = { path = "b.py" }\n',
     "bad.toml: steps[3].range: must be [first, last]"),
    ('[[steps]]\nid = "p1"\ntool = "read_file"\ninput = { path = "p1.py" }\nparallel = "g"\n'
     '[[steps]]\nid = "p2"\ntool = "read_file"\ninput = { path = "p2.py" }\n'
     '[[steps]]\nid = "p3"\ntool = "read_file"\ninput = { path = "p3.py" }\nparallel = "g"\n',
     "bad.toml: steps[5].parallel: the steps of group 'g' must be adjacent"),
])
def test_bad_plan_entries_are_rejected(tmp_path: Path, extra: str, message: str) -> None:
    text = GOOD.replace("[success]", extra + "\n[success]")
    if extra.startswith("images"):
        text = extra + GOOD
    with pytest.raises(ScenarioError) as caught:
        load_text(tmp_path, text)
    assert str(caught.value).startswith(message)


def test_invalid_toml_and_unknown_names_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"^bad\.toml: invalid TOML"):
        load_text(tmp_path, "name = ")
    with pytest.raises(ScenarioError, match="unknown scenario 'no-such'; known: .*bugfix-small"):
        load("no-such")


def test_a_range_unrolls_into_numbered_steps(tmp_path: Path) -> None:
    extra = ('[[steps]]\nid = "log-{n:02d}"\nrange = [8, 10]\ntool = "run_command"\n'
             'input = { command = "cat logs/{n:03d}.log" }\nnote = "read log {n}"\n')
    scenario = load_text(tmp_path, GOOD.replace("[success]", extra + "\n[success]"))
    added = scenario.steps[3:]
    assert [s.id for s in added] == ["log-08", "log-09", "log-10"]
    assert added[0].call.input == {"command": "cat logs/008.log"}
    assert added[2].note == "read log 10"


def test_a_constraint_can_arrive_later_in_the_conversation(tmp_path: Path) -> None:
    rule = ('[[constraints]]\nid = "late"\ntext = "Keep the old greeting as a comment."\n'
            'after = "read"\n')
    scenario = load_text(tmp_path, GOOD.replace("[success]", rule + "\n[success]"))
    assert [b["text"] for b in opening(scenario)["content"]] == [scenario.task]
    follow = FollowUps(scenario)
    assert follow.after([("read_file", {"path": "app.py"})]) == [
        {"type": "text", "text": "Keep the old greeting as a comment."}]


def test_committed_fixtures_stay_small() -> None:
    size = sum(p.stat().st_size for p in FIXTURES.rglob("*") if p.is_file())
    assert size < 2_000_000
