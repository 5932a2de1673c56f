"""Which boundary a command runs behind (``ctxlab.tools.confine``, DESIGN §9): the jail, else
the option guard alone after one warning line, or — when the jail is required — a failure."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ctxlab import jail
from ctxlab.cli import main
from ctxlab.jail import detect
from ctxlab.tools import ToolBox, confine

BROKEN = jail.Status(False, "bwrap failed to start a jailed `true`: setting up uid map: "
                            "Permission denied")


@pytest.fixture
def no_jail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(detect, "probe", lambda: BROKEN)
    monkeypatch.setattr(jail, "probe", lambda: BROKEN)
    monkeypatch.setattr(confine, "_warned", set())
    monkeypatch.delenv(detect.REQUIRE_ENV, raising=False)


@pytest.mark.usefixtures("no_jail")
def test_without_a_jail_commands_run_behind_the_guard_after_one_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    box = ToolBox(tmp_path)
    with caplog.at_level(logging.WARNING, logger="ctxlab"):
        first = box.run("run_command", {"command": "cat a.txt"})
        second = box.run("run_command", {"command": "cat a.txt"})
        refused = box.run("run_command", {"command": "cat ../x"})
    assert first.content == second.content == "alpha\n[exit code: 0]"
    assert refused.is_error  # the guard still refuses
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "\n" not in warnings[0]
    assert "behind the option guard only" in warnings[0] and "uid map" in warnings[0]


@pytest.mark.usefixtures("no_jail")
def test_a_required_jail_that_is_missing_stops_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(detect.REQUIRE_ENV, "1")
    (tmp_path / "a.txt").write_text("alpha\n")
    with pytest.raises(jail.Unavailable, match="required here .*uid map"):
        ToolBox(tmp_path).run("run_command", {"command": "cat a.txt"})
    code = main(["run", "--stage", "5", "--scenario", "bugfix-small"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "CTXLAB_REQUIRE_JAIL=1" in err and "internal error" not in err
