"""The middleware's own summary calls go through the run's client and are billed."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain", reason="the peers extra: pip install -e '.[peers]'")

from ctxlab import use  # noqa: E402
from ctxlab.peers.summarize import Summarize  # noqa: E402
from ctxlab.runner import run  # noqa: E402


def test_a_summary_call_is_a_billed_summary_record() -> None:
    use("solutions")
    layer = Summarize(share=0.3, keep=6, trim_tokens_to_summarize=None)
    result = run(None, "chat-heavy", layer=layer, model="ctxlab-sim-32k", max_turns=30,
                 label="langchain-summary")
    summaries = [r for r in result.records if r.kind == "summary"]
    assert summaries and all(r.output_tokens > 0 for r in summaries)
    assert result.summary.summary_calls == len(summaries)
    assert any(e["layer"] == "langchain-summary" for r in result.records for e in r.compactions)
