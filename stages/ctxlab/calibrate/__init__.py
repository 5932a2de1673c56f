"""Behaviour statistics of session logs: how an agent really works (DESIGN §4, §6).

``calibrate(paths)`` measures Claude Code session logs — real ones, or simulated runs written
with ``ctxlab run --export-log`` — with the same rules: output length per response, parallel
tool calls, working notes (``items`` defines what a note restates) and re-reads. The simulated
agent's habits take their defaults from these figures on real logs (``ctxlab.brain.habits``).

``calibrate`` and ``Calibration`` live in ``ctxlab.calibrate.report`` (it reads logs through
``ctxlab.replay``); this package itself imports only what the simulated agent needs too.
"""

from .habits import Habits, measure
from .items import items, mentions, new_items

__all__ = ["Habits", "items", "measure", "mentions", "new_items"]
