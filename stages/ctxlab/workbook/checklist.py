"""The guide's appendix B, the thirty-second checklist, joined to the tests that check it.

A test names the items it checks with ``@pytest.mark.checklist("B.12")`` (several ids at once,
and ``partly="..."`` when it checks only part of an item). The items are numbered B.1–B.34 in
the order the guide lists them. ``marks()`` reads the markers from the source of ``tests/``
(nothing is imported or run), ``coverage()`` joins them with the items, and ``problems()``
names what does not add up: an unknown item, an item no test checks that is not in
``UNCOVERED`` or one only partly checked that is not in ``PARTLY``, and an item either lists
that its tests have outgrown.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

SECTIONS = {  # key: (English, the guide's heading)
    "entry": ("Entry control", "入口控制"), "cache": ("Caching", "缓存"),
    "compress": ("Compaction", "压缩"), "failure": ("Failure handling", "失败处理"),
    "isolation": ("Recursion and isolation", "递归与隔离"), "rebuild": ("Rebuild", "重建"),
    "safety": ("Safety", "安全"), "measure": ("Measurement", "度量"),
}


@dataclass(frozen=True)
class Item:
    id: str
    section: str  # a key of SECTIONS
    zh: str  # the guide's words
    en: str  # an English rendering
    ref: str  # where the guide explains it


def _items(*rows: tuple[str, str, str, str]) -> tuple[Item, ...]:
    return tuple(Item(f"B.{n}", *row) for n, row in enumerate(rows, start=1))


ITEMS = _items(
    ("entry", "工具结果有单体预算吗？", "Does each tool result have its own budget?", "§2.4, §7.4"),
    ("entry", "有聚合预算吗（防并行工具爆炸）？",
     "Is there an aggregate budget (against the parallel-tool explosion)?", "§2.4"),
    ("entry", "超预算是落盘留路径，还是直接截断丢弃？",
     "Over budget: written to disk with its path kept, or truncated and thrown away?", "§7.4"),
    ("entry", "read 类工具的输出豁免了落盘吗（否则循环）？",
     "Are the read tools' outputs exempt from offloading (else a loop)?", "§6.10, §7.4"),
    ("cache", "system prompt 分了静态/动态区吗？",
     "Is the system prompt split into a static and a dynamic zone?", "§6.3"),
    ("cache", "易变值（日期、时间戳）在动态区吗？",
     "Are volatile values (the date, timestamps) in the dynamic zone?", "§6.3"),
    ("cache", "工具定义的顺序稳定吗？", "Is the order of the tool definitions stable?", "§6.2"),
    ("cache", "messages 上只有一个断点吗？", "Is there only one breakpoint on the messages?",
     "§6.4"),
    ("cache", "压缩后抑制了一次 cache break 告警吗？",
     "After a compaction, is one cache-break alert suppressed?", "§10.5"),
    ("compress", "是分层的吗，还是只有 LLM 摘要一条路？",
     "Is it tiered, or is an LLM summary the only path?", "§7.1, §7.2"),
    ("compress", "每层之后重测、够了就停吗？",
     "Is the size measured again after each layer, stopping once it is enough?", "§7.2"),
    ("compress", "排序依据是信息粒度还是\"省 token\"？",
     "Are the layers ordered by the grain of information lost, or by \"tokens saved\"?",
     "§7.3"),
    ("compress", "切分点对齐API 轮次组吗（不是消息条数）？",
     "Do cut points fall on API round groups (not on message counts)?", "§9.2"),
    ("compress", "有 assertMessagesValid 之类的配对校验吗？",
     "Is there a pairing check such as assertMessagesValid?", "§9.2"),
    ("failure", "压缩请求自己超窗口时怎么办（递进丢弃）？",
     "What if the compaction request itself overflows the window (progressive dropping)?",
     "§9.1"),
    ("failure", "有熔断吗（连续 N 次失败就停）？",
     "Is there a circuit breaker (stop after N failures in a row)?", "§9.4"),
    ("failure", "熔断后的降级路径不调 LLM 吗？",
     "Does the fallback once the breaker is open avoid calling the LLM?", "§9.4"),
    ("failure", "分清了瞬时故障（退避）和结构性故障（熔断）吗？",
     "Are transient faults (back off) told apart from structural ones (break)?", "§9.4"),
    ("isolation", "压缩会触发自己吗（来源守卫）？",
     "Can a compaction trigger itself (a guard on the request's source)?", "§9.3"),
    ("isolation", "子代理会污染主代理的模块级状态吗？",
     "Can a sub-agent pollute the main agent's module-level state?", "§9.3"),
    ("isolation", "本地压缩省下的量显式传递给下游了吗？",
     "Is what a local compaction freed passed on explicitly downstream?", "§9.5"),
    ("rebuild", "压缩后重新读关键文件了吗？",
     "Are the key files read again after a compaction?", "§10.1"),
    ("rebuild", "重建有三层预算（文件数 × 单文件 × 总计）吗？",
     "Does the rebuild have three budgets (files × per file × total)?", "§10.3"),
    ("rebuild", "文件在压缩期间变过会标注吗（mtime 对比）？",
     "Is a file that changed during the compaction flagged (by mtime)?", "§10.2"),
    ("rebuild", "手动压缩和自动压缩走同一条收尾吗？",
     "Do manual and automatic compaction finish along the same path?", "§10.4"),
    ("rebuild", "重建是 best-effort（失败不影响压缩成果）吗？",
     "Is the rebuild best-effort (its failure keeps the compaction)?", "§10.4"),
    ("safety", "用户约束不走摘要通道，而是每轮重新注入吗？",
     "Do user constraints bypass the summary and come back on every turn?", "§12.3"),
    ("safety", "想清楚约束衰减的风险了吗？",
     "Has the risk of constraint decay been thought through?", "§12.3"),
    ("measure", "看的是 token-per-task 而不是压缩率吗？",
     "Is the measure token-per-task rather than the compression ratio?", "§12.1"),
    ("measure", "有 thrashing 检测吗（重复且返回值不变）？",
     "Is thrashing detected (a repeat with an unchanged result)?", "§12.2"),
    ("measure", "每层的实际释放量有埋点吗？",
     "Is what each layer actually freed recorded?", "§12.6"),
    ("measure", "压缩后是否立刻重触发有埋点吗？",
     "Is an immediate re-trigger after a compaction recorded?", "§12.6"),
    ("measure", "每一层在真实会话里触发过吗（不是\"代码里有\"）？",
     "Has each layer fired in real sessions (not just \"it is in the code\")?", "§7.6, §12.8"),
    ("measure", "cache break 分了本地断裂 vs 服务端 TTL 两类吗？",
     "Are cache breaks told apart: our own change vs the server's TTL?", "§12.6"),
)
BY_ID = {item.id: item for item in ITEMS}

UNCOVERED: dict[str, tuple[str, str]] = {}  # item: why no test checks it yet (English,
# Chinese); shrink it as tests come
PARTLY = {  # item: what its tests leave out (English, Chinese), while every test is partial
    "B.33": ("stage 5's layers are shown firing on the simulated acceptance drill only; on real "
             "logs the tests show stage 2's truncation and stage 4's summary, at a 40K window",
             "第 5 阶段各层只在模拟的验收演练上被证明触发过；在真实日志上，测试只证明了第 2 阶段"
             "的截断和第 4 阶段的摘要（窗口 40K）"),
}


@dataclass(frozen=True)
class Mark:
    """One ``checklist`` marker: the test it sits on (a node id, or a file for ``pytestmark``),
    the items it names, and why it checks only part of them (``None``: all of it)."""

    test: str
    items: tuple[str, ...]
    partly: str | None


def _is_marker(node: ast.AST) -> TypeGuard[ast.Call]:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "checklist" and isinstance(node.func.value, ast.Attribute) \
        and node.func.value.attr == "mark"


def _text(node: ast.expr) -> str | None:
    """A non-empty string written as a literal, else None."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) \
        and node.value else None


