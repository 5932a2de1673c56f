"""The OS jail that untrusted commands run in: bubblewrap, unprivileged, with limits (DESIGN §9).

One jail serves the agent's commands (``ctxlab.tools.command``) and the workshop room
(``ctxlab.room``). ``probe()`` says once per process whether it works here and, when not, why;
``wrap(argv, ...)`` gives the argv that runs ``argv`` inside it; ``required()`` says whether a
missing jail is a failure (CI) rather than a reason to fall back to the option guard, the
guide's tool permissions (§5), which stays as the second line of defence.
"""

from __future__ import annotations

from ctxlab.jail.bubblewrap import Unavailable
from ctxlab.jail.detect import Status, probe, required, wrap
from ctxlab.jail.limits import Limits

__all__ = ["Limits", "Status", "Unavailable", "probe", "required", "wrap"]
