"""Exercise 4.1 — the summary request: a template with a slot for everything that must survive
(guide §12.4, §12.3, §14 stage 4 "坑 2").

Asked to "summarize the conversation", a model writes a fluent paragraph that reads well and
drops the paths, the error texts and what the user said not to do: next to the story of the
task they look like details. A template names a slot for each of them, and the model has to
fill every slot. The slot that matters most asks for every user message, verbatim: the model
does not get to decide which of the user's words still matter (§12.3).

The model is also asked to think first, inside ``<analysis>`` tags. That scratchpad improves
the summary for the price of some output tokens, and ``read_summary`` throws it away, so it
never takes up context (§12.4).
"""

from __future__ import annotations

import re

from .errors import EmptySummary

SECTIONS: tuple[tuple[str, str], ...] = (
    ("Original goal", "what the user asked for at the start, in the user's own words where "
                      "possible"),
    ("Files and code", "every file that was read, changed or created, with its exact path, "
                       "and what it showed or what was changed in it"),
    ("Errors and fixes", "every error or failing check, with its exact message, and how it "
                         "was fixed"),
    ("Every user message", "each message the user wrote (not the tool results), quoted "
                           "verbatim and oldest first, rules and objections included"),
    ("Pending work", "what the user asked for that is not done yet"),
    ("Current work", "exactly what was being done right before this request"),
    ("Next step", "the one next action, only if it follows from the user's latest request"),
)
"""The slots of the structured summary, each with what to write in it (guide §14 stage 4)."""

FREE_FORM = "Please summarize the conversation so far."
"""The request everyone writes first (§14 stage 4, first step): kept to show what it loses."""

_ANALYSIS = re.compile(r"<analysis>.*?(?:</analysis>|$)", re.S)
_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|$)", re.S)


def summary_prompt(*, structured: bool = True) -> str:
    """The text of the user message that asks for the summary.

    ``structured=False`` gives ``FREE_FORM``. Otherwise the text says why the summary is needed
    (older messages are about to be removed and the work goes on from the summary alone), that
    no tool may be called, to think first inside ``<analysis>`` tags and then to write the
    summary inside ``<summary>`` tags with one numbered line per slot of ``SECTIONS``
    (``"3. Errors and fixes: what to write."``), and that paths, commands and error texts are
    to be kept exactly while whole file contents are not (files are re-read afterwards, §10.2).
    """
    ### BEGIN SOLUTION 4.1
    if not structured:
        return FREE_FORM
    slots = "\n".join(f"{n}. {title}: {what}." for n, (title, what) in enumerate(SECTIONS, 1))
    return (
        "Please stop the task for a moment and summarize the conversation so far. The older "
        "messages are about to be removed, and the work will go on from your summary alone. "
        "Answer with text only and do not call any tool.\n\n"
        "First think inside <analysis></analysis> tags: go through the conversation in order "
        "and note each request of the user, each file and what it showed, each error and what "
        "is still left to do. Then write the summary inside <summary></summary> tags, with "
        "one section for each of these slots, in this order:\n\n"
        f"{slots}\n\n"
        "Keep paths, commands, error texts and numbers exactly as they appeared. Leave out "
        "whole file contents: the files will be read again after the summary."
    )
    ### END SOLUTION


def read_summary(reply: str) -> str:
    """The summary in the summarizer's reply: ``<analysis>`` removed, ``<summary>`` unwrapped.

    Raises ``EmptySummary`` when nothing is left.
    """
    text = _ANALYSIS.sub("", reply)
    inside = _SUMMARY.search(text)
    summary = (inside.group(1) if inside else text).strip()
    if not summary:
        raise EmptySummary("the summarizer's reply holds no summary")
    return summary
