"""Lines of Chinese and code broken at a width (``ctxlab.view.wrap``): CJK characters take two
columns, closing punctuation never starts a line, opening punctuation never ends one, code
stays whole."""

from __future__ import annotations

from rich.cells import cell_len

from ctxlab.view.wrap import wrap


def test_a_full_line_gives_its_last_character_to_the_closing_mark() -> None:
    lines = wrap("一二三四五。六七", 10)  # five characters fill 10 columns; `。` may not lead
    assert lines == ["一二三四", "五。六七"]


def test_an_opening_mark_goes_down_with_what_it_opens() -> None:
    assert wrap("一二三四（五六）", 10) == ["一二三四", "（五六）"]
    assert wrap("一二（三四五六", 6) == ["一二", "（三四", "五六"]


def test_a_call_with_its_arguments_stays_on_one_line() -> None:
    text = "逐个用 toolbox.run(name, input) 执行，再用 to_tool_result(id, output) 包起来"
    for width in range(26, 60):  # the widest call takes 26 columns
        lines = wrap(text, width)
        assert all(cell_len(line) <= width for line in lines)
        assert any("toolbox.run(name, input)" in line for line in lines), lines
        assert any("to_tool_result(id, output)" in line for line in lines), lines
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_only_a_token_wider_than_the_line_is_cut() -> None:
    assert wrap("a" * 25, 10) == ["a" * 10, "a" * 10, "a" * 5]
    assert wrap("see `a b c` now", 9) == ["see", "`a b c`", "now"]
