"""The post-compaction rebuild, both ways (§10.1, §10.2, §14 stage 4 pit 3): what the agent
does after a summary depends on whether the file it edits is in view as it is now."""

from __future__ import annotations

import json
from functools import cache

import pytest
from s4_summarize.rebuild import CHANGED_NOTE

from ctxlab.cli import main
from ctxlab.runner import RunResult, run
from ctxlab.scenarios import Call, load


@cache
def lesson(scenario: str, **options: bool) -> RunResult:
    return run(4, scenario, layer_options=options or None)


def after_summary(result: RunResult) -> list[str]:
    """The file calls (reads and edits) the agent made after the first summary: a command it
    runs again for a fact it missed in view (context rot, §4) is another lesson."""
    kinds = [r.kind for r in result.records]
    first = kinds.index("summary")
    return [c["name"] for r in result.records[first + 1:] if r.kind == "agent"
            for c in r.tool_calls if c["name"] in ("read_file", "edit_file")]


def head_text(result: RunResult) -> str:
    """The text of the history's first message (the summary and what was attached to it)."""
    return "\n".join(b.get("text", "") for b in result.messages[0]["content"])


def test_with_the_rebuild_the_edit_goes_on_without_reading_the_file_again() -> None:
    result = lesson("edit-mid-compaction")
    assert result.summary.success
    assert "FUEL_SURCHARGE = {" in head_text(result)  # the file's content came back
    assert after_summary(result)[0] == "edit_file"
    assert sum(c["name"] == "read_file" for r in result.records for c in r.tool_calls) == 1


@pytest.mark.checklist("B.22")
def test_without_the_rebuild_the_agent_reads_the_file_it_was_editing_again() -> None:
    result = lesson("edit-mid-compaction", rebuild=False)
    assert result.summary.success
    assert "FUEL_SURCHARGE = {" not in head_text(result)
    assert after_summary(result)[:2] == ["read_file", "edit_file"]
    assert result.summary.tokens_per_task > lesson("edit-mid-compaction").summary.tokens_per_task


def _edits(result: RunResult) -> list[Call]:
    return [Call(b["name"], b["input"]) for m in result.original if m["role"] == "assistant"
            for b in m["content"] if b.get("type") == "tool_use" and b["name"] == "edit_file"]


@pytest.mark.checklist("B.24")
def test_the_mtime_note_makes_the_agent_edit_the_current_file() -> None:
    step = load("stale-file").steps[load("stale-file").index("raise-batch")]
    noted = lesson("stale-file")
    assert CHANGED_NOTE in head_text(noted)
    assert _edits(noted) == [step.call] and noted.summary.success
    plain = lesson("stale-file", mtime_notes=False)
    assert "MAX_BATCH = 250" in head_text(plain)  # the current text is attached, unflagged …
    assert CHANGED_NOTE not in head_text(plain)
    assert _edits(plain) == [step.stale]  # … but the old copy seen later in view is believed
    assert not plain.summary.success


def test_the_switch_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--stage", "4", "--scenario", "edit-mid-compaction", "--set",
                 "rebuild=false", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["turns"] == lesson("edit-mid-compaction", rebuild=False).summary.turns
    assert main(["run", "--stage", "4", "--set", "rebuilt=false"]) == 2
    assert "does not take these options" in capsys.readouterr().err
    assert main(["run", "--keep-everything", "--set", "rebuild=false"]) == 2


@pytest.mark.shares_runs("the spy records the arguments around the real run")
def test_compare_runs_the_variant_on_the_stages_that_take_the_option(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxlab import rows as registry  # every row of compare runs through it

    given: dict[object, object] = {}

    def spy(stage: int | None, scenario: str, **kwargs: object) -> RunResult:
        given[stage] = kwargs.get("layer_options")
        return run(stage, scenario, **kwargs)

    monkeypatch.setattr(registry, "run", spy)
    assert main(["compare", "--scenario", "bugfix-small", "--set", "rebuild=false",
                 "--json"]) == 0
    shown = capsys.readouterr()
    assert given == {1: None, 2: None, 3: None, 4: {"rebuild": False}, 5: None, None: None}
    assert [row["stage"] for row in json.loads(shown.out)][:5] == [1, 2, 3, 4, 5]
    assert "--set rebuild=false: on stage 4" in shown.err
    assert main(["compare", "--scenario", "bugfix-small", "--set", "rebuilt=false"]) == 2
    assert "no stage takes rebuilt" in capsys.readouterr().err
