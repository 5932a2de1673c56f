"""Notebook 08 (context rot, guide §4): every value its text relies on.

``lesson`` reads what the executed notebook printed (``test_notebooks.LESSONS`` calls it): the
needle tables are the experiment's (both kinds by length, extrapolated rows starred, the cited
tables' values beside them), the readings below them are those tables', the three layers put
long-task at three occupancies with the misses on the side of the band's edge the text says,
and the figures the answers quote are the ones printed above them. The relations the answers
state are asserted by the notebook as it prints them (``ctxlab.claims``). The other tests hold
the prose: the figures it quotes from the guide are §4.1's, the others the bench's own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ctxlab import models, needle, recall, runner
from ctxlab.brain import retrieval
from ctxlab.ladder import rung, runs
from ctxlab.ladder.context_rungs import LONG_TURNS, WINDOW_200K
from ctxlab.ladder.core import Cell
from ctxlab.ladder.rot_rungs import EDGE, SEEDS
from ctxlab.workbook.layout import repo_root

NOTEBOOK = repo_root() / "notebooks" / "08_context_rot.ipynb"
TWIN = repo_root() / "notebooks" / "zh-CN" / "08_context_rot.ipynb"
GUIDE = sorted((repo_root().parent / "shared" / "seeds").glob("002_*.txt"))
LAYERS = ("stage 5, band", "stage 5, no band", "stage 2")
NUMBER = r"[\d,]+(?:\.\d+)?"
SHAPE = re.compile(r"^(literal|latent) (\d+)K: start (\S+), middle (\S+), end (\S+), mean (\S+); "
                   r"lowest at position (\S+)$", re.M)
MIDDLE = needle.POSITIONS[1:-1]  # the notebook's middle: every position but the ends


def _n(text: str) -> float:
    return float(text.replace(",", ""))


def _f(value: float) -> str:
    return f"{value:.2f}"


def _tables(printed: str) -> tuple[int, list[needle.Cell]]:
    """Each kind's table is the experiment's, rerun here at the notebook's seeds: its cells,
    its starred (extrapolated) rows, its means and the cited table's values."""
    seeds = int(re.search(r"share of (\d+) seeds that found the needle", printed)[1])
    cells = needle.experiment(WINDOW_200K, runs=seeds)
    table = recall.table(WINDOW_200K)
    for kind in recall.KINDS:
        cited = dict(table.curve(kind).points)
        positions = r"\s+".join(f"{p:.2f}" for p in needle.POSITIONS)
        head = rf"^{kind}\s+{positions}\s+mean table$"
        assert re.search(head, printed, re.M), f"no {kind} table"
        for tokens in sorted({c.tokens for c in cells if c.kind == kind}):
            row = sorted((c for c in cells if c.kind == kind and c.tokens == tokens),
                         key=lambda c: c.position)
            star = r"\*" if row[0].extrapolated else " "
            mean = sum(c.accuracy for c in row) / len(row)
            values = r"\s+".join(_f(c.accuracy) for c in row)
            shown = _f(cited[tokens]) if tokens in cited else "-"
            assert re.search(rf"^\s*{tokens // 1024}K{star}\s*{values}\s+{_f(mean)}\s+{shown}$",
                             printed, re.M), f"{kind} {tokens // 1024}K: not the experiment's row"
            assert row[0].extrapolated == (tokens not in cited)  # the stars are the table's gaps
    return seeds, cells


def _shape(printed: str, cells: list[needle.Cell]) -> dict[tuple[str, int], dict[str, float]]:
    """The readings are the tables': start, middle (between the ends), end, mean, lowest."""
    shape = {}
    for kind, tokens in {(c.kind, c.tokens) for c in cells}:
        row = {c.position: c.accuracy for c in cells if (c.kind, c.tokens) == (kind, tokens)}
        shape[kind, tokens] = {"start": row[needle.POSITIONS[0]],
                               "middle": sum(row[p] for p in MIDDLE) / len(MIDDLE),
                               "end": row[needle.POSITIONS[-1]],
                               "mean": sum(row.values()) / len(row),
                               "lowest": min(row, key=row.get)}
    printed_shape = {(m[1], int(m[2]) * 1024): m.groups()[2:] for m in SHAPE.finditer(printed)}
    assert printed_shape == {k: tuple(_f(s[key]) for key in ("start", "middle", "end", "mean",
                                                             "lowest"))
                             for k, s in shape.items()}
    return shape