def _mark(call: ast.Call, test: str, where: str) -> Mark:
    names = [_text(a) for a in call.args]
    options = {k.arg: _text(k.value) for k in call.keywords}
    if not names or None in names or set(options) - {"partly"} or None in options.values():
        raise ValueError(f"{where}: write checklist(\"B.n\", ..., partly=\"why\") "
                         "with literal strings")
    return Mark(test, tuple(n for n in names if n), options.get("partly"))


def _marks_in(path: Path, name: str) -> list[Mark]:
    found: list[Mark] = []

    def visit(node: ast.AST, owner: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = f"{owner}::{child.name}" if isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else owner
            if _is_marker(child):
                found.append(_mark(child, owner, f"{name}:{child.lineno}"))
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=name), name)
    return found


def marks(root: Path) -> list[Mark]:
    """Every ``checklist`` marker under ``root/tests``, file by file, in source order."""
    tests = root / "tests"
    found: list[Mark] = []
    for path in sorted(tests.rglob("*.py")):
        found += _marks_in(path, path.relative_to(root).as_posix())
    return found


@dataclass(frozen=True)
class Coverage:
    item: Item
    tests: tuple[Mark, ...]

    @property
    def status(self) -> str:
        """``covered``, ``partly`` (every test says it checks only part) or ``uncovered``."""
        if not self.tests:
            return "uncovered"
        return "covered" if any(m.partly is None for m in self.tests) else "partly"


def coverage(found: list[Mark]) -> list[Coverage]:
    return [Coverage(item, tuple(m for m in found if item.id in m.items)) for item in ITEMS]


def problems(found: list[Mark]) -> list[str]:
    """What does not add up between the markers, the items and ``UNCOVERED`` (empty: fine)."""
    out = [f"{m.test}: unknown checklist item {name!r} (B.1 to B.{len(ITEMS)})"
           for m in found for name in m.items if name not in BY_ID]
    out += [f"unknown item {name} in {table}" for table, names in
            (("UNCOVERED", UNCOVERED), ("PARTLY", PARTLY)) for name in names if name not in BY_ID]
    for row in coverage(found):
        item = row.item.id
        if row.status == "uncovered" and item not in UNCOVERED:
            out.append(f"{item} ({row.item.zh}) has no test: mark one with "
                       f"@pytest.mark.checklist({item!r})")
        if row.status == "partly" and item not in PARTLY:
            out.append(f"{item} is only partly checked: say what is left out in PARTLY")
        for table, names in (("UNCOVERED", UNCOVERED), ("PARTLY", PARTLY)):
            if item in names and row.status != table.lower():
                out.append(f"{item} is {row.status}: take it out of {table}")
    return out
