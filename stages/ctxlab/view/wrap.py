"""Breaking lines of text that mixes Chinese and code, at a terminal's width (DESIGN §6).

A Chinese sentence has no spaces, so a line may break between any two characters, with the
rules of Chinese typesetting: no line starts with closing punctuation (``。`` ``，`` ``）``…)
and none ends with opening punctuation (``（`` ``“``…). Code is never broken: a backticked
span, a name (``session.create``) or a call with its arguments
(``toolbox.run(name, input)``) stays whole on one line. Widths are display columns: a CJK
character takes two.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

CLOSING = frozenset("。，、；：？！）」』》】〕〉”’…·,.;:?!)]}%")  # never at a line's start
OPENING = frozenset("（「『《【〔〈“‘([{")  # never at a line's end
BACKTICKED = re.compile(r"`[^`\n]*`")
CALL = re.compile(r"[A-Za-z_][\w.]*[(\[]")  # a name followed by its arguments or index
BRACKETS = {"(": ")", "[": "]", "{": "}"}


def _wide(char: str) -> bool:
    return cell_len(char) == 2


def _plain_end(text: str, start: int) -> int:
    """Where a run of code or Latin text ends: at a space or a wide character."""
    end = start
    while end < len(text) and not text[end].isspace() and not _wide(text[end]):
        end += 1
    return end


def _call_end(text: str, start: int) -> int | None:
    """Where a call such as ``f(a, b)[0]`` that starts at ``start`` ends (its brackets
    closed, on one line); None when they do not close."""
    stack: list[str] = []
    for index in range(start, len(text)):
        char = text[index]
        if char in BRACKETS:
            stack.append(BRACKETS[char])
        elif stack and char == stack[-1]:
            stack.pop()
            if not stack:
                return max(index + 1, _plain_end(text, index + 1))
        elif char == "\n":
            return None
    return None


def units(text: str) -> Iterator[str]:
    """The pieces a line may break between: code and Latin words whole, spaces, and each
    wide character on its own."""
    index = 0
    while index < len(text):
        char = text[index]
        if char.isspace():
            end = index + 1
            while end < len(text) and text[end].isspace() and text[end] != "\n":
                end += 1
            end = index + 1 if char == "\n" else end
        elif (span := BACKTICKED.match(text, index)) is not None:
            end = span.end()
        elif _wide(char):
            end = index + 1
        else:
            call = _call_end(text, index) if CALL.match(text, index) else None
            end = call or _plain_end(text, index)
        end = max(end, index + 1)
        yield text[index:end]
        index = end


def _fold(piece: str, width: int) -> list[str]:
    """A piece wider than a whole line, cut into lines of ``width`` columns (the last
    resort: only a token longer than the line is ever cut)."""
    lines, line = [], ""
    for char in piece:
        if line and cell_len(line + char) > width:
            lines.append(line)
            line = ""
        line += char
    return [*lines, line]


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns (hard line breaks kept)."""
    lines: list[list[str]] = [[]]
    for piece in units(text):
        line = lines[-1]
        if piece == "\n":
            lines.append([])
        elif piece.isspace():
            if line:
                line.append(" ")
        elif cell_len("".join(line) + piece) <= width:
            line.append(piece)
        else:
            carried = _carry(line, piece)
            if line:
                lines.append(carried)
            else:  # nothing on this line yet: the piece alone is wider than it
                lines[-1] = carried
            if cell_len("".join(carried)) > width:  # a piece wider than the line
                lines[-1:] = [[part] for part in _fold("".join(carried), width)]
    return ["".join(line).strip() for line in lines]


def _carry(line: list[str], piece: str) -> list[str]:
    """The start of the next line: ``piece``, and the pieces the line must give it so that
    the next one does not start with punctuation that closes what the line ends with, nor
    this one end with opening punctuation (the line keeps at least one piece)."""
    carried = [piece]
    while len(line) > 1 and ((carried[0][0] in CLOSING and line[-1] != " ")
                             or line[-1][-1] in OPENING):
        carried.insert(0, line.pop())
        if len(line) > 1 and line[-1] == " ":  # a space: the line may break there
            carried.insert(0, line.pop())
    while line and line[-1] == " ":
        line.pop()
    while carried[0] == " ":
        carried.pop(0)
    return carried


class Wrapped:
    """Text wrapped by :func:`wrap` at the width it is drawn in (a panel's inside)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(wrap(self.text, options.max_width)))
