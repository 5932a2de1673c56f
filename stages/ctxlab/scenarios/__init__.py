"""Scenarios: tasks with a workspace, a plan for the simulated agent and a real check (§5).

``load(name)`` reads and checks ``fixtures/scenarios/<name>.toml``; ``open_workspace`` makes the
per-run copy with its generated files; ``opening`` and ``FollowUps`` give the user's messages;
``check`` says whether the run succeeded.
"""

from .check import CheckResult, check
from .loader import FIXTURES, load, names
from .messages import FollowUps, opening
from .schema import (
                     TOOL_FIELDS,
                     Call,
                     Constraint,
                     GeneratedFile,
                     Image,
                     Scenario,
                     ScenarioError,
                     Step,
                     Success,
                     UserMessage,
)
from .workspace import materialize, open_workspace

__all__ = [
    "FIXTURES", "TOOL_FIELDS", "Call", "CheckResult", "Constraint", "FollowUps", "GeneratedFile",
    "Image", "Scenario", "ScenarioError", "Step", "Success", "UserMessage", "check", "load",
    "materialize", "names", "open_workspace", "opening",
]
