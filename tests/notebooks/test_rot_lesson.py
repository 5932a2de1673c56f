"""Notebook 08 (context rot, guide §4): every value its text relies on.

``lesson`` reads what the executed notebook printed (``test_notebooks.LESSONS`` calls it): the
needle table is the experiment's, the shape §4.4 and §4.6 describe holds in it, the three
layers put long-task at three occupancies with the misses on the side of the band's edge the
answers say, and every figure an answer quotes is the one its table printed. The other tests
hold the prose: the figures it quotes from the guide are §4.1's, the others the bench's own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ctxlab import models, needle, runner
from ctxlab.brain import retrieval
from ctxlab.ladder import runs
from ctxlab.ladder.context_rungs import LONG_TURNS, WINDOW_200K
from ctxlab.ladder.core import Cell
from ctxlab.ladder.rot_rungs import EDGE
from ctxlab.workbook.layout import repo_root

NOTEBOOK = repo_root() / "notebooks" / "08_context_rot.ipynb"
TWIN = repo_root() / "notebooks" / "zh-CN" / "08_context_rot.ipynb"
GUIDE = sorted((repo_root().parent / "shared" / "seeds").glob("002_*.txt"))
LAYERS = ("stage 5, band", "stage 5, no band", "stage 2")
NUMBER = r"[\d,]+(?:\.\d+)?"
TOTALS = re.compile(rf"^(?P<name>[^:\n]+): peak (?P<peak>\d+)%; missed (?P<past>\d+) past "
                    rf"\d+%, (?P<below>\d+) below; (?P<tokens>{NUMBER}) tokens, "
                    rf"\$(?P<dollars>{NUMBER}); the misses added (?P<calls>\d+) calls and "
                    rf"(?P<extra>{NUMBER}) tokens; (?P<failed>\d+) failed$", re.M)
SHAPE = re.compile(r"^(\d+)% full: start (\S+), middle (\S+), end (\S+), mean (\S+); lowest "
                   r"at position (\S+)$", re.M)


def _n(text: str) -> float:
    return float(text.replace(",", ""))


def _grid(printed: str) -> tuple[int, dict[tuple[float, float], str]]:
    layersper_cell = int(re.search(r"share of (\d+) seeds that found the needle", printed)[1])
    grid = {}
    for occupancy in needle.OCCUPANCIES:
        row = re.search(rf"^\s*{occupancy:.0%} ((?:\s+\d\.\d\d){{{len(needle.POSITIONS)}}})$",
                        printed, re.M)
        assert row, f"no row for {occupancy:.0%} in the needle table"
        grid.update({(occupancy, p): v for p, v in zip(needle.POSITIONS, row[1].split(),
                                                       strict=True)})
    return layersper_cell, grid


def _needle_table(printed: str) -> dict[float, dict[str, float]]:
    """The table is the experiment's (rerun here), and its shape is §4.4's and §4.6's."""
    layersper_cell, grid = _grid(printed)
    cells = needle.experiment(WINDOW_200K, runs=layersper_cell)
    assert grid == {(c.occupancy, c.position): f"{c.accuracy:.2f}" for c in cells}
    found = {(c.occupancy, c.position): c.accuracy for c in cells}
    middle = [p for p in needle.POSITIONS if 0.3 <= p <= 0.7]
    shape = {}
    for occupancy in needle.OCCUPANCIES:
        row = {p: found[occupancy, p] for p in needle.POSITIONS}
        shape[occupancy] = {"start": row[needle.POSITIONS[0]],
                            "middle": sum(row[p] for p in middle) / len(middle),
                            "end": row[needle.POSITIONS[-1]], "mean": sum(row.values()) / len(row),
                            "lowest": min(row, key=row.get)}
        if occupancy <= 0.5:  # the U: the middle lowest, both ends above it (Liu et al.)
            assert min(row[p] for p in middle) < min(v for p, v in row.items() if p not in middle)
            assert shape[occupancy]["lowest"] in middle
        else:  # primacy fades, recency stays (Veseli et al.)
            assert shape[occupancy]["end"] > shape[occupancy]["start"]
    by_fill = [shape[o] for o in needle.OCCUPANCIES]
    for key in ("middle", "mean", "end", "start"):  # rot: every reading falls as it fills
        assert all(a[key] > b[key] for a, b in zip(by_fill, by_fill[1:], strict=False)), key
    first, last = by_fill[0], by_fill[-1]
    assert last["start"] - last["middle"] < first["start"] - first["middle"]
    printed_shape = {int(m[1]) / 100: m.groups()[1:] for m in SHAPE.finditer(printed)}
    assert printed_shape == {o: (f"{s['start']:.2f}", f"{s['middle']:.2f}", f"{s['end']:.2f}",
                                 f"{s['mean']:.2f}", f"{s['lowest']:.2f}")
                             for o, s in shape.items()}
    return shape


