"""``ctxlab calibrate``: each statistic on small hand-made Claude Code logs with known answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxlab.calibrate import items, mentions, new_items
from ctxlab.calibrate.report import calibrate
from ctxlab.cli import main
from ctxlab.kinds import file_of, kind_of


class Log:
    """Writes a Claude Code style log: one block per assistant line, usage on every line."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.calls = 0

    def user(self, text: str) -> Log:
        self.lines.append({"type": "user", "timestamp": f"t{len(self.lines)}",
                           "message": {"role": "user", "content": text}})
        return self

    def reply(self, mid: str, *blocks: dict[str, Any], out: int = 50,
              partial: int | None = None) -> Log:
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            shown = out if last or partial is None else partial
            self.lines.append({"type": "assistant", "message": {
                "id": mid, "role": "assistant", "model": "claude-x", "content": [block],
                "usage": {"input_tokens": 100, "output_tokens": shown}}})
        return self

    def results(self, *texts: str) -> Log:
        ids = [b["id"] for line in self.lines if line["type"] == "assistant"
               for b in line["message"]["content"] if b["type"] == "tool_use"][-len(texts):]
        for tid, text in zip(ids, texts, strict=True):
            self.lines.append({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tid, "content": text}]}})
        return self

    def call(self, name: str, **tool_input: str) -> dict[str, Any]:
        self.calls += 1
        return {"type": "tool_use", "id": f"toolu_{self.calls}", "name": name,
                "input": tool_input}

    def save(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        return path


def text(said: str) -> dict[str, Any]:
    return {"type": "text", "text": said}


def test_items_are_quantities_file_names_and_error_names() -> None:
    found = items("p95 is 880 ms over 12.5KB; see src/app/invoice.py and setup.cfg\n"
                  "KeyError: 'x'\nFAIL discount_taken_once\n40% done")
    assert found == {"qty:880ms", "qty:12.5kb", "qty:40%", "file:invoice.py", "file:setup.cfg",
                     "error:KeyError", "error:discount_taken_once"}
    # versions, dotted names, URLs and bare numbers are not items
    assert items("version 2.1.6 os.path self.run 42 https://example.com/a.py") == set()


def test_an_item_counts_only_where_it_is_new() -> None:
    result = "invoice.py: 3 tests failed, took 880 ms"
    assert new_items(result, '{"path": "invoice.py"}', ["please fix it"]) == {
        "qty:3tests", "qty:880ms"}
    assert new_items(result, "{}", ["it took 880 ms last time"]) == {
        "file:invoice.py", "qty:3tests"}


def test_a_mention_is_a_whole_word_or_an_equal_quantity() -> None:
    assert mentions("the baseline is 880ms", {"qty:880ms"})
    assert mentions("the bug is in invoice.py.", {"file:invoice.py"})
    assert not mentions("see old_invoice.pyc", {"file:invoice.py"})
    assert not mentions("8800 ms", {"qty:880ms"})
    assert not mentions("anything", set())


def test_note_rate_counts_restated_items_before_the_next_call(tmp_path: Path) -> None:
    log = Log().user("Why is billing slow?")
    c1 = log.call("Bash", command="bench billing")
    log.reply("m1", text("Measuring."), c1).results("billing p95: 880 ms")
    c2 = log.call("Read", file_path="billing.py")
    # restated: noted (1 of 1 so far)
    log.reply("m2", text("Billing takes 880 ms; reading the code."), c2)
    log.results("def bill(): slow_query()  # see queries.sql")
    c3 = log.call("Grep", pattern="slow_query")
    # not restated (thinking does not count): 1 of 2
    log.reply("m3", {"type": "thinking", "thinking": "queries.sql", "signature": "s"},
              text("Searching."), c3).results("no matches")  # no item: not counted
    c4 = log.call("Bash", command="run tests")
    log.reply("m4", text("Running tests."), c4).results("FAIL test_bill_speed")
    c5 = log.call("Bash", command="profile")
    # said only after the next call: not a note (1 of 3)
    log.reply("m5", text("Profiling."), c5, text("test_bill_speed failed")).results("ok")
    log.reply("m6", text("Done."))
    stats = calibrate([log.save(tmp_path / "s.jsonl")]).stats
    assert stats["note_rate"] == pytest.approx(1 / 3, abs=1e-4)


def test_output_tokens_skip_partial_records(tmp_path: Path) -> None:
    log = Log().user("Go.")
    for n, out in enumerate([10, 20, 30, 40, 400], 1):
        log.reply(f"m{n}", text("ok"), log.call("Bash", command=f"step {n}"), out=out)
        log.results("done")
    # a long reply whose last line still holds the stream's first figure: partial, left out
    log.reply("m9", text("word " * 400), out=1)
    result = calibrate([log.save(tmp_path / "s.jsonl")])
    assert result.stats["output_tokens_median"] == 30.0
    assert result.stats["output_tokens_p90"] == 400.0
    assert result.stats["responses"] == 6
    assert any("partial" in note for note in result.notes)


def test_parallel_mean_is_over_responses_that_call(tmp_path: Path) -> None:
    log = Log().user("Look around.")
    log.reply("m1", log.call("Read", file_path="a.py"), log.call("Read", file_path="b.py"),
              log.call("Glob", pattern="*.md")).results("a", "b", "c")
    log.reply("m2", text("Now one."), log.call("Bash", command="ls")).results("x")
    log.reply("m3", text("Done, no call."))
    assert calibrate([log.save(tmp_path / "s.jsonl")]).stats["parallel_mean"] == 2.0


def test_reread_rate_in_both_vocabularies(tmp_path: Path) -> None:
    log = Log().user("Edit things.")
    steps = [("Read", {"file_path": "a.py"}), ("Read", {"file_path": "a.py"}),   # re-read
             ("Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"}),
             ("Read", {"file_path": "a.py"}),                                     # after a write
             ("read_file", {"path": "b.py"}), ("read_file", {"path": "b.py"})]   # re-read
    for n, (name, tool_input) in enumerate(steps, 1):
        log.reply(f"m{n}", log.call(name, **tool_input)).results("content")
    log.reply("end", text("Done."))
    assert calibrate([log.save(tmp_path / "s.jsonl")]).stats["reread_rate"] == 0.4


