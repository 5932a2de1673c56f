"""The API-rule check of a replay and the offline summarizer behind it (§9.2, R14, §12.4)."""

from __future__ import annotations

import copy
from pathlib import Path

from s2_truncate import first_violation

from ctxlab.replay import load_transcript
from ctxlab.replay.check import violation
from ctxlab.replay.signatures import SignatureBook
from ctxlab.replay.summarizer import write_summary
from ctxlab.sim import wording

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
MODEL = "claude-haiku-4-5"


def history() -> list[dict]:
    """The split-interleaved fixture up to the user message after its last thinking block."""
    return load_transcript(FIXTURES / "split-interleaved.jsonl").messages[:7]


def test_recorded_thinking_verifies_only_when_vouched_for() -> None:
    messages = history()
    book = SignatureBook(messages)
    assert violation(messages, model=MODEL, book=book) is None
    raw = violation(messages, model=MODEL)  # a real signature never verifies offline
    assert raw == wording.THINKING_SIGNATURE.format(i=5, j=0)


def test_a_thinking_block_a_layer_edited_still_breaks_r14() -> None:
    messages = history()
    book = SignatureBook(messages)
    edited = copy.deepcopy(messages)
    edited[5]["content"][0]["thinking"] += " (shortened by a layer)"
    assert violation(edited, model=MODEL, book=book) == \
        wording.THINKING_SIGNATURE.format(i=5, j=0)


def test_the_check_words_a_broken_pairing_as_stage_two_does() -> None:
    messages = history()
    orphaned = messages[:1] + messages[2:]  # the first results lose their calls
    problem = violation(orphaned, model=MODEL, book=SignatureBook(messages))
    assert problem is not None and problem == first_violation(orphaned)


def test_the_summary_quotes_every_user_message_and_names_the_files() -> None:
    messages = load_transcript(FIXTURES / "compacted.jsonl", whole_file=True).messages
    ask = "Please summarize the conversation so far."
    summary = write_summary([*messages, {"role": "user", "content": [
        {"type": "text", "text": ask}]}], ask)
    assert summary.startswith("<summary>") and ask not in summary
    for said in ("Set up structured logging for the service in /srv/app.",
                 "Use JSON lines for the log format.", "Great. Add a test for it."):
        assert f"<user-message>\n{said}\n</user-message>" in summary
    assert "- /srv/app/main.py" in summary and "- /srv/app/test_logging.py" in summary
    again = write_summary([{"role": "user", "content": [{"type": "text", "text": summary}]}])
    assert again.count("<user-message>") == summary.count("<user-message>")


def test_the_incremental_check_finds_what_the_whole_check_finds() -> None:
    """``Checker`` checks only what changed; on a history that grows, is cut (stage 2's naive
    cut leaves orphan results) and is edited, it answers as ``violation`` on the whole does,
    message numbers included."""
    from ctxlab.replay.check import Checker
    from ctxlab.replay.measure import Sizer, count_messages

    messages = load_transcript(FIXTURES / "split-interleaved.jsonl").messages
    book = SignatureBook(messages)
    checker, sizer = Checker(model=MODEL, book=book), Sizer()
    states = [messages[:n] for n in range(1, len(messages) + 1)]
    states += [messages[:1] + messages[3:], messages[:1] + messages[2:]]  # cut, with an orphan
    edited = copy.deepcopy(messages)
    edited[5]["content"][0]["thinking"] += " (shortened by a layer)"
    states += [messages, edited, messages]
    answers = [(checker(s), violation(s, model=MODEL, book=book)) for s in states]
    assert all(mine == whole for mine, whole in answers), answers
    assert any(whole is not None for _, whole in answers)  # the sequence does break rules
    assert all(sizer.count(s) == count_messages(s) for s in states)