def _runs(printed: str) -> dict[str, dict[str, float]]:
    """The three layers put long-task at three occupancies; past the band's edge only the
    layers without the band missed facts, the band costs least, and each miss cost calls."""
    seed = re.search(r"^long-task, \S+, seed (\d)$", printed, re.M)
    assert seed, "no seed line"
    assert re.search(rf"^stage 5, no band: pitfall — seed {seed[1]}, ", printed, re.M)
    did = re.findall(rf"^(stage \d[^\d\n]*?) +(\d+)% +(\d+) +(\d+) +(yes|no) +({NUMBER}) +"
                     r"(\d+\.\d+)$", printed, re.M)
    paid = re.findall(rf"^(stage \d[^\d\n]*?) +(\d+) +(-?\d+) +(-?{NUMBER}) +(-?\d+\.\d+) +"
                      rf"({NUMBER})$", printed, re.M)
    assert [r[0] for r in did] == [r[0] for r in paid] == list(LAYERS)
    layers, ends = {}, []
    for (name, peak, past, below, done, tokens, dollars), (_, misses, calls, extra, extra_usd,
                                                            off) in zip(did, paid, strict=True):
        layers[name] = {"peak": _n(peak), "past": _n(past), "below": _n(below),
                        "done": done == "yes", "tokens": _n(tokens), "dollars": _n(dollars),
                        "calls": _n(calls),
                        "extra": _n(extra), "extra_usd": _n(extra_usd)}
        assert _n(misses) == _n(past) + _n(below)
        assert _n(off) + _n(extra) == _n(tokens)  # the difference is the rot-off run's
        if _n(misses):  # a miss is fetched again: calls and tokens
            assert _n(calls) > 0 and _n(extra) > 0 and _n(extra_usd) > 0
        lines = re.findall(rf"^{name} +\d+  \S+ +(\d\.\d\d) +(\d+)%$", printed, re.M)
        assert len(lines) == _n(misses)
        assert sum(int(o) > 100 * EDGE for _, o in lines) == _n(past)
        ends += [float(p) for p, _ in lines if float(p) >= 0.95]
    assert ends, "the prose says a fact at the very end can be missed too: none was"
    band, loose, cut = (layers[name] for name in LAYERS)
    assert band["peak"] < 100 * EDGE < loose["peak"] < cut["peak"]
    assert band["past"] == 0 and loose["past"] > 0 and cut["past"] > 0
    assert band["tokens"] < loose["tokens"] < cut["tokens"]
    assert band["dollars"] < loose["dollars"] < cut["dollars"]
    return layers