def test_an_errored_call_is_no_read_and_no_write(tmp_path: Path) -> None:
    """A read or a write counts when its result comes back without ``is_error``: a read that
    retries a failed read is the file's first read, and a failed edit leaves the earlier read
    in view, so the read after it is a re-read."""
    log = Log().user("Edit things.")
    steps = [("Read", {"file_path": "a.py"}, True),    # no such file yet: no read
             ("Read", {"file_path": "a.py"}, False),   # the first read, not a re-read
             ("Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"}, True),
             ("Read", {"file_path": "a.py"}, False)]   # a re-read: the edit changed nothing
    for n, (name, tool_input, failed) in enumerate(steps, 1):
        log.reply(f"m{n}", log.call(name, **tool_input)).results("content")
        log.lines[-1]["message"]["content"][0]["is_error"] = failed
    log.reply("end", text("Done."))
    stats = calibrate([log.save(tmp_path / "s.jsonl")]).stats
    assert stats["reread_rate"] == stats["reread_in_view_rate"] == 0.5


def test_rereads_split_into_in_view_and_after_a_compaction(tmp_path: Path) -> None:
    """A re-read is in view when no compaction came between the two reads (the earlier result
    is still in the request), else after a compaction (its ``compact_boundary`` line)."""
    log = Log().user("Go.")
    for n in (1, 2, 3):
        log.reply(f"m{n}", log.call("Read", file_path="a.py")).results("content")
    log.reply("end", text("Done."))
    for k, line in enumerate(log.lines):
        line["timestamp"] = f"2026-01-01T00:00:{k:02d}Z"
    third = next(k for k, line in enumerate(log.lines)
                 if line["type"] == "assistant" and line["message"]["id"] == "m3")
    log.lines.insert(third, {"type": "system", "subtype": "compact_boundary",
                             "timestamp": log.lines[third]["timestamp"],
                             "compactMetadata": {"trigger": "auto", "preTokens": 1000}})
    stats = calibrate([log.save(tmp_path / "s.jsonl")]).stats
    assert stats["reread_rate"] == 0.6667
    assert stats["reread_in_view_rate"] == stats["reread_after_compaction_rate"] == 0.3333


def test_relogged_copies_are_not_counted_twice(tmp_path: Path) -> None:
    log = Log().user("Go.")
    log.reply("m1", text("ok"), log.call("Bash", command="ls"), out=30).results("x")
    log.reply("m2", text("done"), out=40)
    log.lines += [json.loads(json.dumps(line)) for line in log.lines[1:3]]  # resumed copy
    stats = calibrate([log.save(tmp_path / "s.jsonl")]).stats
    assert stats["responses"] == 2
    assert stats["output_tokens_median"] == 35.0


