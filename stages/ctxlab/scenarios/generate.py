"""Deterministic bulk text: logs, CSV, prose, configs and Python, in English or Chinese (DESIGN §5).

Big workspace files are generated from a seed when a workspace is created instead of being
committed. Output is built from whole chunks (a log line, a CSV row, a function), so it never
ends mid-function and Python output always parses; fact markers are inserted as their own line
(a comment in Python) at the head, middle or tail, which decides whether a head+tail preview
still shows them (§7.4).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from functools import lru_cache

from . import vocab

Chunks = Callable[[random.Random], Iterator[str]]


def _log(rng: random.Random) -> Iterator[str]:
    while True:
        day, hour, minute, second = (rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
                                     rng.randint(0, 59))
        level = rng.choice(vocab.LEVELS)
        yield (f"2025-03-{day:02d} {hour:02d}:{minute:02d}:{second:02d} {level} "
               f"{rng.choice(vocab.SERVICES)} {rng.choice(vocab.EVENTS)} "
               f"route={rng.choice(vocab.ROUTES)} status={rng.choice(vocab.STATUSES)} "
               f"took={rng.randint(2, 950)}ms user={rng.choice(vocab.USERS)}\n")


def _csv(rng: random.Random) -> Iterator[str]:
    yield "date,region,product,units,unit_price,channel,note\n"
    while True:
        yield (f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},"
               f"{rng.choice(vocab.REGIONS)},{rng.choice(vocab.PRODUCTS)},{rng.randint(1, 400)},"
               f"{rng.randint(1, 999)}.{rng.randint(0, 99):02d},{rng.choice(vocab.CHANNELS)},"
               f"{' '.join(rng.sample(vocab.WORDS, 4))}\n")


def _prose(rng: random.Random) -> Iterator[str]:
    while True:
        sentences = (" ".join(rng.sample(vocab.WORDS, rng.randint(8, 16))).capitalize() + "."
                     for _ in range(rng.randint(3, 6)))
        yield " ".join(sentences) + "\n\n"


def _chinese(rng: random.Random) -> Iterator[str]:
    while True:
        sentences = ("".join(rng.sample(vocab.ZH_WORDS, rng.randint(6, 12))) + "。"
                     for _ in range(rng.randint(3, 6)))
        yield "".join(sentences) + "\n\n"


def _config(rng: random.Random) -> Iterator[str]:
    count = 0
    while True:
        count += 1
        lines = [f"[{rng.choice(vocab.SECTIONS)}.{count}]\n"]
        for key in rng.sample(vocab.CONFIG_KEYS, 5):
            lines.append(f"{key} = {rng.choice(vocab.CONFIG_VALUES)}\n")
        lines.append(f"# {' '.join(rng.sample(vocab.WORDS, 9))}\n\n")
        yield "".join(lines)


def _python(comment_words: list[str], joiner: str) -> Chunks:
    def chunks(rng: random.Random) -> Iterator[str]:
        yield '"""Generated module: helpers for the reporting jobs."""\n\n'
        count = 0
        while True:
            count += 1
            name = f"{rng.choice(vocab.VERBS)}_{rng.choice(vocab.NOUNS)}_{count}"
            field = rng.choice(vocab.NOUNS)
            doc = joiner.join(rng.sample(comment_words, rng.randint(5, 9)))
            note = joiner.join(rng.sample(comment_words, rng.randint(4, 8)))
            yield (f"\ndef {name}(rows, limit={rng.randint(2, 500)}):\n"
                   f'    """{doc}"""\n'
                   f"    # {note}\n"
                   f"    total = 0\n"
                   f"    for row in rows:\n"
                   f'        if row.get("{field}", 0) > limit:\n'
                   f'            total += row["{field}"] * {rng.randint(2, 9)}\n'
                   f"    return total\n\n")

    return chunks


KINDS: dict[str, Chunks] = {
    "log": _log,
    "csv": _csv,
    "prose": _prose,
    "chinese": _chinese,
    "config": _config,
    "python": _python(vocab.WORDS, " "),
    "python-zh": _python(vocab.ZH_WORDS, ""),
}
PLACES = ("head", "middle", "tail")


@lru_cache(maxsize=64)
def text(kind: str, chars: int, seed: str, markers: tuple[str, ...] = (),
         place: str = "middle") -> str:
    """At most ``chars`` characters of ``kind`` from ``seed``, with each marker on its own line.

    Pure, so remembered: every run of a scenario writes the same files, generated once."""
    python = kind.startswith("python")
    lines = [f"# {m}\n" if python else f"{m}\n" for m in markers]
    budget = chars - sum(len(line) for line in lines)
    rng = random.Random(f"{kind}:{seed}")
    body: list[str] = []
    size = 0
    for chunk in KINDS[kind](rng):
        if size + len(chunk) > budget:
            break
        body.append(chunk)
        size += len(chunk)
    for k, line in enumerate(lines):
        body.insert(_position(len(body), place, k, len(lines)), line)
    return "".join(body)


def _position(count: int, place: str, k: int, n: int) -> int:
    """Where the k-th of n marker lines goes among ``count`` chunks."""
    if place == "head":
        return min(count, 2 + k)
    if place == "tail":
        return max(0, count - 2 + k)
    return count * (k + 1) // (n + 1)
