"""``ctxlab accept --layer``: your own layer's mechanisms, forced by the stage-5 drills' scenarios
(run by ``make peers``: three full runs per check)."""

from __future__ import annotations

import json

import pytest

from ctxlab import use
from ctxlab.cli import main

pytest.importorskip("langchain_core", reason="the peers extra: pip install -e '.[peers]'")


def test_accept_passes_a_layer_whose_mechanism_fires(capsys) -> None:
    use("solutions")
    assert main(["accept", "--layer", "ctxlab.peers.trim:make_layer", "--set",
                 "setting=pairs", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["dead"] == []
    row = next(r for r in report["layers"] if r["layer"] == "langchain-trim")
    assert row["triggers"] > 0 and row["freed_tokens"] > 0 and row["verdict"] == "fires"


def test_accept_finds_a_declared_mechanism_that_never_fires(tmp_path, capsys) -> None:
    use("solutions")
    path = tmp_path / "idle.py"
    path.write_text("class Idle:\n    mechanisms = ('trim',)\n"
                    "    def prepare(self, messages, session):\n        return messages\n"
                    "    def admit(self, results, session):\n        return results\n"
                    "def make():\n    return Idle()\n", encoding="utf-8")
    assert main(["accept", "--layer", f"{path}:make", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is False and report["dead"] == ["trim"]
    assert report["layers"][0]["verdict"] == "dead: no chance"
