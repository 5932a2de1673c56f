"""Hints, and grade's next step, in Chinese (issue 36): every exercise's hints have a ``zh``
twin of the same count that keeps the code as written, ``ctxlab hint`` shows it to a Chinese
reader (``CTXLAB_LANG=zh`` or a ``zh_*`` locale) and ``workbook export`` hands it out."""

from __future__ import annotations

import re
import tomllib

import pytest
from rich.cells import cell_len
from rich.console import Console

from ctxlab.cli import main
from ctxlab.commands.grade_cmd import next_step
from ctxlab.commands.hint import hint_panel
from ctxlab.workbook import grade, hints
from ctxlab.workbook.lang import language
from ctxlab.workbook.layout import STAGES, impl_root

CJK = re.compile(r"[\u4e00-\u9fff]")
CLOSING = "。，、；：？！）」』》】〕〉”’…,;:?!)]}"  # Chinese typesetting: never a line's start
CODE = re.compile(r"`[^`]+`|[A-Za-z_][\w.]*\w")  # a backticked span, a name
CALL = re.compile(r"[\w.]+\(")  # a call as the hint writes it: session.create(, math.ceil(


def tables() -> dict[str, dict]:
    found = {}
    for stage in STAGES:
        path = impl_root("solutions") / stage.package / "hints.toml"
        found |= tomllib.loads(path.read_text(encoding="utf-8"))
    return found


@pytest.mark.parametrize("number", sorted(tables()))
def test_every_exercise_has_chinese_hints_that_keep_the_code(number: str) -> None:
    table = tables()[number]
    english, chinese = table["hints"], table["zh"]["hints"]
    assert len(chinese) == len(english) == hints.LEVELS
    for level, (en, zh) in enumerate(zip(english, chinese, strict=True), 1):
        assert len(CJK.findall(zh)) >= 3 and zh != en, f"{number} hint {level} is not Chinese"
        lost = [c for c in CALL.findall(en) if c not in zh]
        assert not lost, f"{number} hint {level}: the Chinese leaves out {lost}"


@pytest.mark.parametrize(("environ", "expected"), [
    ({"CTXLAB_LANG": "zh"}, "zh"),
    ({"CTXLAB_LANG": "zh_CN", "LANG": "en_US.UTF-8"}, "zh"),
    ({"CTXLAB_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LC_MESSAGES": "zh_TW.UTF-8", "LANG": "en_GB.UTF-8"}, "zh"),
    ({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LC_ALL": "", "LANG": "zh_HK"}, "zh"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({}, "en"),
])
def test_the_language_follows_ctxlab_lang_then_the_locale(environ: dict[str, str],
                                                           expected: str) -> None:
    assert language(environ) == expected


def test_a_chinese_reader_gets_the_chinese_hint(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(hints, "_state_file", lambda: tmp_path / "hints.json")
    monkeypatch.setenv("CTXLAB_LANG", "zh")
    assert main(["hint", "1.1"]) == 0
    out = re.sub(r"[\s│╭╮╰╯─]+", "", capsys.readouterr().out)  # the panel, unwrapped
    assert "练习1.1—提示1/3" in out
    assert re.sub(r"\s+", "", tables()["1.1"]["zh"]["hints"][0]) in out
    monkeypatch.setenv("CTXLAB_LANG", "en")  # the same level counter, whatever the language
    assert main(["hint", "1.1"]) == 0
    assert "hint 2/3" in capsys.readouterr().out


def test_grade_s_next_step_in_chinese() -> None:
    rows = [grade.Row(1, "exercise 1.2 estimate_tokens()", grade.TODO,
                      "stages/s1_loop/estimate.py: still a stub")]
    assert next_step(rows, zh=True) == ("下一步：练习 1.2 estimate_tokens()（TODO）："
                                        "stages/s1_loop/estimate.py：还是桩代码"
                                        " —— 卡住了？运行 `ctxlab hint 1.2`")
    assert next_step(rows) .startswith("Next: exercise 1.2 estimate_tokens() (todo)")
    assert next_step([grade.Row(1, "exercise 1.2 f()", grade.DONE, "")], zh=True) \
        .startswith("评到的都已完成")


def test_every_chinese_hint_reads_at_80_columns() -> None:
    """Printed at 80 columns (a CJK character takes two), no line starts with closing
    punctuation, no backticked span or name is split over two lines, nothing is lost."""
    for number, table in tables().items():
        for level, text in enumerate(table["zh"]["hints"], 1):
            console = Console(record=True, width=80, color_system=None)
            console.print(hint_panel(number, level, text, zh=True))
            lines = console.export_text().splitlines()
            assert all(cell_len(line) <= 80 for line in lines), (number, level)
            inside = [line[2:-2].rstrip() for line in lines[1:-1]]  # "│ " … " │"
            where = f"{number} hint {level}:\n" + "\n".join(inside)
            assert not [line for line in inside if line[:1] in CLOSING], where
            shown = "\n".join(inside)
            assert re.sub(r"\s", "", shown) == re.sub(r"\s", "", text), where
            for token in set(CODE.findall(text)):
                assert shown.count(token) == text.count(token), f"{token!r} split; {where}"
