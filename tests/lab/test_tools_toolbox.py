"""ToolBox dispatch, input validation, tool definitions and tool_result blocks (DESIGN §2, §4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab.tools import (
    TOOL_DEFINITIONS,
    ToolBox,
    ToolOutput,
    Workspace,
    definitions,
    to_tool_result,
)

FIELDS = {
    "edit_file": ["path", "old", "new"],
    "read_file": ["path"],
    "run_command": ["command"],
    "search_docs": ["query"],
    "write_file": ["path", "content"],
}


def test_definitions_match_the_contract() -> None:
    assert set(TOOL_DEFINITIONS) == set(FIELDS)
    for name, definition in TOOL_DEFINITIONS.items():
        assert set(definition) == {"name", "description", "input_schema"}
        assert definition["name"] == name and definition["description"]
        schema = definition["input_schema"]
        assert schema["type"] == "object"
        assert schema["required"] == FIELDS[name]
        assert list(schema["properties"]) == FIELDS[name]
        assert all(p["type"] == "string" for p in schema["properties"].values())


def test_definitions_are_sorted_copies() -> None:
    chosen = definitions(["write_file", "read_file", "run_command"])
    assert [d["name"] for d in chosen] == ["read_file", "run_command", "write_file"]
    assert [d["name"] for d in definitions()] == sorted(FIELDS)
    chosen[-1]["cache_control"] = {"type": "ephemeral"}
    assert "cache_control" not in TOOL_DEFINITIONS["write_file"]
    with pytest.raises(KeyError, match="grep"):
        definitions(["read_file", "grep"])


def test_every_defined_tool_is_implemented(tmp_path: Path) -> None:
    box = ToolBox(tmp_path)
    for name in TOOL_DEFINITIONS:
        out = box.run(name, {})
        assert out.content == (
            f"Error: invalid input for {name}: missing required field '{FIELDS[name][0]}'"
        )


def test_unknown_tool_uses_the_sdk_wording(tmp_path: Path) -> None:
    out = ToolBox(tmp_path).run("delete_everything", {"path": "."})
    assert out == ToolOutput("Error: Tool 'delete_everything' not found", is_error=True)


@pytest.mark.parametrize(
    ("name", "tool_input", "message"),
    [
        ("write_file", {"path": "a.txt"}, "missing required field 'content'"),
        ("read_file", {"path": 42}, "field 'path' must be a string, got integer"),
        ("edit_file", {"path": "a", "old": None, "new": "x"},
         "field 'old' must be a string, got null"),
        ("run_command", {"command": ["ls", "-l"]}, "field 'command' must be a string, got array"),
        ("read_file", {"path": "a.txt", "limit": 10}, "unexpected field 'limit'"),
        ("read_file", ["a.txt"], "expected a JSON object, got array"),
        ("write_file", {"path": "a.txt", "content": "\ud800"}, "field 'content' is not valid"),
    ],
)
def test_bad_input_is_an_error_naming_the_field(
    tmp_path: Path, name: str, tool_input: object, message: str
) -> None:
    out = ToolBox(tmp_path).run(name, tool_input)  # type: ignore[arg-type]
    assert out.is_error
    assert out.content.startswith(f"Error: invalid input for {name}: {message}")
    assert not (tmp_path / "a.txt").exists()


def test_accepts_a_workspace_or_a_directory(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("from the copy")
    with Workspace(src) as ws:
        assert ToolBox(ws).root == ws.root
        assert ToolBox(ws).run("read_file", {"path": "a.txt"}).content == "from the copy"
    assert ToolBox(src).run("read_file", {"path": "a.txt"}).content == "from the copy"


def test_rejects_non_positive_limits(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        ToolBox(tmp_path, timeout=0)
    with pytest.raises(ValueError):
        ToolBox(tmp_path, output_cap=0)


def test_to_tool_result_blocks() -> None:
    assert to_tool_result("toolu_01", ToolOutput("ok")) == {
        "type": "tool_result", "tool_use_id": "toolu_01", "content": "ok",
    }
    assert to_tool_result("toolu_02", ToolOutput("Error: boom", is_error=True)) == {
        "type": "tool_result", "tool_use_id": "toolu_02", "content": "Error: boom",
        "is_error": True,
    }


def test_tool_output_is_frozen() -> None:
    out = ToolOutput("x")
    with pytest.raises(AttributeError):
        out.content = "y"  # type: ignore[misc]
