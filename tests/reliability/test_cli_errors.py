"""Clear errors for users (issue 8, item 5): one readable line, a non-zero exit, no traceback.

Every mistake the issue names — a missing or bad scenario file, a corrupt session log or
journal, a wrong ``--impl``, a missing API key in ``--live`` mode, an unknown stage — and a few
more. ``--debug`` shows the traceback instead; a bug (not a mistake) is one line with status 1.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxlab import runner
from ctxlab.cli import main
from ctxlab.commands import UserError
from ctxlab.journal import JOURNAL

BAD_TOML = 'name = "broken"\nmodel = \n'
INCOMPLETE = 'name = "incomplete"\nmodel = "claude-haiku-4-5"\n'


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own usage errors
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "broken.toml").write_text(BAD_TOML)
    (tmp_path / "incomplete.toml").write_text(INCOMPLETE)
    (tmp_path / "latin1.toml").write_bytes(b'name = "caf\xe9"\n')
    (tmp_path / "binary.jsonl").write_bytes(b"\x00\x01\x02" * 100)
    (tmp_path / "empty.jsonl").write_text('{"type": "progress"}\nnot json\n')
    (tmp_path / "string.jsonl").write_text('{"type": "assistant", "message": "hello"}\n')
    journal = tmp_path / "ws-corrupt" / JOURNAL
    journal.parent.mkdir(parents=True)
    journal.write_text('{"keep": 0, "add": []}\nnot json\n{"keep": 0, "add": []}\n')
    (tmp_path / "ws-empty").mkdir()
    (tmp_path / "ws-full").mkdir()
    (tmp_path / "ws-full" / "x").write_text("x")
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "big.jsonl").write_text('{"type": "user"}\n' * 100)
    return {p.name: p for p in tmp_path.iterdir()}


CASES = {
    "missing scenario file": (["run", "--scenario", "{tmp}/missing.toml"],
                              "no scenario file"),
    "unknown scenario": (["run", "--scenario", "nope"], "unknown scenario 'nope'"),
    "scenario not TOML": (["run", "--scenario", "{tmp}/broken.toml"], "invalid TOML"),
    "scenario incomplete": (["run", "--scenario", "{tmp}/incomplete.toml"], "incomplete.toml"),
    "scenario not UTF-8": (["run", "--scenario", "{tmp}/latin1.toml"], "not a UTF-8"),
    "session log binary": (["replay", "{tmp}/binary.jsonl"], "binary file"),
    "session log without conversation": (["replay", "{tmp}/empty.jsonl"], "no conversation"),
    "session log whose message is a string": (["replay", "{tmp}/string.jsonl"],
                                              "no conversation"),
    "session log missing": (["replay", "{tmp}/none.jsonl"], "does not exist"),
    "session journal corrupt": (["run", "--scenario", "bugfix-small", "--workspace",
                                 "{tmp}/ws-corrupt", "--resume"], "journal is corrupt"),
    "nothing to resume": (["run", "--scenario", "bugfix-small", "--workspace", "{tmp}/ws-empty",
                           "--resume"], "nothing to resume"),
    "resume without workspace": (["run", "--resume"], "--resume needs --workspace"),
    "workspace not empty": (["run", "--workspace", "{tmp}/ws-full"], "not an empty folder"),
    "wrong --impl": (["run", "--impl", "mine"], "invalid choice: 'mine'"),
    "wrong --impl for replay": (["replay", "x.jsonl", "--impl", "mine"], "invalid choice"),
    "unknown stage for run": (["run", "--stage", "9"], "invalid choice: 9"),
    "unknown stage for grade": (["grade", "9"], "unknown stage 9"),
    "unknown stage for workbook": (["workbook", "reset", "9"], "unknown stage 9"),
    "unknown exercise for hint": (["hint", "9.9"], "no hints for exercise '9.9'"),
    "allow-any-command without live": (["run", "--allow-any-command"], "only applies to --live"),
    "unknown model": (["run", "--model", "gpt-9"], "gpt-9"),
    "session log is a named pipe": (["replay", "{tmp}/pipe.jsonl"], "not a regular file"),
    "session log is a device": (["replay", "/dev/zero"], "not a regular file"),
    "session log over --max-bytes": (["replay", "{tmp}/big.jsonl", "--max-bytes", "100"],
                                     "over the 100-byte limit"),
    "--max-bytes not a number": (["replay", "x.jsonl", "--max-bytes", "lots"],
                                 "argument --max-bytes: invalid whole number"),
    "--max-turns negative": (["run", "--max-turns", "-1"],
                             "argument --max-turns: must be at least 1, not -1"),
    "--max-turns zero": (["run", "--max-turns", "0"], "must be at least 1, not 0"),
    "serve --port out of range": (["serve", "--port", "70000"],
                                  "argument --port: must be from 0 to 65535, not 70000"),
    "serve --rate-limits unknown name": (["serve", "--rate-limits", "tpm=5"],
                                         "--rate-limits: 'tpm=5': name one of rpm, itpm"),
    "serve --rate-limits zero": (["serve", "--rate-limits", "rpm=0"],
                                 "'rpm=0': the limit must be a whole number of at least 1"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_mistake_is_one_readable_line_and_a_non_zero_exit(
        case: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    argv, text = CASES[case]
    code, err = _error(capsys, [a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert code == 2, err
    message = [line for line in err.splitlines()
               if line.strip() and not line.startswith(("usage:", " "))]  # argparse's usage
    assert len(message) == 1 and text in message[0], err


def test_live_mode_without_an_api_key(capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, err = _error(capsys, ["run", "--stage", "5", "--scenario", "bugfix-small", "--live"])
    assert code == 2 and "needs ANTHROPIC_API_KEY" in err


def test_debug_shows_the_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UserError, match="unknown scenario"):
        main(["--debug", "run", "--scenario", "nope"])


def test_a_bug_is_one_line_with_status_1_and_a_traceback_with_debug(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("division by zero\nsecond line")

    monkeypatch.setattr(runner, "run", broken)
    code, err = _error(capsys, ["run", "--scenario", "bugfix-small"])
    assert code == 1
    assert "internal error: ZeroDivisionError: division by zero" in err and "--debug" in err
    assert "second line" not in err
    with pytest.raises(ZeroDivisionError):
        main(["--debug", "run", "--scenario", "bugfix-small"])


def test_the_installed_command_prints_no_traceback(tmp_path: Path) -> None:
    """The same through a real process: what a learner sees in a terminal."""
    done = subprocess.run([sys.executable, "-m", "ctxlab.cli", "run", "--scenario",
                           str(tmp_path / "missing.toml")], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2
    assert "no scenario file" in done.stderr and "Traceback" not in done.stderr
    debug = subprocess.run([sys.executable, "-m", "ctxlab.cli", "--debug", "run", "--scenario",
                            str(tmp_path / "missing.toml")], capture_output=True, text=True,
                           timeout=60, check=False)
    assert debug.returncode != 0 and "Traceback" in debug.stderr
