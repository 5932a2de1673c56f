"""The sandbox's escape table (issue 8, item 4): every named attempt is contained.

Each row of ``ESCAPES`` is one way a model could try to get out of the workspace — by path, by
symlink, by shell syntax, through the environment, by running forever or printing too much —
and ``contained`` says what "contained" means for it: an ``is_error`` result, no secret in the
output, nothing created outside. ``docs/reliability.md`` lists the same names with these tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from s3_offload import OFFLOAD_DIR, offload
from s3_offload import make_layer as offload_layer

from ctxlab import runner
from ctxlab.session import Session
from ctxlab.sim import ModelView, Reply, Simulator, make_client
from ctxlab.tools import LIVE_ALLOWED_PROGRAMS, ToolBox, ToolOutput, Workspace, definitions

SECRET = "TOP-SECRET-7731"
KEY = "sk-ant-api03-never-reaches-a-tool"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(SECRET + "\n")
    return folder


@pytest.fixture
def workspace(tmp_path: Path, outside: Path) -> Iterator[Workspace]:
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "a.txt").write_text("alpha\n")
    (src / "pkg" / "mod.py").write_text("x = 1\n")
    (src / "leak.txt").symlink_to(outside / "secret.txt")
    (src / "linkdir").symlink_to(outside)
    (src / "dangling").symlink_to(outside / "created-by-write.txt")
    (src / "loop").symlink_to("loop")
    (src / "docs").symlink_to(outside)  # search_docs must not follow it out
    with Workspace(src) as ws:
        yield ws


@pytest.fixture
def box(workspace: Workspace) -> ToolBox:
    return ToolBox(workspace, timeout=2.0, output_cap=100_000)


@dataclass(frozen=True)
class Escape:
    tool: str
    tool_input: dict[str, Any]
    error: bool = True  # must come back as an is_error result


def py(code: str) -> str:
    return f'python3 -c "{code}"'


ESCAPES: dict[str, Escape] = {
    "dotdot-read": Escape("read_file", {"path": "../outside/secret.txt"}),
    "dotdot-nested": Escape("read_file", {"path": "pkg/../../outside/secret.txt"}),
    "absolute-read": Escape("read_file", {"path": "/etc/passwd"}),
    "absolute-write": Escape("write_file", {"path": "/tmp/ctxlab-escape-abs.txt",
                                            "content": "pwned"}),
    "dotdot-write": Escape("write_file", {"path": "../outside/pwned.txt", "content": "pwned"}),
    "symlink-file-out": Escape("read_file", {"path": "leak.txt"}),
    "symlink-dir-out": Escape("read_file", {"path": "linkdir/secret.txt"}),
    "symlink-dir-write": Escape("write_file", {"path": "linkdir/pwned.txt", "content": "x"}),
    "dangling-symlink-write": Escape("write_file", {"path": "dangling", "content": "x"}),
    "edit-through-symlink": Escape("edit_file", {"path": "leak.txt", "old": "TOP",
                                                 "new": "PWNED"}),
    "nul-byte-path": Escape("read_file", {"path": "a.txt\x00../../outside/secret.txt"}),
    "symlink-loop": Escape("read_file", {"path": "loop"}),
    "search-docs-symlinked-out": Escape("search_docs", {"query": "SECRET"}, error=False),
    "shell-chaining": Escape("run_command", {"command": "cat a.txt; cat ../outside/secret.txt"}),
    "shell-pipe": Escape("run_command", {"command": "cat a.txt | sh"}),
    "shell-substitution": Escape("run_command", {"command": "echo $(cat ../outside/secret.txt)"}),
    "shell-backticks": Escape("run_command", {"command": "echo `cat /etc/passwd`"}),
    "shell-redirect": Escape("run_command", {"command": "echo pwned > ../outside/pwned.txt"}),
    "shell-background": Escape("run_command", {"command": "sleep 60 &"}),
    "argument-absolute": Escape("run_command", {"command": "cat /etc/passwd"}),
    "argument-dotdot": Escape("run_command", {"command": "cat ../outside/secret.txt"}),
    "argument-symlink-out": Escape("run_command", {"command": "cat leak.txt"}),
    "option-equals-path": Escape("run_command", {"command": "grep --file=/etc/passwd x a.txt"}),
    "surrogate-in-input": Escape("write_file", {"path": "a\udc80.txt", "content": "x"}),
    "unknown-tool": Escape("bash", {"command": "cat /etc/passwd"}),
}


def contained(name: str, output: ToolOutput, outside: Path, root: Path) -> None:
    escape = ESCAPES[name]
    assert output.is_error is escape.error, (name, output)
    assert SECRET not in output.content
    assert "root:" not in output.content  # nothing of /etc/passwd
    created = {p.name for p in outside.iterdir()}
    assert created == {"secret.txt"}, created  # nothing written outside
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert not Path("/tmp/ctxlab-escape-abs.txt").exists()


@pytest.mark.parametrize("name", list(ESCAPES))
def test_escape_is_contained(name: str, box: ToolBox, outside: Path) -> None:
    escape = ESCAPES[name]
    output = box.run(escape.tool, escape.tool_input)
    contained(name, output, outside, box.root)


# ---- the environment, time and output --------------------------------------------------------

@pytest.mark.parametrize("command", ["env", py("import os; print(dict(os.environ))"),
                                     py("import os; print(open('/proc/self/environ').read())")])
def test_env_api_key_never_reaches_a_tool(box: ToolBox, monkeypatch: pytest.MonkeyPatch,
                                          command: str) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", KEY)
    output = box.run("run_command", {"command": command})
    assert KEY not in output.content
    assert "ANTHROPIC" not in output.content


def test_timeout_runaway_is_killed(workspace: Workspace) -> None:
    box = ToolBox(workspace, timeout=0.5)
    started = time.monotonic()
    output = box.run("run_command", {"command": py("while True: pass")})
    assert time.monotonic() - started < 5
    assert output.is_error and "timed out" in output.content


def test_timeout_kills_children_too(workspace: Workspace) -> None:
    (workspace.root / "spawn.py").write_text(
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time\\nwhile True:\\n"
        "    open(\"ticks\", \"a\").write(\".\"); time.sleep(0.02)'])\n"
        "time.sleep(30)\n")
    box = ToolBox(workspace, timeout=0.5)
    assert box.run("run_command", {"command": "python3 spawn.py"}).is_error
    time.sleep(0.2)
    ticks = workspace.root / "ticks"
    size = ticks.stat().st_size if ticks.exists() else 0
    time.sleep(0.3)
    assert (ticks.stat().st_size if ticks.exists() else 0) == size  # the child is dead too


def test_output_10mb_is_capped(box: ToolBox) -> None:
    ten_mb = py("import sys; sys.stdout.write('x' * 10_000_000)")
    output = box.run("run_command", {"command": ten_mb})
    assert len(output.content) < 100_000 + 500
    assert "output truncated" in output.content and "9,900,000" not in output.content


def test_output_binary_is_described(box: ToolBox) -> None:
    nul = py(r"import sys; sys.stdout.buffer.write(b'\x00\x01' * 500)")
    output = box.run("run_command", {"command": nul})
    assert output.content.startswith("[binary output: 1000 bytes]")


def test_output_non_utf8_is_replaced(box: ToolBox) -> None:
    latin = py(r"import sys; sys.stdout.buffer.write(b'ok \xff\xfe end')")
    output = box.run("run_command", {"command": latin})
    assert "ok \ufffd\ufffd end" in output.content


def test_binary_file_read_is_described(box: ToolBox) -> None:
    (box.root / "blob.bin").write_bytes(b"\x00\xff" * 100)
    assert box.run("read_file", {"path": "blob.bin"}).content.startswith("[binary file:")


# ---- tool_use ids as file names --------------------------------------------------------------

BAD_IDS = ["../../escape", "..", "a/b", "x.txt\x00", "toolu_" + "a" * 300, "", "toolu 01",
           "C:\\evil"]


@pytest.mark.parametrize("tool_id", BAD_IDS)
def test_tool_use_id_as_offload_file_name_is_refused(tmp_path: Path, tool_id: str) -> None:
    with pytest.raises(ValueError, match="refusing"):
        offload(tmp_path / "ws", tool_id, "content")
    assert not (tmp_path / "escape").exists() and not (tmp_path / "escape.txt").exists()


def test_a_bad_id_keeps_the_result_in_context_instead_of_crashing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    session = Session(make_client(Simulator()), "ctxlab-sim-32k", [], definitions(), root)
    big = "x" * 60_000
    results = [{"type": "tool_result", "tool_use_id": "../../escape", "content": big},
               {"type": "tool_result", "tool_use_id": "toolu_ok", "content": big}]
    admitted = offload_layer().admit(results, session)
    assert admitted[0] == results[0]  # not offloaded, not lost
    assert admitted[1]["content"] != big and (root / OFFLOAD_DIR / "toolu_ok.txt").is_file()
    assert sorted(p.name for p in tmp_path.rglob("*escape*")) == []


# ---- live mode: an allow-list, refused or confirmed, never silent ----------------------------

@pytest.fixture
def live_box(workspace: Workspace) -> ToolBox:
    return ToolBox(workspace, timeout=2.0, allowed=LIVE_ALLOWED_PROGRAMS)


@pytest.mark.parametrize("command", ["rm -rf pkg", "/bin/rm -rf pkg", "./cat pkg/mod.py",
                                     "env rm -rf pkg", "find . -delete", "curl http://x",
                                     "pip install requests", "chmod -R 000 pkg"])
def test_live_command_outside_the_allow_list_is_refused(live_box: ToolBox,
                                                        command: str) -> None:
    output = live_box.run("run_command", {"command": command})
    assert output.is_error  # refused by the allow-list, or earlier by the path guard
    assert "allow-list" in output.content or "outside the workspace" in output.content
    assert (live_box.root / "pkg" / "mod.py").read_text() == "x = 1\n"


@pytest.mark.parametrize("command", ["cat a.txt", "ls", "grep -n alpha a.txt", "wc -l a.txt",
                                     "head -1 a.txt", "tail -1 a.txt", py("print(6 * 7)")])
def test_live_command_on_the_allow_list_runs(live_box: ToolBox, command: str) -> None:
    output = live_box.run("run_command", {"command": command})
    assert not output.is_error and "[exit code: 0]" in output.content


def test_live_command_outside_runs_only_when_confirmed(workspace: Workspace) -> None:
    asked: list[list[str]] = []

    def answer(yes: bool) -> Callable[[list[str]], bool]:
        return lambda argv: asked.append(argv) is None and yes

    declined = ToolBox(workspace, allowed=LIVE_ALLOWED_PROGRAMS, confirm=answer(False))
    assert declined.run("run_command", {"command": "rm pkg/mod.py"}).is_error
    assert (workspace.root / "pkg" / "mod.py").exists()
    accepted = ToolBox(workspace, allowed=LIVE_ALLOWED_PROGRAMS, confirm=answer(True))
    assert not accepted.run("run_command", {"command": "rm pkg/mod.py"}).is_error
    assert not (workspace.root / "pkg" / "mod.py").exists()
    assert asked == [["rm", "pkg/mod.py"], ["rm", "pkg/mod.py"]]  # asked each time


class _RmModel:
    """A live-mode stand-in model that asks to delete the project, then stops."""

    def respond(self, view: ModelView) -> Reply:
        results = [b for m in view.messages for b in m["content"]
                   if b.get("type") == "tool_result"]
        if not results:
            return Reply([{"type": "tool_use", "name": "run_command",
                           "input": {"command": "rm -rf ."}}])
        return Reply([{"type": "text", "text": "done"}])

    def summarize(self, view: ModelView, instructions: str | None) -> str:
        return "summary"


def test_live_run_refuses_a_model_command_outside_the_allow_list(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Through the runner, as ``ctxlab run --live`` does (the client is made offline here)."""
    monkeypatch.setattr(runner, "_client", lambda sim, live: make_client(sim))
    result = runner.run(5, "bugfix-small", live=True, simulator=Simulator(responder=_RmModel()),
                        workspace=tmp_path / "ws")
    results = [b for m in result.messages if m["role"] == "user" and isinstance(m["content"], list)
               for b in m["content"] if b.get("type") == "tool_result"]
    assert len(results) == 1 and results[0]["is_error"] is True
    assert "allow-list" in results[0]["content"]
    assert result.summary.error is None
    assert any((tmp_path / "ws").iterdir())  # nothing was deleted