def test_compaction_calls_and_single_responses_count_only_as_sessions(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    (folder / "sub" / "subagents").mkdir(parents=True)
    Log().user("Summarize the conversation.").reply(
        "c1", text("<summary>all of it</summary>"), out=900).save(
        folder / "sub" / "subagents" / "agent-acompact-1.jsonl")
    Log().user("Hi").reply("s1", text("Hello"), out=700).save(folder / "one.jsonl")
    log = Log().user("Go.")
    log.reply("m1", text("ok"), log.call("Bash", command="ls"), out=30).results("x")
    log.reply("m2", text("done"), out=40).save(folder / "work.jsonl")
    result = calibrate([folder])
    assert result.stats["sessions"] == 3
    assert result.stats["responses"] == 2
    assert result.stats["output_tokens_p90"] == 40.0
    excluded = {f.file: f.excluded for f in result.files}
    assert excluded == {"one.jsonl": "a single response", "work.jsonl": None,
                        "sub/subagents/agent-acompact-1.jsonl": "a compaction call"}
    assert sum("left out of the statistics" in n for n in result.notes) == 2


def test_the_json_has_exactly_the_issue_keys(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    log = Log().user("Go.")
    log.reply("m1", text("ok"), log.call("Bash", command="ls")).results("x")
    log.reply("m2", text("done")).save(tmp_path / "a.jsonl")
    assert main(["calibrate", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["sessions", "parents", "sidechains", "responses",
                          "output_tokens_median", "output_tokens_p90", "parallel_mean",
                          "note_rate", "reread_rate", "reread_in_view_rate",
                          "reread_after_compaction_rate", "by_role", "per_session",
                          "leave_one_source_out", "files"]
    assert data["files"][0]["file"] == "a.jsonl"
    assert list(data["by_role"]) == ["parents", "sidechains"]


SESSIONS = Path(__file__).resolve().parents[2] / "fixtures" / "sessions"


def test_parents_and_sidechains_are_counted_and_measured_apart() -> None:
    """``fixtures/sessions``: a parent with an Explore sub-agent and its compaction call, an
    orphan sub-agent, one file holding two sessions."""
    result = calibrate([SESSIONS])
    assert {k: result.stats[k] for k in ("sessions", "parents", "sidechains")} == {
        "sessions": 4, "parents": 3, "sidechains": 3}
    kinds = {f.file.rsplit("/", 1)[-1]: (f.role, f.kind, f.excluded) for f in result.files}
    assert kinds["agent-acompact-5c0f11.jsonl"][:2] == ("sidechains", "compaction")
    assert "no agent turn" in kinds["agent-acompact-5c0f11.jsonl"][2]
    assert kinds["agent-a5e1f00.jsonl"] == ("sidechains", "explore", None)
    roles = result.by_role
    assert (roles["parents"]["responses"], roles["sidechains"]["responses"]) == (8, 4)
    assert roles["sidechains"]["parallel_mean"] == 1.5  # the Explore agent's two calls
    assert result.stats["responses"] == 12  # the compaction call is no agent turn


def test_a_read_in_another_session_of_the_same_file_is_no_reread(tmp_path: Path) -> None:
    log = Log().user("Look.")
    log.reply("m1", log.call("Read", file_path="a.py"), out=30).results("x = 1")
    log.reply("m2", text("seen"), out=30)
    resumed = Log().user("Again.")
    resumed.calls = log.calls
    resumed.reply("m3", resumed.call("Read", file_path="a.py"), out=30).results("x = 1")
    resumed.reply("m4", text("same"), out=30)
    log.lines = [line | {"sessionId": "old"} for line in log.lines] + [
        line | {"sessionId": "new"} for line in resumed.lines]
    stats = calibrate([log.save(tmp_path / "two.jsonl")]).stats
    assert (stats["sessions"], stats["parents"], stats["reread_rate"]) == (2, 2, 0.0)


def test_a_missing_path_is_one_clear_line(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_one_kind_table_for_both_vocabularies() -> None:
    assert [kind_of(n) for n in ("Read", "read_file", "Edit", "write_file", "Bash",
                                 "run_command", "Grep", "search_docs", "TodoWrite")] == [
        "read", "read", "write", "write", "run", "run", "search", "search", None]
    assert file_of("Read", {"file_path": "a.py"}) == file_of("read_file", {"path": "a.py"})
    assert file_of("Bash", {"command": "cat a.py"}) is None