def _runs(printed: str) -> dict[str, dict[str, float]]:
    """The three layers put long-task at three occupancies; past the band's edge only the
    layers without the band missed facts, and a miss fetched again cost calls."""
    seed = re.search(r"^long-task, \S+, seed (\d)$", printed, re.M)
    assert seed, "no seed line"
    for name, key in zip(LAYERS, ("5", "5:no-band", "2"), strict=True):  # the rung's verdicts,
        # as the ladder computes them over its seeds
        status = rung("context-rot").verdict(key).status
        assert re.search(rf"^{name}: {status} — .*seeds 0–7", printed, re.M | re.S), name
    did = re.findall(rf"^(stage \d[^\d\n]*?) +(\d+)% +(\d+) +(\d+) +(yes|no) +({NUMBER}) +"
                     r"(\d+\.\d+)$", printed, re.M)
    paid = re.findall(rf"^(stage \d[^\d\n]*?) +(\d+) +(-?\d+) +(-?{NUMBER}) +(-?\d+\.\d+) +"
                      rf"({NUMBER})$", printed, re.M)
    assert [r[0] for r in did] == [r[0] for r in paid] == list(LAYERS)
    layers = {}
    for (name, peak, past, below, done, tokens, dollars), (_, misses, calls, extra, extra_usd,
                                                            off) in zip(did, paid, strict=True):
        layers[name] = {"peak": _n(peak), "past": _n(past), "below": _n(below),
                        "done": done == "yes", "tokens": _n(tokens), "dollars": _n(dollars),
                        "calls": _n(calls), "extra": _n(extra)}
        assert _n(misses) == _n(past) + _n(below)
        assert _n(off) + _n(extra) == _n(tokens)  # the difference is the rot-off run's
        if _n(calls):  # a miss fetched again costs its tokens too (one the agent went on
            assert _n(misses) and _n(extra) > 0 and _n(extra_usd) > 0  # without costs none)
        lines = re.findall(rf"^{name} +\d+  \S+ +(literal|latent) +({NUMBER}) +(\d\.\d\d) +"
                           r"(\d+)%$", printed, re.M)
        assert len(lines) == _n(misses)
        assert sum(int(o) > 100 * EDGE for *_, o in lines) == _n(past)
    band, loose, cut = (layers[name] for name in LAYERS)
    assert band["peak"] < 100 * EDGE < loose["peak"] < cut["peak"]  # "three occupancies"
    assert band["past"] == 0 and loose["past"] > 0  # how the seed was chosen
    assert any(layer["calls"] for layer in layers.values()), "no miss was fetched again"
    return layers


def _answers(printed: str, shape: dict[tuple[str, int], dict[str, float]],
             layers: dict[str, dict[str, float]]) -> None:
    """Each answer is there and quotes the figures printed above it."""
    answers = {int(m[1]): " ".join(m[2].split())  # as one line, however it was wrapped
               for m in re.finditer(r"^([1-5])\. (.*(?:\n   .*)*)$", printed, re.M)}
    assert sorted(answers) == [1, 2, 3, 4, 5]
    table = recall.table(WINDOW_200K)
    inside = {kind: sorted(t for k, t in shape if k == kind and not table.extrapolated(kind, t))
              for kind in recall.KINDS}
    lat, lit = inside["latent"], inside["literal"]
    u = int(re.search(r"\((\d+)K, latent\)", answers[4])[1]) * 1024
    assert u == min(lat, key=lambda t: shape["latent", t]["mean"])  # where it loses most
    band, loose, cut = (layers[name] for name in LAYERS)

    def has(number: int, *figures: str) -> None:
        for figure in figures:
            assert figure in answers[number], f"answer {number} lacks {figure!r}"

    has(1, f"from {_f(shape['latent', lat[0]]['mean'])} at {lat[0] // 1024}K tokens to "
           f"{_f(shape['latent', lat[-1]]['mean'])} at {lat[-1] // 1024}K",
        f"from {_f(shape['literal', lit[0]]['mean'])} at {lit[0] // 1024}K to "
        f"{_f(shape['literal', lit[-1]]['mean'])} at {lit[-1] // 1024}K")
    has(2, f"found {_f(shape['latent', lat[0]]['middle'])} at {lat[0] // 1024}K tokens and "
           f"{_f(shape['latent', lat[-1]]['middle'])} at {lat[-1] // 1024}K",
        f"missed {loose['past']:.0f} facts, the band's {band['past']:.0f}",
        f"(position {_f(shape['latent', u]['lowest'])})")
    overflow = re.search(r"^stage 1, turn (\d+): (invalid_request_error)\n +prompt is too long",
                         printed, re.M)
    assert overflow, "stage 1 no longer overflows on the long task"
    misses = sum(r["past"] + r["below"] for r in layers.values())
    finished = sum(r["done"] for r in layers.values())
    assert re.search(rf"^the 3 runs of section 2: {misses:.0f} misses, 0 API errors, "
                     rf"{finished} finished$", printed, re.M)
    has(3, f"turn {overflow[1]} with an {overflow[2]}",
        f"missed {misses:.0f} facts with 0 API errors and {finished} of them finished",
        f"{sum(r['calls'] for r in layers.values()):.0f} calls and "
        f"{sum(r['extra'] for r in layers.values()):,.0f} tokens")
    has(4, f"the start keeps most ({_f(shape['latent', u]['start'])}), the end less "
           f"({_f(shape['latent', u]['end'])}), the middle least "
           f"({_f(shape['latent', u]['middle'])})")
    has(5, f"up to {loose['peak']:.0f}% full, sent {loose['tokens']:,.0f} tokens against "
           f"{band['tokens']:,.0f} with it (up to {band['peak']:.0f}%)",
        f"${loose['dollars']:.4f} against ${band['dollars']:.4f}",
        f"stage 2, up to {cut['peak']:.0f}%, sent {cut['tokens']:,.0f} (${cut['dollars']:.4f})")


