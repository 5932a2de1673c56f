"""Generated files, the user's messages and the success check of a scenario."""

from __future__ import annotations

import ast
import base64

import pytest

from ctxlab.scenarios import FollowUps, check, load, materialize, open_workspace, opening
from ctxlab.scenarios.generate import KINDS, text


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_generated_text_is_deterministic_bounded_and_carries_markers(kind: str) -> None:
    first = text(kind, 20_000, "seed-a", ("MARKER-ONE", "MARKER-TWO"))
    assert first == text(kind, 20_000, "seed-a", ("MARKER-ONE", "MARKER-TWO"))
    assert first != text(kind, 20_000, "seed-b", ("MARKER-ONE", "MARKER-TWO"))
    assert 18_000 < len(first) <= 20_000
    assert "MARKER-ONE" in first and "MARKER-TWO" in first
    if kind.startswith("python"):
        ast.parse(first)


@pytest.mark.parametrize(("place", "in_head", "in_tail"), [
    ("head", True, False), ("middle", False, False), ("tail", False, True)])
def test_marker_placement_decides_what_a_head_tail_preview_shows(place: str, in_head: bool,
                                                                 in_tail: bool) -> None:
    body = text("log", 40_000, "p", ("THE-FACT",), place)
    assert ("THE-FACT" in body[:2000]) is in_head
    assert ("THE-FACT" in body[-2000:]) is in_tail


def test_materialize_writes_the_generated_files_with_their_facts(tmp_path) -> None:
    scenario = load("parallel-burst")
    written = materialize(scenario, tmp_path)
    assert len(written) == 10
    node3 = (tmp_path / "logs" / "node-03.log").read_text()
    assert scenario.marker("orders-peak") in node3
    assert 39_000 < len(node3) <= 40_000


def test_opening_keeps_task_constraints_and_images_as_separate_blocks() -> None:
    constraint = load("constraint")
    blocks = opening(constraint)["content"]
    assert [b["text"] for b in blocks] == [constraint.task, constraint.constraints[0].text]
    images = opening(load("images"))["content"]
    pictures = [b for b in images if b["type"] == "image"]
    assert len(pictures) == 2
    assert base64.b64decode(pictures[0]["source"]["data"]).startswith(b"\x89PNG")


def test_follow_ups_are_released_once_after_their_step() -> None:
    scenario = load("chat-heavy")
    follow = FollowUps(scenario)
    assert follow.after([("read_file", {"path": "services/svc-009.conf"})]) == []
    due = follow.after([("read_file", {"path": "services/svc-010.conf"})])
    assert [b["text"] for b in due] == [scenario.messages[0].text]
    assert follow.after([("read_file", {"path": "services/svc-010.conf"})]) == []


def test_check_fails_when_a_protected_file_changes() -> None:
    scenario = load("constraint")
    with open_workspace(scenario) as workspace:
        root = workspace.root
        assert not check(scenario, root).passed  # the bug is still there
        job = root / "report_job.py"
        job.write_text(job.read_text().replace("return config.HTTP_TIMEOUT_S", "return 30"))
        assert check(scenario, root).passed
        config = root / "config.py"
        config.write_text(config.read_text().replace("= 5", "= 30"))
        result = check(scenario, root)
        assert not result.passed
        assert result.problems == ("config.py was changed, but the task must leave it as it was",)