def _answers(printed: str, shape: dict[float, dict[str, float]],
             layers: dict[str, dict[str, float]]) -> None:
    """Each answer quotes the figures printed above it."""
    answers = {int(m[1]): " ".join(m[2].split())  # as one line, however it was wrapped
               for m in re.finditer(r"^([1-5])\. (.*(?:\n   .*)*)$", printed, re.M)}
    assert sorted(answers) == [1, 2, 3, 4, 5]
    s25, s50, s75, s95 = (shape[o] for o in needle.OCCUPANCIES)
    band, loose, cut = (layers[name] for name in LAYERS)
    misses = sum(r["past"] + r["below"] for r in layers.values())
    calls = sum(r["calls"] for r in layers.values())

    def has(number: int, *figures: str) -> None:
        for figure in figures:
            assert figure in answers[number], f"answer {number} lacks {figure!r}"

    f = "{:.2f}".format
    has(1, f(s25["end"]), f(s95["end"]), f(s25["mean"]), f(s95["mean"]),
        f"(peak {band['peak']:.0f}%) missed {band['past'] + band['below']:.0f} fact(s)")
    has(2, f"{f(s25['middle'])} at 25 % full", f"{f(s95['middle'])} at 95 %",
        f"without the band missed {loose['past']:.0f} facts, the band's {band['past']:.0f}",
        "holds with the band, pitfall without",
        f"(at positions {f(s25['lowest'])} and {f(s50['lowest'])})",
        f"of the time against {f(s25['middle'])}")
    overflow = re.search(r"^stage 1, turn (\d+): (invalid_request_error)\n +prompt is too long",
                         printed, re.M)
    assert overflow, "stage 1 no longer overflows on the long task"
    finished = sum(r["done"] for r in layers.values())
    assert re.search(rf"^the 3 runs of section 2: {misses:.0f} misses, 0 API errors, "
                     rf"{finished} finished$", printed, re.M)
    has(3, f"turn {overflow[1]} with an {overflow[2]}",
        f"missed {misses:.0f} facts with 0 API errors and {finished} of them finished",
        f"{calls:.0f} calls and {sum(r['extra'] for r in layers.values()):,.0f} tokens")
    has(4, f"({f(s25['start'])} at 25 %)", f"({f(s25['end'])})", f"middle ({f(s25['middle'])})",
        f"cost {calls:.0f} extra calls", f"gets {f(s95['end'])} against {f(s95['start'])}")
    has(5, f"{f(s50['start'])} at 50 %", f"{f(s75['start'])} at 75 %",
        f"{f(s95['start'])} at 95 %", f"middle gets {f(s95['middle'])}",
        f"up to {loose['peak']:.0f}% full, sent {loose['tokens']:,.0f} tokens "
        f"(${loose['dollars']:.4f}) against {band['tokens']:,.0f} (${band['dollars']:.4f})",
        f"up to {cut['peak']:.0f}%, sent {cut['tokens']:,.0f} (${cut['dollars']:.4f})")
    assert s95["start"] - s95["middle"] < 0.05  # "where the middle gets": near enough level


def lesson(printed: str) -> None:
    """What notebook 08 printed holds up (``test_notebooks.LESSONS``)."""
    shape = _needle_table(printed)
    layers = _runs(printed)
    for name, status in zip(LAYERS, ("holds", "pitfall", "pitfall"), strict=True):
        assert re.search(rf"^{name}: {status} — ", printed, re.M), f"{name} is not {status}"
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
    stage, a fill, the band, the window, the turns, the seeds, the middle's bounds."""
    code = "\n".join(_cells(NOTEBOOK, "code"))
    seeds = int(re.search(r"^RUNS = (\d+)", code, re.M)[1])
    window = models.get(WINDOW_200K).context_window
    from s5_pipeline.thresholds import BAND  # the stage's band, whichever implementation

    allowed = {"0", "1", "2", "5", "0.3", "0.7", str(seeds), str(LONG_TURNS), f"{window // 1000}K",
               *(f"{100 * o:.0f}" for o in (*needle.OCCUPANCIES, *BAND))}
    assert "0.3 <= p <= 0.7" in code  # the middle the prose names
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
    """The notebook reruns with ``--rot off`` only the runs that missed a fact: the retrieval
    model changes a run through its misses alone."""
    cell = Cell.parse("5")
    on = runs.get(cell, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS).result
    assert not on.summary.misses
    with retrieval.switched(False):
        off = runs.get(cell, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS).result
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
