"""Every notebook runs headless, top to bottom, and is stored without outputs (DESIGN §2).

Each notebook, English and its Chinese twin (notebooks/zh-CN/, the same code cells), is
executed by nbclient in a fresh kernel started with this interpreter
(``sys.executable``): the kernel spec comes from the installed ipykernel, never from a
``python3`` kernel spec that happens to be registered elsewhere on the machine. The kernel
inherits the environment, so ``pytest --impl stages`` runs the notebooks on your workbook.
It starts in the notebook's folder, as Jupyter does, and that folder is what makes a twin
print its computed sentences in Chinese (``ctxlab.claims.language``); the twin's runs are the
English notebook's, shared through ``ctxlab.runcache``. Every claim a notebook states is
asserted as it runs (``ctxlab.claims``): a lesson its run does not bear out fails here.
"""

from __future__ import annotations

import os
import re
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from test_rot_lesson import lesson as _context_rot_lesson
from traitlets import default
from warm import Warm

from ctxlab.workbook.layout import STAGES

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ENGLISH = sorted(NOTEBOOKS.glob("*.ipynb"))
TWINS = sorted((NOTEBOOKS / "zh-CN").glob("*.ipynb"))  # same code cells: `ctxlab workbook check`
PATHS = ENGLISH + TWINS
TIMEOUT = 120  # seconds per cell; a whole notebook takes from a few seconds to half a minute

SETUP = f"""
import atexit as _atexit, gc as _gc, os as _os, sys as _sys
assert _os.path.realpath(_sys.prefix) == {os.path.realpath(sys.prefix)!r}, _sys.executable
_atexit.register(_gc.freeze)
del _atexit, _gc, _os, _sys
"""
"""The cell run before a notebook's own; it leaves no name behind. The kernel runs this
interpreter; at its exit, once every output is in and after the exit handlers the notebook
registered (``atexit`` calls the last registered first: ctxlab's fork server is waited for),
the objects alive are set aside from the collector (``gc.freeze``, as ``ctxlab.startup`` does
for a command), so the interpreter's teardown does not walk them all once more: about 0.9 s
of CPU per kernel."""


class ThisPythonKernel(AsyncKernelManager):
    """Starts ipykernel with this interpreter, whatever other kernel specs are installed:
    forked from ``warm`` when there is one (``tests/warm.py``), else as jupyter_client does."""

    warm: Warm | None = None  # set on a class of its own for each run (``execute``)

    @default("kernel_spec_manager")
    def _only_native_kernel(self) -> KernelSpecManager:
        # No kernel directories: the only spec left is ipykernel's own, run with sys.executable.
        return KernelSpecManager(kernel_dirs=[])

    async def _async_pre_start_kernel(self, **kw: Any) -> tuple[list[str], dict[str, Any]]:
        if self.warm is not None and self.provisioner is None:
            self.kernel_id = self.kernel_id or kw.pop("kernel_id", None) or str(uuid.uuid4())
            self.provisioner = WarmProvisioner(kernel_id=self.kernel_id,
                                               kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)


