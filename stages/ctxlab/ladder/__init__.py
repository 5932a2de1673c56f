"""The pitfall ladder (DESIGN §2, guide §14 "阶段总览"): every stage pitfall, observed for its
reason, on the stage where the guide meets it.

``LADDER`` is the one table: the tests check each cell's status on the reference, ``ctxlab
ladder`` judges the cells on the implementation in use and prints each verdict's evidence,
and the README's table is generated from it. Cells are stages (``"2"``) or stage variants
run through ``--set`` options (``"3:no-read-exemption"``, see ``VARIANTS``); runs are shared
between rungs (``ladder.runs``).
"""

from .core import BROKEN, HOLDS, NA, NOT_SHOWN, PITFALL, STATUSES, VARIANTS, Cell, Rung, Verdict
from .markdown import markdown
from .table import LADDER, Unexpected, judge, pinned, report, rung

__all__ = ["BROKEN", "HOLDS", "LADDER", "NA", "NOT_SHOWN", "PITFALL", "STATUSES", "VARIANTS",
           "Cell", "Rung", "Unexpected", "Verdict", "judge", "markdown", "pinned", "report",
           "rung"]
