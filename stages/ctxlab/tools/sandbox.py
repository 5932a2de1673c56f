"""Guards that keep tool calls inside the workspace (DESIGN §2, `ctxlab.tools`).

Paths may not leave the workspace root: absolute paths, ``..`` escapes and symlinks (also
symlinked parent directories) that resolve outside are refused, and so is a file with a second
hard link (its bytes may be a file anywhere). A command must be one program with its arguments:
no shell runs it, so pipes, chaining, redirection and substitution are refused instead of being
passed on as odd literal arguments. Every path-like piece of an argument is checked: the word,
what follows ``=`` ``:`` or ``@`` in it, and the value glued to a short option (``-f/etc/x``);
``reach`` adds what a program reaches by itself (folders it walks, lists of names it reads).

In live mode (a real model choosing the commands) a command must also start with a program of
``LIVE_ALLOWED_PROGRAMS``, named bare (no path): any other is refused unless the user confirmed
it (``ctxlab run --live --allow-any-command``) — never run silently.

These are the guide's tool permissions (§5): guard rails against a model's mistakes, not a
security boundary — a program that is allowed to run (``python3 -c ...``) can open any file the
user can. The boundary is the OS jail (``ctxlab.jail``) that ``run_command`` runs every command
in where there is one (``confine``); the guard is its second line, and the fallback without it.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from ctxlab.tools.reach import check_reach, leads_out
from ctxlab.tools.results import ToolError

LIVE_ALLOWED_PROGRAMS = frozenset({"python3", "python", "pytest", "cat", "ls", "grep", "head",
                                   "tail", "wc"})
"""The programs a live model may run without asking: reading and testing, nothing that deletes,
moves, downloads or installs."""

# Characters that separate, connect or redirect commands when they are outside quotes.
_OPERATORS = frozenset(";&|<>\n\r")
_TWO_CHAR_OPERATORS = ("&&", "||", ">>", "<<")
# Substitutions a shell would expand even inside double quotes.
_SUBSTITUTIONS = ("`", "$(")


def is_inside(root: Path, candidate: Path) -> bool:
    """Whether ``candidate``'s real path (all symlinks followed) is ``root`` or below it."""
    return _real_path(candidate).is_relative_to(root)


def _real_path(candidate: Path) -> Path:
    """``candidate`` with every symlink followed; ``ToolError`` when that is impossible."""
    try:
        return candidate.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop, an unreadable component
        raise ToolError(f"cannot resolve {candidate.name!r}: {exc}") from None


def resolve_inside(root: Path, path: str) -> Path:
    """The real path of workspace-relative ``path``; ``ToolError`` when it would leave ``root``.

    ``root`` must already be a resolved path.
    """
    if not path.strip():
        raise ToolError("the path is empty; give a path relative to the workspace root")
    if "\x00" in path:
        raise ToolError("the path contains a NUL byte")
    if PurePosixPath(path).is_absolute():
        raise ToolError(
            f"the path {path!r} is absolute; give a path relative to the workspace root"
        )
    if PurePosixPath(os.path.normpath(path)).parts[:1] == ("..",):
        raise ToolError(f"the path {path!r} uses '..' to leave the workspace")
    real = _real_path(root / path)
    if not real.is_relative_to(root):
        raise ToolError(f"the path {path!r} leads outside the workspace through a symlink")
    if _hard_linked(real):
        raise ToolError(f"the path {path!r} is a file with a second hard link, which may lead "
                        "outside the workspace; it is not used")
    return real


def _hard_linked(path: Path) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_nlink > 1


def split_command(command: str, root: Path) -> list[str]:
    """Parse ``command`` into an argv for one program; ``ToolError`` when it is not allowed."""
    if not command.strip():
        raise ToolError("the command is empty")
    if "\x00" in command:
        raise ToolError("the command contains a NUL byte")
    operator = find_shell_operator(command)
    if operator is not None:
        raise ToolError(
            f"{operator!r} is not allowed: run_command runs a single program with its "
            "arguments and no shell, so pipes, chaining (; && ||), background jobs, "
            "redirection and command substitution do not work; make one call per command"
        )
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ToolError(f"cannot parse the command: {exc}") from None
    folders: list[Path] = []
    for word in argv:
        folders += _check_word(root, word)
    check_reach(root, argv, folders, lambda name, shown: _check_candidate(root, name, shown))
    return argv


def find_shell_operator(command: str) -> str | None:
    """The first shell operator or substitution in ``command`` that is not quoted, if any."""
    quote = ""
    i = 0
    while i < len(command):
        ch = command[i]
        if quote == "'":
            if ch == "'":
                quote = ""
        elif ch == "\\":
            i += 1  # the next character is escaped
        elif command.startswith(_SUBSTITUTIONS, i):
            return "$(" if ch == "$" else ch
        elif quote == '"':
            if ch == '"':
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in _OPERATORS:
            pair = command[i : i + 2]
            return pair if pair in _TWO_CHAR_OPERATORS else ch
        i += 1
    return None


_GLUE = "=:@,"  # what may join a path to the rest of an argument (if=/x, file:/x, @/x)


def candidates(word: str) -> list[str]:
    """The pieces of ``word`` that a program might open as a path."""
    found = [word]
    found += [word[i + 1:] for i, ch in enumerate(word) if ch in _GLUE]
    if word.startswith("-") and not word.startswith("--"):
        found += [word[i:] for i in range(2, len(word))]  # -f/etc/passwd, -rf../x
    return [c for c in dict.fromkeys(found) if c]


def _check_word(root: Path, word: str) -> list[Path]:
    """Refuse an argument that names a path outside the workspace; the folders it names."""
    folders = []
    for candidate in candidates(word):
        real = _check_candidate(root, candidate, word)
        if real is not None and real.is_dir():
            folders.append(real)
    return folders


def _check_candidate(root: Path, candidate: str, word: str) -> Path | None:
    """The real path ``candidate`` names when it exists (or escapes); refused when outside."""
    pure = PurePosixPath(candidate)
    names_path = pure.is_absolute() or ".." in pure.parts or _lexists(root / candidate)
    if not names_path:
        return None
    real = _real_path(root / candidate)
    if not real.is_relative_to(root) or leads_out(root, real, _lstat(real)):
        raise ToolError(
            f"the argument {word!r} points outside the workspace; commands may only "
            "name files inside it (run programs by name, they are found on PATH; a value "
            "glued to an option is checked as a path too, so pass it as its own word)"
        )
    return real


def _lstat(path: Path) -> os.stat_result:
    try:
        return os.lstat(path)
    except OSError:
        return os.stat_result((stat.S_IFREG, 0, 0, 1, 0, 0, 0, 0, 0, 0))  # missing: harmless


def _lexists(path: Path) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def check_allowed(argv: list[str], allowed: frozenset[str],
                  confirm: Callable[[list[str]], bool] | None) -> None:
    """Refuse ``argv`` unless its program is in ``allowed`` or ``confirm(argv)`` says yes."""
    program = argv[0]
    if program in allowed:
        return
    if confirm is not None and confirm(argv):
        return
    named = "a program named by a path" if "/" in program else f"{program!r}"
    raise ToolError(
        f"{named} is not on the allow-list of live mode ({', '.join(sorted(allowed))}); "
        "the command was not run. Use one of those programs, or ask the user to rerun with "
        "--allow-any-command"
    )
