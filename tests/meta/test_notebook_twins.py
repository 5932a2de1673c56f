"""The Chinese notebooks (notebooks/zh-CN/): every English notebook has a twin with the same
code cells and a Chinese cell for each markdown cell; the check and ``zh-sync`` have teeth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxlab.cli import main
from ctxlab.workbook import twins

ENGLISH_TEXT = ("## Why the loop grows\n\nEvery turn resends the whole history, so the input "
                "grows with each tool result (`usage.input_tokens`, guide §1.2).")
CHINESE_TEXT = ("## 循环为什么越滚越大\n\n每一轮都把完整历史重新发一遍，所以每个工具结果都会让输入"
                "变大（`usage.input_tokens`，指南 §1.2）。")


def test_every_english_notebook_has_a_complete_chinese_twin() -> None:
    problems = twins.check()
    assert problems == [], "\n".join(problems)


def notebook(*cells: tuple[str, str]) -> dict:
    made = []
    for i, (kind, text) in enumerate(cells):
        cell = {"cell_type": kind, "id": f"cell-{i:02d}", "metadata": {}, "source": text}
        if kind == "code":
            cell.update(outputs=[], execution_count=None)
        made.append(cell)
    return {"cells": made, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def write(path: Path, nb: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write(tmp_path / "01_loop.ipynb", notebook(("markdown", ENGLISH_TEXT),
                                               ("code", "print('tokens', 1)"),
                                               ("markdown", ENGLISH_TEXT)))
    write(tmp_path / "zh-CN" / "01_loop.ipynb", notebook(("markdown", CHINESE_TEXT),
                                                         ("code", "print('tokens', 1)"),
                                                         ("markdown", CHINESE_TEXT)))
    return tmp_path


def test_a_complete_twin_passes(folder: Path) -> None:
    assert twins.check(folder) == []


def test_a_missing_twin_is_named(folder: Path) -> None:
    write(folder / "02_truncate.ipynb", notebook(("markdown", ENGLISH_TEXT)))
    assert twins.check(folder) == ["notebooks/zh-CN/02_truncate.ipynb: missing (no Chinese "
                                   "twin yet)"]


def test_a_drifted_code_cell_fails(folder: Path) -> None:
    twin = folder / "zh-CN" / "01_loop.ipynb"
    nb = json.loads(twin.read_text())
    nb["cells"][1]["source"] = "print('令牌', 1)"
    write(twin, nb)
    [problem] = twins.check(folder)
    assert problem.startswith("notebooks/zh-CN/01_loop.ipynb: code cell 1 differs")


def test_a_markdown_cell_left_in_english_fails(folder: Path) -> None:
    twin = folder / "zh-CN" / "01_loop.ipynb"
    nb = json.loads(twin.read_text())
    nb["cells"][2]["source"] = ENGLISH_TEXT + " 见上。"  # a Chinese word does not make it Chinese
    write(twin, nb)
    [problem] = twins.check(folder)
    assert problem.startswith("notebooks/zh-CN/01_loop.ipynb: markdown cell 2 holds 3 characters")


def test_a_markdown_cell_without_twin_fails(folder: Path) -> None:
    write(folder / "zh-CN" / "01_loop.ipynb", notebook(("markdown", CHINESE_TEXT),
                                                       ("code", "print('tokens', 1)")))
    [problem] = twins.check(folder)
    assert "cell 2: the English has a markdown cell, the twin no cell" in problem


def test_outputs_in_a_twin_fail(folder: Path) -> None:
    twin = folder / "zh-CN" / "01_loop.ipynb"
    nb = json.loads(twin.read_text())
    nb["cells"][1]["execution_count"] = 1
    write(twin, nb)
    assert twins.check(folder) == ["notebooks/zh-CN/01_loop.ipynb: code cell 1 has outputs; "
                                   "clear them"]


def test_a_broken_twin_is_reported_not_raised(folder: Path, monkeypatch, capsys) -> None:
    (folder / "zh-CN" / "01_loop.ipynb").write_text("{ half a notebook", encoding="utf-8")
    [problem] = twins.check(folder)
    assert problem.startswith("zh-CN/01_loop.ipynb is not a notebook: Expecting")
    monkeypatch.setattr(twins, "english_folder", lambda: folder)
    assert main(["workbook", "zh-sync"]) == 2
    assert "zh-CN/01_loop.ipynb is not a notebook" in capsys.readouterr().err


def test_chinese_is_measured_on_chinese_lines_only() -> None:
    assert twins.chinese_length(ENGLISH_TEXT) == 0
    assert twins.chinese_length("```python\n# 注释\n```\nplain") == 0
    mixed = "它在 `tool_result` 里。\nEnglish line"
    assert twins.chinese_length(mixed) == len("它在`tool_result`里。")
    assert twins.prose_length("[the guide](../docs/a-long-link.md)\n\n```\ncode\n```") == \
        len("[theguide")


def test_sync_mirrors_english_edits_and_lists_what_to_translate(folder: Path) -> None:
    english = notebook(("markdown", ENGLISH_TEXT), ("code", "print('tokens', 2)"),
                       ("markdown", ENGLISH_TEXT), ("code", "x = 1"), ("markdown", "New text."))
    write(folder / "01_loop.ipynb", english)
    [report] = twins.sync(folder)
    assert (report.copied, report.untranslated, report.dropped) == ([1, 3], [4], 0)
    assert report.changed == [0, 2]  # translated before digests were kept: to review
    cells = json.loads((folder / "zh-CN" / "01_loop.ipynb").read_text())["cells"]
    assert [twins.source(c) for c in cells] == [CHINESE_TEXT, "print('tokens', 2)", CHINESE_TEXT,
                                                "x = 1", "New text."]
    assert twins.check(folder) == ["notebooks/zh-CN/01_loop.ipynb: markdown cell 4 holds 0 "
                                   "characters of Chinese, under 30% of the English cell's 8: "
                                   "write it in Chinese"]


def test_sync_starts_a_missing_twin_from_the_english(folder: Path) -> None:
    write(folder / "02_truncate.ipynb", notebook(("markdown", ENGLISH_TEXT), ("code", "y = 2")))
    reports = {r.name: r for r in twins.sync(folder)}
    assert reports["02_truncate.ipynb"].untranslated == [0]
    assert reports["01_loop.ipynb"].copied == []
    assert twins.check(folder)[0].startswith("notebooks/zh-CN/02_truncate.ipynb: markdown cell 0")


def test_the_command_fails_while_a_twin_is_unfinished(folder: Path, monkeypatch,
                                                       capsys) -> None:
    monkeypatch.setattr(twins, "english_folder", lambda: folder)
    write(folder / "02_truncate.ipynb", notebook(("markdown", ENGLISH_TEXT)))
    assert main(["workbook", "check"]) == 1
    out = capsys.readouterr().out
    assert "notebooks/zh-CN/02_truncate.ipynb: missing" in out
    assert "1 problem(s) in the Chinese notebooks" in out
    assert main(["workbook", "zh-sync"]) == 0
    assert "02_truncate.ipynb: write in Chinese: markdown cell(s) 0" in capsys.readouterr().out
