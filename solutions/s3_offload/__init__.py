"""Stage 3 — recoverable offload of tool results (guide §14 stage 3, §3.2, §7.4, §2.4, §6.10).

Truncation threw information away; offload only moves it. A tool result over its budget goes
to a file in the workspace, and the context keeps its head, its tail, its full length and the
path — so the agent can read it back with the tools it already has (§3.2: storage the model
cannot reach is not storage, it is deletion).
"""

from s1_loop import estimate_tokens

from .budget import PER_MESSAGE, PER_RESULT, READ_TOOLS, choose_offloads
from .layer import OffloadLayer
from .preview import make_preview
from .store import OFFLOAD_DIR, offload


def make_layer(*, per_result: int = PER_RESULT, per_message: int | None = PER_MESSAGE,
               read_exemption: bool = True) -> OffloadLayer:
    """The stage's context layer: offload big results; history is left as it is.

    ``per_message=None`` and ``read_exemption=False`` are the naive variants the pitfall
    ladder runs (``--set per_message=null``, ``--set read_exemption=false``).
    """
    return OffloadLayer(per_result=per_result, per_message=per_message,
                        read_exemption=read_exemption)


__all__ = [
    "OFFLOAD_DIR", "PER_MESSAGE", "PER_RESULT", "READ_TOOLS", "OffloadLayer", "choose_offloads",
    "estimate_tokens", "make_layer", "make_preview", "offload",
]
