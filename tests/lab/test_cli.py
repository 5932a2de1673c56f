"""The ctxlab command: JSON reports, readable errors, no tracebacks for ordinary mistakes."""

from __future__ import annotations

import json
import re

import pytest

from ctxlab.cli import main
from ctxlab.workbook import hints


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> object:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    for command in ("run", "demo", "serve", "grade", "hint", "workbook", "models"):
        assert command in out


def test_run_json_has_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, ["run", "--stage", "1", "--scenario", "long-task", "--json"])
    for key in ("stage", "scenario", "success", "error", "turns", "tokens_per_task",
                "cache_read_share", "cost_usd", "duplicate_call_rate"):
        assert key in report
    assert report["stage"] == 1 and report["success"] is False
    assert report["error"]["type"] == "invalid_request_error"
    assert report["error"]["message"].startswith("prompt is too long")


def test_run_json_with_stderr_merged_is_still_json(capsys: pytest.CaptureFixture[str]) -> None:
    """``ctxlab run --json 2>&1 | jq``: the progress view leaves nothing behind."""
    assert main(["run", "--stage", "1", "--scenario", "bugfix-small", "--json"]) == 0
    shown = capsys.readouterr()
    assert json.loads(shown.out + shown.err)["turns"] > 0


@pytest.mark.shares_runs("capsys reads the command's report")
def test_demo_json_shows_cache_reads_then_a_cold_cache(capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, ["demo", "--json"])
    reads = [row["cache_read"] for row in report["cache_tour"]]
    assert reads[0] == 0 and all(r > 0 for r in reads[1:4]) and reads[4] == 0
    assert {e["case"] for e in report["errors"]} == {"overflow", "orphan tool_result"}
    # the reference checkout: every stage runs now (a handed-out copy: tests/workshop)
    assert report["stages"] == [{"stage": n, "own": False, "missing": []} for n in range(1, 6)]


def test_models_json_lists_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    table = _json(capsys, ["models", "--json"])
    assert any(m["id"] == "ctxlab-sim-32k" and m["context_window"] == 32_000 for m in table)


@pytest.mark.parametrize("argv, text", [
    (["run", "--scenario", "nope"], "unknown scenario 'nope'"),
    (["workbook", "reset", "9"], "unknown stage 9"),
    (["hint", "9.9"], "no hints for exercise '9.9'"),
])
def test_ordinary_mistakes_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                                   argv: list[str], text: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert text in err and "Traceback" not in err


def test_live_without_a_key_is_a_clear_error(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["run", "--stage", "1", "--scenario", "bugfix-small", "--live"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_hints_advance_one_level_per_call(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(hints, "_state_file", lambda: tmp_path / "hints.json")
    levels = []
    for _ in range(4):
        assert main(["hint", "2.3"]) == 0
        out = capsys.readouterr().out
        levels.append(next(n for n in (1, 2, 3) if f"hint {n}/3" in out))
    assert levels == [1, 2, 3, 3]


def test_serving_a_scenario_answers_as_its_agent_over_http() -> None:
    import anthropic

    from ctxlab.brain import simulator_for
    from ctxlab.scenarios import load, opening
    from ctxlab.sim.server import SimServer
    from ctxlab.tools import definitions

    server = SimServer(simulator_for("bugfix-small"))
    server.start()
    try:
        client = anthropic.Anthropic(base_url=server.url, api_key="any", max_retries=0)
        reply = client.messages.create(model="ctxlab-sim-32k", max_tokens=1024,
                                       tools=definitions(),
                                       messages=[opening(load("bugfix-small"))])
    finally:
        server.shutdown()
        server.server_close()
    uses = [b for b in reply.content if b.type == "tool_use"]
    assert reply.stop_reason == "tool_use"
    plan = [(s.call.tool, s.call.input) for s in load("bugfix-small").steps]
    # its plan from the start: the check first, with any independent steps in parallel
    assert [(u.name, u.input) for u in uses] == plan[:len(uses)]
    assert uses[0].input == {"command": "python3 check.py"}


@pytest.mark.shares_runs("capsys reads the command's report")
def test_example_json_prints_the_ch8_table(capsys: pytest.CaptureFixture[str]) -> None:
    table = _json(capsys, ["example", "ch8.3", "--json"])
    assert set(table) >= {"start", "after_l3", "after_l1", "after_l2", "l4_ran"}
    assert table["start"] > table["after_l3"] >= table["after_l1"] > table["after_l2"]


def _panel_words(exercise: str, level: int, text: str, width: int) -> str:
    from rich.console import Console

    from ctxlab.commands.hint import hint_panel
    console = Console(record=True, width=width, color_system=None)
    console.print(hint_panel(exercise, level, text))
    lines = console.export_text().splitlines()[1:-1]  # drop the panel's top and bottom rule
    words = " ".join(" ".join(line.strip()[1:-1].split()) for line in lines).strip()
    return re.sub(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])", "", words)  # a Chinese
    # word may break over two lines with no space between (ctxlab.view.wrap)


def test_the_last_hint_names_its_stage_solve_command_within_80_columns() -> None:
    from rich.console import Console

    from ctxlab.commands.hint import hint_panel
    console = Console(record=True, width=80, color_system=None)
    console.print(hint_panel("1.2", 3, "a hint"))
    title = console.export_text().splitlines()[0]
    assert "hint 3/3" in title and "`ctxlab workbook solve 1`" in title, title


@pytest.mark.parametrize("width", [80, 160])
def test_every_hint_is_printed_verbatim(width: int) -> None:
    """Code in a hint (``kept[drop:]``, ``[...]``) reaches the learner as written: the
    printer never reads a hint as rich markup."""
    every = hints.all_hints()
    assert every
    for exercise, texts in every.items():
        for level, text in enumerate(texts, start=1):
            assert _panel_words(exercise, level, text, width) == " ".join(text.split()), (
                f"hint {exercise}/{level} is not printed as written")


@pytest.mark.parametrize(("argv", "meant"), [
    (["rnu"], "'run'"), (["grdae"], "'grade'"), (["workbook", "chek"], "'check'"),
])
def test_a_mistyped_command_gets_a_did_you_mean(argv: list[str], meant: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith(f"invalid choice: {argv[-1]!r}; did you mean {meant}?"), err


def test_a_command_like_no_other_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["xyzzy"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "did you mean" not in err and "choose from" in err and "'run'" in err
