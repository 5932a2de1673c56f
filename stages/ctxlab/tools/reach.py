"""What a command can reach besides its arguments: folders it walks, lists of names it reads.

Checking each argument is not enough when a program follows links by itself: ``grep -R`` and
``ls -RL`` descend through a symlinked folder that points out, ``wc --files0-from=list`` opens
every name written in ``list``. So the sandbox also refuses:

- a command that may walk folders (``find``, a recursive or dereferencing option such as
  ``-r``, ``-R``, ``-L``, ``-H``, ``--recursive``, ``--dereference…``, ``-d recurse``,
  ``--directories=recurse``, ``-follow``) while a folder it would walk — each folder argument,
  or the workspace root when it names no existing path — holds a link that leads out: a
  symlink whose target is outside the workspace (dangling ones included: a write through them
  lands outside) or a file with a second hard link (its bytes may be a file anywhere);
- a list of names (``--files0-from=F``, ``--files-from=F``) holding a name that leads out.

The options of ``grep``, ``ls``, ``wc``, ``cat``, ``head`` and ``tail`` are read as their
programs read them (``options``: ``--der``, ``-d rec``, ``-e -- -R``); another program's
words are matched against the spellings above, ``--`` included.

Guard rails against a model's mistakes, not a security boundary (see ``sandbox``). Nothing
here opens a file that could block: a list of names that is not a regular file (a named pipe)
is refused unread.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from ctxlab.tools.options import Options, parse
from ctxlab.tools.results import ToolError

_WALKING_PROGRAMS = frozenset({"find"})
_WALKING: frozenset[str | tuple[str, str]] = frozenset({
    "recursive", "dereference-recursive", ("directories", "recurse"), "dereference",
    "dereference-command-line", "dereference-command-line-symlink-to-dir"})
"""Options, as ``options.parse`` names them, that walk folders or follow links."""
_WALKING_LONG = ("--recursive", "--dereference", "--directories=recurse", "--follow", "-follow")
_WALKING_SHORT = frozenset("rRLH")
_NAME_LISTS = ("files0-from", "files-from")
_MAX_LIST_BYTES = 1_000_000
_MAX_ENTRIES = 100_000


def leads_out(root: Path, path: Path, info: os.stat_result) -> bool:
    """Whether the entry ``path`` (``lstat`` ``info``) is a link that leads out of ``root``."""
    if stat.S_ISLNK(info.st_mode):
        return not Path(os.path.realpath(path)).is_relative_to(root)
    return stat.S_ISREG(info.st_mode) and info.st_nlink > 1


def links_out(root: Path, folder: Path) -> Iterator[Path]:
    """Every entry below ``folder`` (never following a link) that leads out of ``root``."""
    pending, seen = [folder], 0
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > _MAX_ENTRIES:
                raise ToolError(f"the workspace holds over {_MAX_ENTRIES} entries; a command "
                                "that walks folders is not run in it")
            info = entry.stat(follow_symlinks=False)
            if leads_out(root, Path(entry.path), info):
                yield Path(entry.path)
            elif stat.S_ISDIR(info.st_mode):
                pending.append(Path(entry.path))


def walks(argv: list[str], options: Options | None) -> bool:
    """Whether ``argv`` may descend into folders or follow links while it runs: read from its
    ``options`` (``ctxlab.tools.options.parse``) when its program has a spec, else guessed
    from every word that looks like such an option."""
    if os.path.basename(argv[0]) in _WALKING_PROGRAMS:
        return True
    if options is not None:
        return any(name in _WALKING or (name, value) in _WALKING for name, value in options)
    for word in argv[1:]:
        if word.startswith(_WALKING_LONG) or "recurse" in word:  # also grep's -d recurse
            return True
        if word.startswith("-") and not word.startswith("--") and _WALKING_SHORT & set(word):
            return True
    return False


def name_lists(argv: list[str], options: Options | None) -> list[tuple[str, str]]:
    """(list file, the option naming it) for each list of names ``argv`` reads."""
    if options is not None:
        return [(value or "", f"--{name}") for name, value in options
                if name in _NAME_LISTS and value is not None]
    found = []
    for i, word in enumerate(argv):
        for option in _NAME_LISTS:
            if word == f"--{option}" and i + 1 < len(argv):
                found.append((argv[i + 1], word))
            elif word.startswith(f"--{option}="):
                found.append((word.split("=", 1)[1], word))
    return found


def check_reach(root: Path, argv: list[str], folders: list[Path],
                check_path: Callable[[str, str], None]) -> None:
    """Refuse ``argv`` when what it reaches beyond its arguments leads out (module docstring).

    ``folders`` are the existing folders its arguments name; ``check_path(name, shown)`` is
    the argument check, applied to each name of a name list. An option spelling its program
    would read otherwise than plainly (``ctxlab.tools.options``) is refused.
    """
    options = parse(argv)
    if walks(argv, options):
        for folder in folders or [root]:
            link = next(links_out(root, folder), None)
            if link is not None:
                raise ToolError(
                    f"{link.relative_to(root).as_posix()!r} is a link that leads outside the "
                    f"workspace, and {argv[0]!r} with these options would follow it or walk "
                    "the folder holding it; name the files to read instead")
    for name, shown in name_lists(argv, options):
        _check_list(root, name, shown, check_path)


def _check_list(root: Path, name: str, shown: str,
                check_path: Callable[[str, str], None]) -> None:
    """Every name in the list file ``name`` (NUL- or newline-separated) must stay inside."""
    if name == "-":
        return  # standard input: the sandbox gives commands an empty one
    try:  # never blocks: a FIFO or a device is refused, not opened for reading
        descriptor = os.open(root / name, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return  # the program will say it cannot read it
    with os.fdopen(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise ToolError(f"{shown!r}: the list of names is not a regular file, so the names "
                            "in it cannot be checked; write them to a file first")
        data = stream.read(_MAX_LIST_BYTES + 1)
    if len(data) > _MAX_LIST_BYTES:
        raise ToolError(f"{shown!r}: the list of names is over {_MAX_LIST_BYTES} bytes")
    for entry in data.replace(b"\0", b"\n").split(b"\n"):
        if entry.strip():
            check_path(entry.decode("utf-8", errors="replace"), shown)
