"""The band's working copies, kept up to date (``s5_pipeline.reads.edited_reads``, issue 49).

Before every request below the trigger the band keeps the newest read of each file the agent
has edited (its working copy, §10.1): the plain function reads every tool call each turn. The
calls only grow at their end between two turns (the loop appends; a batch changes results,
not calls), so ``EditedReads`` keeps the files edited so far and the newest read of each file
read, and reads only the new calls. Calls that do not start with last turn's (a summary,
another session) are read whole again. The answer is the plain function's, in the same order
(the files in the order of their first read).
"""

from __future__ import annotations

from typing import Any

Use = dict[str, Any]  # a ``tool_use`` block


class EditedReads:
    """``edited_reads(uses)`` that reads only the calls new since its last call."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """Nothing read yet."""
        self.uses: list[Use] = []  # last call's calls
        self.edited: set[Any] = set()  # the paths edited
        self.newest: dict[Any, str] = {}  # a path read -> its newest read's id

    def __call__(self, uses: list[Use]) -> list[str]:
        known = len(self.uses)
        if uses[:known] != self.uses:
            self._reset()  # read whole again
            known = 0
        self.uses = list(uses)
        for use in uses[known:]:
            path = (use.get("input") or {}).get("path")
            if use.get("name") == "edit_file":
                self.edited.add(path)
            elif use.get("name") == "read_file":
                self.newest[path] = use["id"]
        if not self.edited:
            return []
        return [ident for path, ident in self.newest.items() if path in self.edited]
