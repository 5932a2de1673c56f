"""One call to replay a session log through a stage: ``replay_file(path, stage=3)`` (DESIGN §6).

It imports the log, picks the model whose window and prices apply (the log's own when the
model table knows it, else the workbook's default; ``model`` overrides), builds the stage's
layer (``make_layer(**options)``; stage 1 has none) and replays in a fresh temporary
workspace, so nothing a layer offloads lands in the learner's tree.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ctxlab import models
from ctxlab.runner import load_stage

from .driver import Replay
from .lines import MAX_BYTES
from .report import ReplayReport
from .transcript import load_transcript


def choose_model(requested: str | None, recorded: str | None) -> tuple[str, str]:
    """The model id to size and price the replay with, and a note saying why."""
    if requested is not None:
        return models.get(requested).id, "chosen with --model"
    spec = models.lookup(recorded) if recorded else None
    if spec is not None:
        return spec.id, "the model recorded in the log"
    if recorded is None:
        return models.DEFAULT_MODEL, "the log names no model; the workbook's default"
    return models.DEFAULT_MODEL, (f"{recorded} is not in the model table (ctxlab models); "
                                  "the workbook's default")


def replay_file(path: str | Path, stage: int, *, model: str | None = None,
                window: int | None = None, whole_file: bool = False,
                options: dict[str, Any] | None = None,
                max_bytes: int = MAX_BYTES) -> ReplayReport:
    """Replay the session log at ``path`` (at most ``max_bytes`` long) through stage
    ``stage``'s context layer."""
    transcript = load_transcript(path, whole_file=whole_file, max_bytes=max_bytes)
    model_id, note = choose_model(model, transcript.report.model)
    layer = load_stage(stage).make_layer(**(options or {}))
    with tempfile.TemporaryDirectory(prefix="ctxlab-replay-") as folder:
        return Replay(transcript, layer, stage=stage, model=model_id, model_note=note,
                      workspace=Path(folder).resolve(), window=window).run()
