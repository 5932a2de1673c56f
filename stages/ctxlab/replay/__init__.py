"""Replaying real Claude Code session logs through the stages (DESIGN §6; guide §9.2, §12.6).

A session log (``~/.claude/projects/<project>/<session>.jsonl``) becomes Messages API history
(``load_transcript``: one block per line merged back into responses, re-logged copies dropped,
results paired with their calls), then is fed to a stage's context layer turn by turn as if
the session were happening (``replay_file`` / ``Replay``). The report says what each layer
would have done and when, whether every transformed history still obeys the API rules, what
went to disk, what a summary would have had to carry, and the bill with and without cache
zones. ``ctxlab replay`` shows it; ``ctxlab.replay.plot.plot_replay`` draws it (matplotlib).

Modules, in reading order: ``lines`` (lenient JSONL), ``group`` (the lines of many logs as
session trees: a parent and its sidechains), ``kind`` (what a sidechain was for), ``select``
(conversation lines, compaction boundary), ``blocks`` and ``builder`` (API history),
``recorded`` (the usage a log recorded, each response once), ``transcript`` (the import and
its report); ``session``, ``summarizer``, ``signatures`` (the offline session a layer runs
in), ``check``, ``measure``, ``carry``, ``bill`` (what is measured), ``driver``, ``run`` and
``tree`` (the replay of a log, of a session tree), ``report``, ``view``, ``treeview``, ``plot``
(how it is shown).
"""

from .driver import Replay
from .lines import TranscriptError
from .report import ReplayReport
from .run import choose_model, replay_file
from .transcript import ImportReport, Transcript, load_transcript

__all__ = ["ImportReport", "Replay", "ReplayReport", "Transcript", "TranscriptError",
           "choose_model", "load_transcript", "replay_file"]
