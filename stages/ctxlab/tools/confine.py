"""Which boundary an agent's command runs behind: the OS jail, or the option guard alone
(DESIGN §9).

With a working jail (``ctxlab.jail``) every command runs in it, and the option guard
(``sandbox``, ``reach``, ``options``: the guide's tool permissions, §5) is the second line. With
none (macOS, a kernel or container that forbids user namespaces, no bubblewrap) commands run
behind the guard alone, after a one-line warning that names the reason — unless the environment
requires the jail (``CTXLAB_REQUIRE_JAIL=1``, as CI does): then a missing jail is a failure.
"""

from __future__ import annotations

import logging

from ctxlab import jail

_warned: set[str] = set()


def jailed() -> bool:
    """Whether commands run in the jail; warns once per process when they cannot.

    Raises ``jail.Unavailable`` when the jail is missing but required.
    """
    status = jail.probe()
    if status.ok:
        return True
    if jail.required():
        raise jail.Unavailable(f"the command jail is required here (CTXLAB_REQUIRE_JAIL=1) "
                               f"but cannot run: {status.reason}")
    if status.reason not in _warned:
        _warned.add(status.reason)
        logging.getLogger("ctxlab").warning(
            "warning: commands run without the OS jail, behind the option guard only: %s",
            status.reason)
    return False
