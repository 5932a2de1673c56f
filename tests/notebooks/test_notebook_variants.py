"""Notebook 01 runs on any stage-1 loop that passes the graded tests, not only on the
reference: here on a loop that never changes the list it is given (it works on a copy and
builds new lists), which once drew a wrong chart and crashed the self-check. It executes the
notebook a second time, so it is a ``reliability`` check (``make reliability``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_notebooks import NOTEBOOKS, execute

from ctxlab import runner, use
from ctxlab.workbook.layout import impl_root, repo_root
from ctxlab.workbook.router import FINDER

APPEND = re.compile(r"^(\s*)messages\.append\((.*)\)$", flags=re.M)


def copying_loop(root: Path) -> Path:
    """The reference stage 1 with a loop that copies its list and never appends to it."""
    package = root / "s1_loop"
    shutil.copytree(impl_root("solutions") / "s1_loop", package)
    loop = package / "loop.py"
    text = loop.read_text(encoding="utf-8")
    text, appends = APPEND.subn(r"\1messages = [*messages, \2]", text)
    text = text.replace("### BEGIN SOLUTION 1.1\n", "### BEGIN SOLUTION 1.1\n    messages = "
                        "list(messages)  # a copy: the caller's list stays as it was\n")
    assert appends == 2 and "messages = list(messages)" in text, "the reference loop changed"
    loop.write_text(text, encoding="utf-8")
    return root


@pytest.mark.reliability
def test_notebook_01_runs_on_a_loop_that_copies_its_list(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = copying_loop(tmp_path)
    env = {"CTXLAB_IMPL": "stages", "CTXLAB_STAGE": "1", "CTXLAB_CHAIN": "reference",
           "CTXLAB_STAGES_ROOT": str(root)}
    graded = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/s1",
         "--impl", "stages", "--stage", "1"], cwd=repo_root(), env={**os.environ, **env},
        capture_output=True, text=True, check=False)
    assert graded.returncode == 0, graded.stdout[-2000:]  # a correct loop: the tests pass
    for key, value in env.items():
        monkeypatch.setenv(key, value)  # the kernel inherits the environment
    nb, _ = execute(NOTEBOOKS / "01_loop.ipynb")
    text = "\n".join(o.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                     for o in cell.outputs if o.output_type == "stream")
    before = FINDER.selection
    use("solutions")
    try:
        reference = runner.run(1, "bugfix-small")
    finally:
        use(before.impl, before.stage, before.chain)
    assert f"the final history holds {len(reference.messages)} messages" in text
