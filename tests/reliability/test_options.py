"""Options read the way GNU ``getopt_long`` reads them (``ctxlab.tools.options``)."""

from __future__ import annotations

import pytest

from ctxlab.tools.options import parse
from ctxlab.tools.reach import name_lists, walks
from ctxlab.tools.results import ToolError


@pytest.mark.parametrize(("command", "options"), [
    ("grep --der TOP .", [("dereference-recursive", None)]),
    ("grep -d rec TOP", [("directories", "recurse")]),
    ("grep -drecu TOP", [("directories", "recurse")]),
    ("grep --directories=rec TOP", [("directories", "recurse")]),
    ("grep --dir rec TOP", [("directories", "recurse")]),
    ("grep -e X -e -- -R .", [("regexp", "X"), ("regexp", "--"), ("dereference-recursive",
                                                                 None)]),
    ("grep -nC2 x -- -R", [("line-number", None), ("context", "2")]),  # after --: a file
    ("grep x . -r", [("recursive", None)]),  # options after the operands
    ("grep -5 x a.txt", [("count", "-5")]),
    ("ls -I -- -RL .", [("ignore", "--"), ("recursive", None), ("dereference", None)]),
    ("ls -la --color=never", [("-l", None), ("all", None), ("color", "never")]),
    ("ls --color -R", [("color", ""), ("recursive", None)]),  # optional value: never the next
    ("wc --files0=lists/a.lst", [("files0-from", "lists/a.lst")]),
    ("wc --f lists/a.lst", [("files0-from", "lists/a.lst")]),
    ("head -n 3 a.txt", [("lines", "3")]),
    ("tail -5 a.txt", [("count", "-5")]),
    ("tail +2 a.txt", [("count", "+2")]),
    ("cat -A a.txt", [("show-all", None)]),
])
def test_options_are_read_as_the_program_reads_them(command: str, options: list) -> None:
    assert parse(command.split()) == options


@pytest.mark.parametrize(("command", "says"), [
    ("grep --d=rec TOP", "'--d' is ambiguous (dereference-recursive, directories, devices)"),
    ("grep -d r TOP", "the value 'r' of --directories is ambiguous (read, recurse)"),
    ("grep --nope TOP", "'--nope' is not an option it knows"),
    ("ls -J", "-J is not an option it knows"),
    ("ls --deref", "'--deref' is ambiguous"),  # ls says so too: three options start so
    ("grep --recursive=yes x", "--recursive takes no value"),
    ("grep --directories=everything x", "'everything' of --directories is not an option"),
])
def test_a_spelling_that_cannot_be_read_plainly_is_refused(command: str, says: str) -> None:
    with pytest.raises(ToolError, match="spell the option out|takes no value") as caught:
        parse(command.split())
    assert says in str(caught.value)


def test_what_the_options_reach() -> None:
    for command in ("grep --der x", "grep -d recurse x", "ls -I -- -RL", "ls --rec"):
        argv = command.split()
        assert walks(argv, parse(argv)), command
    for command in ("grep -e x -- -R", "ls -w 80 -l", "grep -d skip x ."):
        argv = command.split()
        assert not walks(argv, parse(argv)), command
    argv = ["wc", "--files0=l.lst"]
    assert name_lists(argv, parse(argv)) == [("l.lst", "--files0-from")]
    assert parse(["python3", "-c", "x"]) is None  # no spec: the guessing rules apply
    assert walks(["du", "-x", "--", "-L"], None)  # and they read past "--"