def lesson(printed: str) -> None:
    """What notebook 08 printed holds up (``test_notebooks.LESSONS``)."""
    _, cells = _tables(printed)
    shape = _shape(printed, cells)
    layers = _runs(printed)
    _answers(printed, shape, layers)


def _cells(path: Path, kind: str) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == kind]


@pytest.mark.skipif(not GUIDE, reason="the guide (../shared/seeds/002_*.txt) is not here")
def test_the_chroma_figures_are_the_guides() -> None:
    """Answer 1 quotes Chroma's figures from §4.1: every number in it is in that section."""
    guide = GUIDE[0].read_text(encoding="utf-8")
    start = guide.index("4.1 直觉与现实")
    section = guide[start:guide.index("4.2 为什么会这样", start)]
    quoted = re.search(r'"1\. Chroma \(guide §4\.1\): (.*?)"\)', "\n".join(_cells(NOTEBOOK,
                                                                                   "code")), re.S)
    assert quoted, "answer 1 no longer quotes §4.1"
    quoted = re.search(r'(.*?)",\s+"1\. Chroma', quoted[1], re.S) or quoted  # the English
    text = re.sub(r'"\s+"', "", quoted[1])
    numbers = set(re.findall(r"\d+(?:\.\d+)?", text))
    assert {"18", "44.43", "34.32", "13.9", "85", "140", "6"} <= numbers
    assert numbers <= set(re.findall(r"\d+(?:\.\d+)?", section)), numbers


def test_the_prose_figures_are_the_benchs() -> None:
    """A number in the notebook's prose (English or Chinese) is a setting of these runs: a
    stage, the experiment's shortest and longest request, the band, the window, the turns, the
    seeds, the rung's significance level."""
    code = "\n".join(_cells(NOTEBOOK, "code"))
    seeds = int(re.search(r"^RUNS = (\d+)", code, re.M)[1])
    window = models.get(WINDOW_200K).context_window
    from s5_pipeline.thresholds import BAND  # the stage's band, whichever implementation

    from ctxlab.ladder.paired import ALPHA  # the rung's significance level

    allowed = {"0", "1", "2", "5", str(seeds), str(LONG_TURNS), f"{window // 1000}K",
               *(f"{t // 1024}K" for t in (needle.LENGTHS[0], needle.LENGTHS[-1])),
               *(f"{100 * o:.0f}" for o in BAND), str(ALPHA)}
    assert "MIDDLE = needle.POSITIONS[1:-1]" in code  # the middle the prose names
    for path in (NOTEBOOK, TWIN):
        for text in _cells(path, "markdown"):
            prose = re.sub(r"§\d+(?:\.\d+)*|^#+ [\d.]+|\]\([^)]*\)|`[^`]*rot[^`]*`|"
                           r"\.\./shared/\S+|0[0-9]_\w+", " ", text, flags=re.M)
            found = set(re.findall(r"\d+(?:\.\d+)?K?", prose))
            assert found <= allowed, (path.name, found - allowed)
    twin = "\n".join(_cells(TWIN, "markdown"))
    assert f"--runs {seeds}" in "\n".join(_cells(NOTEBOOK, "markdown")) and \
        f"--runs {seeds}" in twin


def test_a_run_without_a_miss_is_the_same_run_with_rot_off() -> None:
    """The notebook reruns its runs with ``--rot off`` to price their misses: the retrieval
    model changes a run through its misses alone, so a run that missed nothing (stage 5 with
    its band, at the first of the rung's seeds where it missed nothing) is the same run."""
    cell = Cell.parse("5")

    def run(seed: int) -> runner.RunResult:
        return runs.get(cell, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS,
                        seed=seed).result

    seed = next(seed for seed in SEEDS if not run(seed).summary.misses)
    on = run(seed)
    with retrieval.switched(False):
        off = run(seed)
    assert off.summary == on.summary and off.messages == on.messages


def test_the_interview_kits_quiet_run_misses_without_an_error() -> None:
    """Q14 of docs/interview/stage-5.md (rot against overflow, §4.3): on the long task stage 1
    is refused, and stage 5 without its band, at the seed the page names, misses facts in view
    past the band's edge, reports no error and finishes."""
    page = (repo_root() / "docs" / "interview" / "stage-5.md").read_text(encoding="utf-8")
    q14 = page.split("## Q14.", 1)[1].split("## Q15.", 1)[0]
    assert f'dict(model="{WINDOW_200K}", max_turns={LONG_TURNS})' in q14
    seed = int(re.search(r"seed=(\d+)", q14)[1])
    loud = runner.run(1, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS)
    quiet = runner.run(5, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS, seed=seed,
                       layer_options={"band": False})
    assert loud.summary.error and loud.summary.error["type"] == "invalid_request_error"
    assert quiet.summary.error is None and quiet.summary.success
    assert any(m["occupancy"] > EDGE for m in quiet.summary.misses)
