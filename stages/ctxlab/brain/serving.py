"""A simulator whose model is a scenario's agent: for ``ctxlab serve --scenario`` and notebooks.

The client runs the tools; the simulator answers as the scenario's agent would, from each
request alone (DESIGN §4, lab bench issue "serving a scenario").
"""

from __future__ import annotations

from typing import Any

from ..scenarios import load
from ..sim import Simulator, make_client
from .agent import Brain


def simulator_for(scenario: str, *, seed: int = 0, **brain_options: Any) -> Simulator:
    """A fresh ``Simulator`` answering as ``scenario``'s agent."""
    return Simulator(responder=Brain(load(scenario), seed=seed, **brain_options))


def client_for(scenario: str, *, seed: int = 0, **brain_options: Any) -> Any:
    """The genuine SDK client, in-process, talking to ``scenario``'s agent."""
    return make_client(simulator_for(scenario, seed=seed, **brain_options))