class WarmProvisioner(LocalProvisioner):
    """jupyter_client's own provisioner, but the kernel process is forked from ``warm``
    unless it ``refuses`` the kernel's folder."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        python, flag, module, *args = cmd
        assert (python, flag) == (sys.executable, "-m"), cmd  # ipykernel's own kernel spec
        assert set(kwargs) <= {"env", "cwd", "kernel_id"}, sorted(kwargs)
        cwd, warm = kwargs.get("cwd") or os.getcwd(), self.parent.warm
        if warm.refuses(cwd):
            return await super().launch_kernel(cmd, **kwargs)
        env = {**kwargs["env"], "JPY_PARENT_PID": str(warm.server.pid)}  # its parent: it ends
        self.process = warm.start(module, args, cwd=cwd, env=env)  # if that one is gone
        self.pid = self.pgid = self.process.pid  # a session of its own, as jupyter's
        self.cwd = cwd
        return self.connection_info


def test_there_is_a_notebook_per_stage() -> None:
    names = {p.name for p in ENGLISH}
    assert {"00_tour.ipynb", *(f"{s.notebook}.ipynb" for s in STAGES)} <= names
    assert [p.name for p in TWINS] == [p.name for p in ENGLISH]


def name(path: Path) -> str:
    """``04_summarize`` or ``zh-CN/04_summarize``."""
    return path.relative_to(NOTEBOOKS).with_suffix("").as_posix()


@pytest.mark.parametrize("path", PATHS, ids=[name(p) for p in PATHS])
def test_stored_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
             and (cell.get("outputs") or cell.get("execution_count") is not None)]
    assert not dirty, f"{path.name}: clear the outputs of cells {dirty} before committing"


def execute(path: Path, nb: nbformat.NotebookNode | None = None, warm: Warm | None = None
            ) -> tuple[nbformat.NotebookNode, float]:
    """Run a notebook (``path``'s, or ``nb`` as if it were there) top to bottom in a fresh
    kernel started in its folder; the executed notebook and the seconds."""
    nb = nbformat.read(path, as_version=4) if nb is None else nb
    nb.cells.insert(0, nbformat.v4.new_code_cell(SETUP))
    kernel = type("WarmKernel", (ThisPythonKernel,), {"warm": warm})  # nbclient makes one
    client = NotebookClient(nb, kernel_name="python3", kernel_manager_class=kernel,
                            timeout=TIMEOUT, resources={"metadata": {"path": str(path.parent)}})
    started = time.monotonic()
    client.execute()  # raises CellExecutionError, with the cell and traceback, on any error
    return nb, time.monotonic() - started


# Each notebook may run on its own worker (tests/conftest.py). pytest-xdist starts modules of
# many tests first, so the notebooks find those modules' runs shared (ctxlab.runcache); among
# the notebooks, the largest first, so that the last one to start is a short one; a twin runs
# on its English notebook's worker, after it, and finds its runs shared.
@pytest.mark.parametrize("path", [pytest.param(p, id=name(p), marks=pytest.mark.xdist_group(
    p.stem)) for p in sorted(PATHS, key=lambda p: (-(NOTEBOOKS / p.name).stat().st_size,
                                                     p.parent != NOTEBOOKS))])
def test_runs_headless(path: Path, warm: Warm | None) -> None:
    nb, elapsed = execute(path, warm=warm)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    if "plots." in "".join(cell.source for cell in nb.cells):
        assert images, f"{path.name} draws charts but no image came out"
    print(f"{name(path)}: {elapsed:.1f} s, {len(images)} charts", file=sys.stderr)
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    shown = printed + "".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "``" not in shown, f"{path.name} shows reStructuredText's ``literal`` marks"
    if path.parent == NOTEBOOKS:
        LESSONS.get(path.stem, lambda _: None)(printed)
    else:
        _self_check_in_chinese(nb, path)


SELF_CHECK = re.compile(r"^##[^\n]*自检", re.M)  # a twin's self-check heading
ENGLISH_SENTENCE = re.compile(r"[A-Za-z][a-z]+(?:[ ,;:'’-]+[A-Za-z][a-z]*){4,}")
"""Five English words in a row: a sentence, not a term (`chat-heavy`, `stage 5, no band`)."""
ENGLISH_WORDS = re.compile(r"[A-Za-z][a-z]+(?:[ ,;:'’-]+[A-Za-z][a-z]*){2,}")
"""Three in a row, on a line with no Chinese at all: a table row of names and figures passes."""


def _self_check_in_chinese(nb: nbformat.NotebookNode, path: Path) -> None:
    """A Chinese twin answers its self-check in Chinese: every line its self-check cells
    print holds Chinese and no English sentence."""
    start = next((i for i, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
                  and SELF_CHECK.search(cell.source)), None)
    if start is None:  # the tour asks no questions
        assert path.stem == "00_tour", f"{name(path)}: no self-check heading"
        return
    lines = [line for cell in nb.cells[start:] if cell.cell_type == "code"
             for o in cell.outputs if o.output_type == "stream" for line in
             o.text.splitlines() if line.strip()]
    assert lines, f"{name(path)}: the self-check printed nothing"
    english = [line for line in lines if ENGLISH_SENTENCE.search(line)
               or not CJK.search(line) and ENGLISH_WORDS.search(line)]
    assert not english, f"{name(path)}: self-check lines not in Chinese: {english[:3]}"


CJK = re.compile(r"[\u4e00-\u9fff]")


FLIPPED = """
import dataclasses
iso = dataclasses.replace(iso, peak_occupancy=inline.peak_occupancy + 0.1)  # flipped
"""


@pytest.mark.xdist_group("07_isolation")
def test_a_flipped_value_fails_the_notebook(warm: Warm | None) -> None:
    """A lesson is asserted as it is stated (``ctxlab.claims``): notebook 07 with the lead's
    peak occupancy injected above the inline run's, just before its self-check, stops with
    ``ClaimFailed`` instead of printing that isolation bought a smaller peak."""
    path = NOTEBOOKS / "07_isolation.ipynb"
    nb = nbformat.read(path, as_version=4)
    at = next(i for i, cell in enumerate(nb.cells) if "claims.less(" in cell.source
              and "iso.peak_occupancy" in cell.source)
    nb.cells.insert(at, nbformat.v4.new_code_cell(FLIPPED))
    with pytest.raises(CellExecutionError, match="ClaimFailed"):
        execute(path, nb, warm)


def _naive_cut_orphans_and_safe_cut_holds(printed: str) -> None:
    """Notebook 02's lesson, from what it printed: the naive cut drops the oldest messages
    and leaves a result without its call (the API's 400); the cut at a round start is valid."""
    sizes = re.search(r"before: (\d+) messages.*after the naive cut: (\d+) messages", printed)
    assert sizes, "notebook 02 no longer prints the naive cut's sizes"
    before, after = map(int, sizes.groups())
    assert after < before, "the naive cut dropped nothing: it replayed an already cut history"
    assert f"The naive cut dropped the {before - after} oldest messages" in printed  # Q1
    assert re.search(r"holding results for \['toolu_\w+'", printed), "no orphan result shown"
    assert "first_violation: messages.0: `tool_result` block(s)" in printed
    assert "same words: True" in printed
    assert "is k a round start? True | violation: None" in printed


def _usage_field_by_field(printed: str) -> None:
    """Notebook 00 prints the usage of a call as the lines that follow explain it, in lines a
    terminal of 80 columns shows whole (the object's repr is one line of about 300)."""
    usage = [line for line in printed.splitlines() if "_tokens=" in line]
    assert usage and usage[0].startswith("usage: input_tokens=")
    assert "cache_read_input_tokens=" in "".join(usage) and max(map(len, usage)) <= 80, usage


LESSONS: dict[str, Callable[[str], None]] = {
    "00_tour": _usage_field_by_field,
    "02_truncate": _naive_cut_orphans_and_safe_cut_holds,
    "08_context_rot": _context_rot_lesson,
}
"""Per notebook, the values its text relies on, checked on what the executed notebook printed."""
