"""A kernel forked from the warm interpreter (``tests/warm.py``), which has imported matplotlib
and pyplot before the kernel existed, behaves as one started fresh: same backend, same
settings, same config folder, same figure bytes. Where it could not, it is not forked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from test_notebooks import execute
from warm import Warm

REPORT = """
import json as _json, os as _os, matplotlib as _mpl
_auto = _mpl.rcsetup._auto_backend_sentinel  # an object(): its address differs per process
_rc = lambda rc: {k: "auto" if rc._get(k) is _auto else repr(rc._get(k)) for k in rc}  # noqa
print(_json.dumps({"rc": _rc(_mpl.rcParams), "orig": _rc(_mpl.rcParamsOrig),  # not resolved
                   "interactive": _mpl.is_interactive(),
                   "configdir": _mpl.get_configdir(), "cachedir": _mpl.get_cachedir(),
                   "rcfile": _mpl.matplotlib_fname(), "MPLBACKEND": _os.environ.get("MPLBACKEND"),
                   "pyplot": "matplotlib.pyplot" in __import__("sys").modules}))
"""
CELLS = [REPORT, "%matplotlib inline", REPORT, """
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
plt.plot([1, 3, 2], label="pyplot")  # drawn by the inline backend at the cell's end
plt.legend()
fig = Figure(figsize=(3, 2))
fig.add_subplot().bar(["a", "b"], [2, 5])
fig.suptitle("Agg, shown")
fig
"""]


def _run(folder: Path, warm: Warm | None) -> list[dict]:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    executed, _ = execute(folder / "probe.ipynb", nb, warm)
    return [{key: o.get(key) for key in ("output_type", "name", "text", "data")}
            for cell in executed.cells[1:] for o in cell.outputs]


def test_a_forked_kernel_is_a_fresh_one(tmp_path: Path, warm: Warm | None) -> None:
    if warm is None:
        pytest.skip("no warm interpreter here (not Linux): every kernel starts fresh")
    assert warm.refuses(tmp_path) is None
    forked, fresh = _run(tmp_path, warm), _run(tmp_path, None)
    reports = [[json.loads(o.pop("text")) for o in run if o["output_type"] == "stream"]
               for run in (forked, fresh)]
    assert [[r.pop("pyplot") for r in run] for run in reports] == [[True, True], [False, True]]
    assert reports[0] == reports[1]  # all but pyplot: imported by the magic, fresh
    assert reports[1][0]["rc"]["backend"] == repr("module://matplotlib_inline.backend_inline")
    assert forked == fresh  # the rest: the figures' bytes
    images = [o["data"]["image/png"] for o in fresh if "image/png" in (o["data"] or {})]
    assert len(images) == 2, fresh


def test_a_folder_with_a_matplotlibrc_is_refused(tmp_path: Path, warm: Warm | None) -> None:
    if warm is None:
        pytest.skip("no warm interpreter here (not Linux)")
    (tmp_path / "matplotlibrc").write_text("figure.dpi: 42\n")
    assert "matplotlibrc" in (warm.refuses(tmp_path) or "")
    with pytest.raises(ValueError, match="matplotlibrc"):
        warm.start("json.tool", [], cwd=tmp_path, env=os.environ)


def test_no_fork_where_matplotlib_makes_a_temporary_config_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not Warm.supported():
        pytest.skip("no warm interpreter here (not Linux)")
    unwritable = tmp_path / "file"
    unwritable.write_text("")  # a file: no folder can be made in it
    monkeypatch.setenv("MPLCONFIGDIR", str(unwritable / "matplotlib"))
    server = Warm(("matplotlib",))
    try:
        assert "temporary config folder" in (server.refuses(tmp_path) or "")
    finally:
        server.close()
