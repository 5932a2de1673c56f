"""One call to replay a session log through a stage: ``replay_file(path, stage=3)`` (DESIGN §6).

It imports the log, picks the model whose window and prices apply (the log's own when the
model table knows it, else the workbook's default; ``model`` overrides), builds the stage's
layer (``make_layer(**options)``; stage 1 has none) — or, with ``layer="MODULE:FACTORY"``,
that factory's (``ctxlab.custom``, called with ``options``) — finds the window the session ran at
(``session_window``) and replays in a fresh temporary
workspace, so nothing a layer offloads lands in the learner's tree. That workspace is deleted
afterwards, so it is ``disposable``: what the layer writes there is written as everywhere
(temporary file and link, append-only, never through a link) but not forced to disk. What
was alive before the replay is set aside from the cyclic collector while it runs
(``startup.set_aside``): the collector's full passes then walk only what the replay made.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ctxlab import custom, models, startup
from ctxlab.tools.durability import disposable
from ctxlab.workbook.layout import load_stage

from .driver import Replay
from .lines import MAX_BYTES
from .report import ReplayReport
from .select import Boundary
from .transcript import Transcript, load_transcript


def choose_model(requested: str | None, recorded: str | None) -> tuple[str, str]:
    """The model id to size and price the replay with, and a note saying why."""
    if requested is not None:
        return models.get(requested).id, "chosen with --model"
    spec = models.lookup(recorded.removesuffix(models.LONG_CONTEXT)) if recorded else None
    if spec is not None:
        return spec.id, "the model recorded in the log"
    if recorded is None:
        return models.DEFAULT_MODEL, "the log names no model; the workbook's default"
    return models.DEFAULT_MODEL, (f"{recorded} is not in the model table (ctxlab models); "
                                  "the workbook's default")


def session_window(model: str, recorded: str | None, boundaries: list[Boundary],
                   requested: int | None = None) -> tuple[int, str]:
    """The window the session ran at, and how that is known: ``--window``; a ``[1m]`` model
    id; a recorded compaction, which the client ran before the window was full, so the
    window is the smallest one the client offers that holds its pre-compaction size; else
    the client's default (Claude Code's 200K, the model's own window when smaller)."""
    full = models.get(model).context_window
    default = min(models.CLIENT_WINDOW, full)
    if requested is not None:
        return requested, "set with --window"
    if recorded and recorded.endswith(models.LONG_CONTEXT):
        return full, f"the log's model id carries {models.LONG_CONTEXT}"
    sizes = [b.pre_tokens for b in boundaries if b.pre_tokens]
    if sizes:
        window = default if max(sizes) <= default else full
        return window, (f"the session compacted at {max(sizes):,} tokens, so it ran at "
                        f"{window:,}")
    if default < full:
        return default, (f"Claude Code's default; the model offers {full:,} with "
                         f"{models.LONG_CONTEXT}")
    return full, "the model's window"


def replay_file(path: str | Path, stage: int | None = None, *, model: str | None = None,
                window: int | None = None, whole_file: bool = False,
                options: dict[str, Any] | None = None, layer: str | None = None,
                max_bytes: int = MAX_BYTES) -> ReplayReport:
    """Replay the session log at ``path`` (at most ``max_bytes`` long) through stage
    ``stage``'s context layer, or through ``layer`` (``MODULE:FACTORY``) instead."""
    if (stage is None) == (layer is None):
        raise ValueError("replay through a stage or a layer: give exactly one")
    transcript = load_transcript(path, whole_file=whole_file, max_bytes=max_bytes)
    return replay_transcript(transcript, stage, model=model, window=window, options=options,
                             layer=layer)


def replay_transcript(transcript: Transcript, stage: int | None, *, model: str | None = None,
                      window: int | None = None, options: dict[str, Any] | None = None,
                      layer: str | None = None, billed: set[str] | None = None
                      ) -> ReplayReport:
    """Replay an imported history through stage ``stage`` or ``layer``; ``billed`` holds the
    message ids whose recorded usage another member of the same session tree has billed
    already."""
    recorded = transcript.report.model
    model_id, note = choose_model(model, recorded)
    size, why = session_window(model_id, recorded, transcript.report.boundaries, window)
    made = (custom.build(layer, options) if layer is not None
            else load_stage(stage).make_layer(**(options or {})))
    with tempfile.TemporaryDirectory(prefix="ctxlab-replay-") as folder, \
            disposable(Path(folder).resolve()) as workspace, startup.set_aside():
        return Replay(transcript, made, stage=layer or stage, model=model_id, model_note=note,
                      workspace=workspace, window=size, window_note=why,
                      billed=billed).run()
