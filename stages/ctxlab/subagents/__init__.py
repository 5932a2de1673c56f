"""Sub-agents on the bench (§11; DESIGN §4 "Sub-agents"): the ``task`` tool, its children and
the bill of a run with them.

``tool`` says what the model is offered and how a child is briefed; ``child`` runs a child
through the one runner and bills the run as parent plus children.
"""

from .child import Child, bill, opening, starter
from .tool import HANDOFFS, TASK_TOOL, Delegation, child_system, offered, split, tools_for

__all__ = ["HANDOFFS", "TASK_TOOL", "Child", "Delegation", "bill", "child_system", "offered",
           "opening", "split", "starter", "tools_for"]
