"""Module-level state shared by a parent and its sub-agents (§9.3; appendix B.20).

The children run in the parent's process. A layer that keeps its ledger at module level
ends up holding the children's tool results; the stages keep their state on the instance."""

from __future__ import annotations

import sys

import pytest

from ctxlab import runcache, runner
from ctxlab.subagents import shared_state
from ctxlab.subagents.shared_state import foreign_ids, tool_ids

NAIVE = "ctxlab.subagents.shared_state:make_layer"


@pytest.mark.checklist("B.20")
def test_a_module_level_ledger_collects_the_childrens_results() -> None:
    """Pitfall: the parent's ledger names results its own conversation never had."""
    shared_state._ADMITTED.clear()
    with runcache.computed():
        result = runner.run(None, "isolate-read", layer=NAIVE)
    children = {i for _, child in result.children for i in tool_ids(child.original)}
    foreign = foreign_ids(result.layer, result.original)
    assert result.children and foreign == children
    fixed = runner.run(None, "isolate-read", layer=NAIVE, layer_options={"shared": False})
    assert fixed.children and tool_ids(fixed.layer) and not foreign_ids(fixed.layer,
                                                                        fixed.original)


@pytest.mark.checklist("B.20")
def test_the_stages_keep_no_state_a_child_could_pollute() -> None:
    """Stage 5 with three children: its layer holds only its own conversation's ids, and no
    stage module's globals changed during the run."""
    def stage_globals() -> dict[str, str]:
        return {f"{name}.{key}": repr(value) for name, module in list(sys.modules.items())
                if name.split(".")[0] in {"s1_loop", "s2_truncate", "s3_offload",
                                           "s4_summarize", "s5_pipeline"}
                for key, value in vars(module).items()
                if isinstance(value, (list, dict, set))}

    runner.load_stage(5)
    before = stage_globals()
    with runcache.computed():
        result = runner.run(5, "isolate-read")
    assert len(result.children) == 3
    assert tool_ids(result.layer) and not foreign_ids(result.layer, result.original)
    for _, child in result.children:
        assert not foreign_ids(child.layer, child.original)
    assert before and stage_globals() == before
