"""The appendix B map (``ctxlab.workbook.checklist``): every item of the guide's checklist has a
test or is named in ``UNCOVERED`` with the reason, every marker names a real item, and
docs/checklist.md and its Chinese twin are what the markers give."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab.cli import main
from ctxlab.workbook import checklist_page
from ctxlab.workbook.checklist import (
    ITEMS,
    PARTLY,
    UNCOVERED,
    Mark,
    coverage,
    marks,
    problems,
)
from ctxlab.workbook.layout import repo_root

GUIDE = repo_root().parent / "shared" / "seeds" / "002_f51897f86c56323c.txt"


@pytest.fixture(scope="module")
def found() -> list[Mark]:
    return marks(repo_root())


def test_every_item_has_a_test_and_every_marker_a_known_item(found: list[Mark]) -> None:
    assert problems(found) == []


def test_the_items_not_covered_yet_or_partly_are_exactly_the_named_ones(
        found: list[Mark]) -> None:
    """Covering one of them fails until it leaves its list: the lists only shrink."""
    rows = coverage(found)
    assert [r.item.id for r in rows if r.status == "uncovered"] == sorted(UNCOVERED) == []
    assert [r.item.id for r in rows if r.status == "partly"] == sorted(PARTLY) == ["B.33"]


def test_a_new_item_an_unknown_name_and_an_outgrown_list_are_reported(
        monkeypatch: pytest.MonkeyPatch) -> None:
    every = [Mark("tests/x.py::test_all", tuple(i.id for i in ITEMS if i.id not in UNCOVERED
                                                and i.id not in PARTLY), None),
             Mark("tests/x.py::test_part", tuple(PARTLY), "some of it")]
    assert problems(every) == []
    missing = [Mark(every[0].test, every[0].items[1:], None), every[1]]
    assert problems(missing) == ["B.1 (工具结果有单体预算吗？) has no test: mark one with "
                                 "@pytest.mark.checklist('B.1')"]
    assert problems([*every, Mark("tests/y.py::test_y", ("B.35",), None)]) == [
        "tests/y.py::test_y: unknown checklist item 'B.35' (B.1 to B.34)"]
    assert problems([*every, Mark("tests/z.py::test_z", ("B.33",), None)]) == [
        "B.33 is covered: take it out of PARTLY"]
    assert problems([*every, Mark("tests/z.py::test_z", ("B.1",), "half")]) == []
    assert problems([every[0]])[-1] == "B.33 is uncovered: take it out of PARTLY"
    monkeypatch.setitem(UNCOVERED, "B.20", ("not yet", "还没有"))
    assert problems(every) == ["B.20 is covered: take it out of UNCOVERED"]


@pytest.mark.skipif(not GUIDE.is_file(), reason=f"the guide is not at {GUIDE}")
def test_the_items_are_the_guides_checklist_in_its_order() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("B. 三十秒自检清单")
    boxes = [line[4:].strip() for line in text[start:text.index("C. 常见误区速查", start)]
             .splitlines() if line.startswith("[ ] ")]
    assert boxes == [item.zh for item in ITEMS]


def test_markers_are_read_from_the_source(tmp_path: Path) -> None:
    folder = tmp_path / "tests" / "sub"
    folder.mkdir(parents=True)
    (folder / "test_a.py").write_text(
        "import pytest\n"
        "pytestmark = pytest.mark.checklist('B.2')\n\n"
        "@pytest.mark.checklist('B.1', 'B.3', partly='only the path')\n"
        "def test_one():\n    pass\n\n"
        "class TestGroup:\n"
        "    @pytest.mark.checklist('B.4')\n"
        "    def test_two(self):\n        pass\n", encoding="utf-8")
    assert marks(tmp_path) == [Mark("tests/sub/test_a.py", ("B.2",), None),
                               Mark("tests/sub/test_a.py::test_one", ("B.1", "B.3"),
                                    "only the path"),
                               Mark("tests/sub/test_a.py::TestGroup::test_two", ("B.4",), None)]
    (folder / "test_b.py").write_text("import pytest\nITEM = 'B.1'\n"
                                      "@pytest.mark.checklist(ITEM)\ndef test_x():\n    pass\n",
                                      encoding="utf-8")
    with pytest.raises(ValueError, match=r"tests/sub/test_b.py:3: write checklist"):
        marks(tmp_path)


def test_an_item_only_partly_checked_says_so() -> None:
    rows = coverage([Mark("tests/a.py::test_a", ("B.33",), "on the drill only"),
                     Mark("tests/b.py::test_b", ("B.1",), None),
                     Mark("tests/c.py::test_c", ("B.1",), "half")])
    status = {row.item.id: row.status for row in rows}
    assert (status["B.33"], status["B.1"], status["B.2"]) == ("partly", "covered", "uncovered")
    page = checklist_page.render(rows, "en")
    assert "`tests/a.py::test_a` (partly: on the drill only)<br>**partly**: " in page
    assert "**1 covered, 1 partly, 32 not covered yet** (of 34)." in page


def test_the_pages_are_what_the_markers_give(found: list[Mark], monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(checklist_page, "marks", lambda root: found)  # the tree, read once
    assert main(["workbook", "checklist", "--check"]) == 0, "run `ctxlab workbook checklist`"
    assert "up to date: docs/checklist.md, docs/checklist.zh-CN.md" in capsys.readouterr().out
    one_more = Mark("tests/x.py::test_x", ("B.1",), None)
    monkeypatch.setattr(checklist_page, "marks", lambda root: [*found, one_more])
    assert main(["workbook", "checklist", "--check"]) == 1
    assert "out of date: docs/checklist.md, docs/checklist.zh-CN.md" in capsys.readouterr().out
    unknown = Mark("tests/x.py::test_x", ("B.0",), None)
    monkeypatch.setattr(checklist_page, "marks", lambda root: [*found, unknown])
    assert main(["workbook", "checklist", "--check"]) == 2
    assert "unknown checklist item 'B.0'" in capsys.readouterr().err
