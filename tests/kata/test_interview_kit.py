"""The interview kit (docs/interview): every page complete, every figure regenerable.

Each stage page must have questions with a model answer and a way to regenerate its figure,
and a timed kata. Every ``ctxlab`` command it names must parse, every test file and test it
names must exist, and every Python snippet must run (on the reference implementation). The
snippets regenerate figures of the docs and grade nothing a learner writes: running them all
is `make reliability`'s (about 25 s of CPU), not `make test`'s.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import matplotlib
import pytest

from ctxlab import runner, use
from ctxlab.cli import build_parser
from ctxlab.report import compare as report_compare
from ctxlab.workbook.router import FINDER

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "docs" / "interview" / f"stage-{n}.md" for n in range(1, 6)]
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.S)


def blocks(page: Path, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(page.read_text(encoding="utf-8"))
            if lang == language]


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_each_page_has_answers_figures_and_a_kata(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    questions = re.split(r"^## Q\d+\. ", text, flags=re.M)[1:]
    assert len(questions) >= 4, f"{page.name}: at least four design questions"
    for question in questions:
        title = question.splitlines()[0]
        assert "**Model answer.**" in question, title
        assert "**Figure.**" in question and "Regenerate" in question, title
        assert "```" in question, f"{title}: no command or snippet to regenerate the figure"
        assert re.search(r"§\d+", title), f"{title}: cite the guide section"
    assert re.search(r"^## Timed kata: .+\(\d+ minutes\)$", text, re.M), page.name


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_commands_parse_and_named_tests_exist(page: Path) -> None:
    parser = build_parser()
    text = page.read_text(encoding="utf-8")
    commands = re.findall(r"(?:^|`)(ctxlab [^`\n]+)", text, re.M)
    assert commands, page.name
    for command in commands:
        parser.parse_args(shlex.split(command)[1:])  # SystemExit on an unknown command/option
    for path, name in re.findall(r"(tests/[\w/]+\.py)(?:::(\w+))?", text):
        source = ROOT / path
        assert source.exists(), f"{page.name}: {path} does not exist"
        if name:
            assert f"def {name}(" in source.read_text(encoding="utf-8"), f"{path}::{name}"


@pytest.fixture(scope="module")
def reference() -> Iterator[None]:
    """The reference implementation, and runs shared between snippets: a run is determined by
    its arguments (the simulated model is seeded), so two snippets asking for the same run get
    the same result object, computed once."""
    before = FINDER.selection
    use("solutions")
    matplotlib.use("Agg")
    patch = pytest.MonkeyPatch()
    patch.setattr(runner, "run", _shared(runner.run))
    patch.setattr(report_compare, "compare", _shared(report_compare.compare))
    yield
    patch.undo()
    use(before.impl, before.stage, before.chain)


def _shared(function: Callable[..., Any]) -> Callable[..., Any]:
    results: dict[str, Any] = {}

    @functools.wraps(function)
    def shared(*args: Any, **kwargs: Any) -> Any:
        if "simulator" in kwargs:  # a prepared simulator (faults): always a fresh run
            return function(*args, **kwargs)
        key = repr((args, sorted(kwargs.items())))
        if key not in results:
            results[key] = function(*args, **kwargs)
        return results[key]

    return shared


SNIPPETS = [(page, n, code) for page in PAGES for n, code in enumerate(blocks(page, "python"))]


@pytest.mark.reliability
@pytest.mark.parametrize(("page", "n", "code"), SNIPPETS,
                         ids=[f"{p.stem}-{n}" for p, n, _ in SNIPPETS])
def test_every_snippet_runs(reference: None, page: Path, n: int, code: str) -> None:
    exec(compile(code, f"{page.name}[{n}]", "exec"), {"__name__": "__snippet__"})


def test_stage_1_q3_says_what_its_figure_shows(reference: None) -> None:
    """Q3 states no figure in its prose (tests/meta/test_prose_figures.py); what it says of its
    figure holds: the long task's rejected request is past the guide's 70–80 % (§2.2)."""
    from ctxlab import plots

    run = runner.run(1, "long-task")
    last = run.records[-1]
    parts = plots.composition(run.messages[: last.messages], model=last.model)
    assert parts["tool_result"] / sum(parts.values()) > 0.8
    q3 = PAGES[0].read_text(encoding="utf-8").split("## Q3.", 1)[1].split("## Q4.", 1)[0]
    assert "shows how far past that an agent can go" in " ".join(q3.split())
