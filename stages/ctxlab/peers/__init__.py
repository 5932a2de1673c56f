"""Peers: the context layers a learner would otherwise use, on the same bench (guide §7, §6.6).

Each is a ``--layer`` factory, used *alone* on stage 1's loop through the one runner and
metered like a stage; ``ctxlab.rows`` lists them as rows of ``ctxlab compare --peers``:

- ``masking``: observation masking — SWE-agent's ``LastNObservations``, OpenHands'
  observation-masking condenser — with and without stage 5's cache breakpoints (no library);
- ``trim``: LangChain's ``trim_messages``, as its docs set it up and with pairing-safe settings;
- ``summarize``: LangChain's ``SummarizationMiddleware``, with its defaults and with stage 5's
  cache breakpoints;
- ``cache_only``: the client that manages nothing but the cache breakpoints, with which the
  API's own clearing and compaction run.

``trim`` and ``summarize`` need the optional extra (``INSTALL``); nothing else does.
"""

from __future__ import annotations

import importlib.util

INSTALL = "pip install -e '.[peers]'"
LANGCHAIN = ("langchain", "langchain_core", "langchain_anthropic")


def missing(packages: tuple[str, ...] = LANGCHAIN) -> list[str]:
    """The ``packages`` that are not installed (empty: the extra is there)."""
    return [name for name in packages if importlib.util.find_spec(name) is None]
