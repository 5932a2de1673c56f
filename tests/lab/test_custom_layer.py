"""``--layer MODULE:FACTORY``: your own context layer on the bench's one runner (issue 19)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxlab import peers, rows, use
from ctxlab.cli import main

LAYER = '''
class Tail:
    def __init__(self, keep=0):
        self.keep = keep
    def prepare(self, messages, session):
        return messages
    def admit(self, results, session):
        return results

def make(keep=0):
    return Tail(keep)

def broken():
    return object()
'''


@pytest.fixture()
def spec(tmp_path: Path) -> str:
    path = tmp_path / "tail.py"
    path.write_text(LAYER, encoding="utf-8")
    use("solutions")
    return f"{path}:make"


def test_run_meters_your_layer_like_a_stage(spec: str, capsys) -> None:
    assert main(["run", "--scenario", "bugfix-small", "--layer", spec, "--set", "keep=2",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["stage"] == spec and summary["success"]
    assert summary["tokens_per_task"] > 0 and summary["turns"] > 0


@pytest.mark.shares_runs("capsys reads the command's report")
def test_compare_adds_your_row_and_the_oracle(spec: str, capsys) -> None:
    assert main(["compare", "--scenario", "bugfix-small", "--layer", spec, "--oracle",
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["stage"] for r in rows][-2:] == [spec, "oracle"]
    assert main(["compare", "--scenario", "bugfix-small", "--oracle", "--markdown"]) == 0
    assert "stage 5 / oracle:" in capsys.readouterr().out


@pytest.mark.parametrize(("layer", "says"), [
    ("no-colon", "expected MODULE:FACTORY"),
    ("{path}:missing", "has no callable 'missing'"),
    ("{path}:broken", "without prepare and admit"),
    ("no_such_module_here:make", "cannot import"),
])
def test_a_bad_layer_is_one_line(spec: str, layer: str, says: str, capsys) -> None:
    path = spec.rpartition(":")[0]
    assert main(["run", "--scenario", "bugfix-small", "--layer", layer.format(path=path)]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_a_wrong_option_and_a_stage_are_refused(spec: str, capsys) -> None:
    for argv in (["--set", "nope=1"], ["--stage", "3"]):
        assert main(["run", "--scenario", "bugfix-small", "--layer", spec, *argv]) == 2


@pytest.mark.shares_runs("rows.missing picks which rows run, not how one runs")
def test_peers_without_the_extra_show_the_rest_and_say_how_to_install(monkeypatch,
                                                                       capsys) -> None:
    """The rows that need no library (observation masking, the API's own, the oracle) run
    without LangChain; one line says how to add its rows."""
    use("solutions")
    monkeypatch.setattr(rows, "missing", lambda packages: list(packages))
    assert main(["compare", "--scenario", "bugfix-small", "--peers", "--json"]) == 0
    out, err = capsys.readouterr()
    names = [r["stage"] for r in json.loads(out)][6:]
    assert names == ["observation-masking", "observation-masking-cached", "api-clear",
                     "api-compact", "oracle"]
    assert [line for line in err.splitlines() if peers.INSTALL in line] == [
        f"LangChain's rows left out (not installed): {peers.INSTALL}"]


@pytest.mark.shares_runs("capsys reads the command's report")
def test_the_ladder_judges_your_layer_as_a_cell(spec: str, capsys) -> None:
    """A rung judged on one run (those judged over eight seeds take sixteen runs or more)."""
    assert main(["ladder", "--layer", spec, "--rung", "history-fills-window", "--stage", "3",
                 "--json"]) == 0
    cells = json.loads(capsys.readouterr().out)["rungs"][0]["stages"]
    assert set(cells) == {"3", "layer"}
    assert cells["layer"]["status"] == "pitfall"  # it keeps everything: the history overflows
    assert "rejected" in cells["layer"]["evidence"] and "window" in cells["layer"]["evidence"]

