"""The loss manifest: what a context layer removed, and where each piece lives now (§3.2, §9.1).

A context layer may remove anything from the context, but it must be able to say where it went.
This package compares the *original* history — every block that ever entered the context,
tool results as the tools returned them — with the final context, the offload folder
(``.task_outputs/tool-results/<id>.txt``, stage 3) and the transcript archive
(``.transcripts/session.jsonl``, stage 4), and gives every tool call, file, user message and
image one status:

- ``in context``: still there in full (a user text re-injected verbatim counts);
- ``in summary``: only a summary carries it (a user text quoted in it; a call or a file whose
  path or command it names);
- ``on disk``: the full copy is in an offloaded file or in the archived transcript (``where``),
  or — for a file — in the workspace, no longer visible to the model;
- ``nowhere``: gone for good.

``why`` names what removed it: the layers that fired in the turn where it left the context
(``snip``, ``microcompact``, ``truncate``, ``ptl-drop``, ``blocking``, ``summary``, ``offload``…),
as the ``Tracker`` saw them. The runner feeds a ``Tracker`` (``RunResult.loss``); tests and
notebooks can call ``manifest`` directly on any original/final pair.

Modules, in reading order: ``checksums`` and ``offloads`` (offloaded files and their
checksums), ``view`` (what a history shows, and what only a summary carries),
``manifest`` (the statuses), ``tracker`` (the original history and the reasons). The lab bench
never imports a stage: the folder names are the stages' conventions, which the simulated agent
relies on as well.
"""

from .checksums import CHECKSUMS, verify
from .manifest import (
    IN_CONTEXT,
    IN_SUMMARY,
    KINDS,
    NOWHERE,
    OFFLOAD_DIR,
    ON_DISK,
    STATUSES,
    TRANSCRIPT,
    Item,
    LossManifest,
    manifest,
    user_texts,
)
from .offloads import OffloadBatch, OffloadFolders, offload_batch, write_offloaded
from .tracker import UNREPORTED, Tracker
from .view import View, result_text, summary_core

__all__ = [
    "CHECKSUMS", "IN_CONTEXT", "IN_SUMMARY", "KINDS", "NOWHERE", "OFFLOAD_DIR", "ON_DISK",
    "STATUSES", "TRANSCRIPT", "UNREPORTED", "Item", "LossManifest", "OffloadBatch",
    "OffloadFolders", "Tracker", "View", "manifest", "offload_batch", "result_text",
    "summary_core", "user_texts", "verify", "write_offloaded",
]
