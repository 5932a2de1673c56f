"""User constraints travel outside the summary (guide §12.3; appendix B.27): after a summary
that lost the turn-one rule, the rule is back in the request word for word, attached by the
layer beside the summary, not written into it."""

from __future__ import annotations

import pytest
from s5_pipeline.constraints import HEADER

from ctxlab import scenarios
from ctxlab.runner import run


@pytest.mark.exercise("5.5")
@pytest.mark.checklist("B.27")
def test_the_rule_a_lossy_summary_dropped_is_attached_verbatim_beside_it() -> None:
    result = run(5, "constraint", model="ctxlab-sim-32k",  # test_pipeline's run, shared
                 layer_options={"summary": {"template": "free-form"}})
    rule = scenarios.load("constraint").constraints[0].text
    assert result.summary.summary_calls > 0
    summary, *attached = [b["text"] for b in result.messages[0]["content"]]
    assert rule not in summary  # the free-form summary lost it
    verbatim = [text for text in attached if text.startswith(HEADER)]
    assert len(verbatim) == 1 and rule in verbatim[0].splitlines()
