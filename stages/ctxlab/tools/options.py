"""Reading a command's options the way its program will (``getopt_long``), so the sandbox
judges what will run, not what the words look like.

GNU programs accept a unique prefix of a long option (``grep --der`` is
``--dereference-recursive``) and of some options' values (``-d rec`` is ``-d recurse``), take
an option's value from the next word whatever it is (``grep -e --`` searches for ``--``: the
``-R`` after it is still an option), glue a short option's value to it (``-drecurse``) and
read options after the operands. ``parse`` does the same for each program of ``SPECS`` — the
live allow-list's readers, ``grep``, ``ls``, ``wc``, ``cat``, ``head`` and ``tail`` — and
refuses a spelling its program would not read unambiguously: an unknown option, an ambiguous
prefix, a value that is no accepted choice. A refusal costs a model one retry with the option
spelled out; guessing wrong would let a link lead it out of the workspace (``reach``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ctxlab.tools.results import ToolError

NO, VALUE, OPTIONAL = "no", "value", "optional"  # a long option's argument
Options = list[tuple[str, str | None]]
_COUNT = re.compile(r"[-+]\d+[a-zA-Z]*")  # head/tail's obsolete -5, +5, -5c


@dataclass(frozen=True)
class Spec:
    """One program's options: long names with their argument, short letters (``letter →
    long name``, or ``-letter`` when it has none), the letters that take a value, the
    values some options accept (also by unique prefix) and whether ``-NUM`` is a count."""

    long: dict[str, str]
    short: dict[str, str]
    short_values: str = ""
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    counts: bool = False


def _long(no: str, value: str = "", optional: str = "") -> dict[str, str]:
    return {**dict.fromkeys(no.split(), NO), **dict.fromkeys(value.split(), VALUE),
            **dict.fromkeys(optional.split(), OPTIONAL)}


def _short(pairs: str, bare: str = "") -> dict[str, str]:
    """``"r=recursive R=dereference-recursive"`` and letters without a long name."""
    named = dict(pair.split("=") for pair in pairs.split())
    return {**named, **{letter: f"-{letter}" for letter in bare}}


_COMMON = "help version"
SPECS = {
    "grep": Spec(
        _long(f"{_COMMON} extended-regexp fixed-strings basic-regexp perl-regexp ignore-case "
              "no-ignore-case word-regexp line-regexp null-data no-messages invert-match "
              "byte-offset line-number line-buffered with-filename no-filename only-matching "
              "quiet silent text recursive dereference-recursive files-without-match "
              "files-with-matches count initial-tab null no-group-separator binary",
              "regexp file max-count label binary-files directories devices include exclude "
              "exclude-from exclude-dir before-context after-context context group-separator",
              "color colour"),
        _short("E=extended-regexp F=fixed-strings G=basic-regexp P=perl-regexp e=regexp "
               "f=file i=ignore-case w=word-regexp x=line-regexp z=null-data s=no-messages "
               "v=invert-match V=version m=max-count b=byte-offset n=line-number "
               "H=with-filename h=no-filename o=only-matching q=quiet a=text d=directories "
               "D=devices r=recursive R=dereference-recursive L=files-without-match "
               "l=files-with-matches c=count T=initial-tab Z=null B=before-context "
               "A=after-context C=context U=binary", "yuIX"),
        "efmdDBACX", {"directories": ("read", "recurse", "skip"), "devices": ("read", "skip")},
        counts=True),
    "ls": Spec(
        _long(f"{_COMMON} all almost-all author escape ignore-backups directory dired "
              "file-type full-time group-directories-first no-group human-readable si "
              "dereference-command-line dereference-command-line-symlink-to-dir inode "
              "kibibytes dereference numeric-uid-gid literal hide-control-chars "
              "show-control-chars quote-name reverse recursive size context zero",
              "block-size format hide indicator-style ignore quoting-style sort time "
              "time-style tabsize width", "color classify hyperlink"),
        _short("a=all A=almost-all b=escape B=ignore-backups d=directory D=dired F=classify "
               "G=no-group h=human-readable H=dereference-command-line i=inode I=ignore "
               "k=kibibytes L=dereference n=numeric-uid-gid N=literal q=hide-control-chars "
               "Q=quote-name r=reverse R=recursive s=size T=tabsize w=width Z=context",
               "cCfglmopStuUvxX1"), "ITw"),
    "wc": Spec(_long(f"{_COMMON} bytes chars lines max-line-length words",
                     "files0-from total"),
               _short("c=bytes m=chars l=lines L=max-line-length w=words")),
    "cat": Spec(_long(f"{_COMMON} show-all number-nonblank show-ends number squeeze-blank "
                      "show-tabs show-nonprinting"),
                _short("A=show-all b=number-nonblank E=show-ends n=number s=squeeze-blank "
                       "T=show-tabs v=show-nonprinting", "etu")),
    "head": Spec(_long(f"{_COMMON} quiet silent verbose zero-terminated", "bytes lines"),
                 _short("c=bytes n=lines q=quiet v=verbose z=zero-terminated"), "cn",
                 counts=True),
    "tail": Spec(_long(f"{_COMMON} quiet silent retry verbose zero-terminated",
                       "bytes lines max-unchanged-stats pid sleep-interval", "follow"),
                 _short("c=bytes f=follow n=lines q=quiet s=sleep-interval v=verbose "
                        "z=zero-terminated", "F"), "cns", counts=True),
}


def _unique(word: str, names: list[str] | tuple[str, ...], what: str) -> str:
    """``word`` itself or the one name it abbreviates (getopt_long's and argmatch's rule)."""
    if word in names:
        return word
    found = [n for n in names if n.startswith(word)] if word else []
    if len(found) == 1:
        return found[0]
    raise ToolError(f"{what} is {'ambiguous' if found else 'not an option it knows'}"
                    + (f" ({', '.join(found)})" if found else "")
                    + "; spell the option out in full, as its --help does")


def parse(argv: list[str]) -> Options | None:
    """Every option of ``argv`` as (long name or ``-letter``, value) — ``None`` when its
    program has no ``Spec`` — after getopt_long's rules (module docstring)."""
    program = os.path.basename(argv[0])
    spec = SPECS.get(program)
    if spec is None:
        return None
    found: Options = []
    words = iter(argv[1:])
    for word in words:
        if word == "--":
            break
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            name = _unique(name, list(spec.long), f"{program}: {word.split('=')[0]!r}")
            kind = spec.long[name]
            if kind == NO and eq:
                raise ToolError(f"{program} --{name} takes no value")
            if kind == VALUE and not eq:
                value = next(words, "")
            found.append((name, _choice(spec, name, value, program) if kind != NO else None))
        elif spec.counts and _COUNT.fullmatch(word):
            found.append(("count", word))
        elif word.startswith("-") and word != "-":
            found += _cluster(spec, word, words, program)
    return found


def _cluster(spec: Spec, word: str, rest: Iterator[str],
             program: str) -> Options:
    """The short options of ``-abc``; a value-taking letter takes the rest of the word, or
    the next word whatever it is."""
    found: Options = []
    for i, letter in enumerate(word[1:], start=1):
        if letter.isdigit() and spec.counts:
            continue  # grep -5, head -5: a count
        if letter not in spec.short:
            raise ToolError(f"{program}: -{letter} is not an option it knows; spell the option "
                            "out in full, as its --help does")
        name = spec.short[letter]
        if letter in spec.short_values:
            value = word[i + 1:] or next(rest, "")
            found.append((name, _choice(spec, name, value, program)))
            return found
        found.append((name, None))
    return found


def _choice(spec: Spec, name: str, value: str, program: str) -> str:
    choices = spec.choices.get(name)
    return value if choices is None else _unique(value, choices,
                                                 f"{program}: the value {value!r} of --{name}")
