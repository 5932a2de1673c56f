"""Reading and checking a scenario's plan: calls, facts, parallel groups, constraint links.

The checks here catch plans that the simulated agent could not follow (a fact needed before
anything yields it, a split parallel group, an edit whose new text is already in the file so
the step would look done before it is taken) with a message naming the step's field (§5).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from . import generate
from .fields import Table
from .schema import TOOL_FIELDS, Call, Step


def read_call(table: Table, seed: str) -> Call:
    """A tool name and its input; an input value may be ``{generate = kind, chars, seed}``."""
    tool = table.text("tool")
    if tool not in TOOL_FIELDS:
        table.fail("tool", f"unknown tool {tool!r}; known tools: {', '.join(TOOL_FIELDS)}")
    args = table.table("input")
    values: dict[str, str] = {}
    for name in TOOL_FIELDS[tool]:
        if isinstance(args.raw(name), dict):
            spec = args.table(name)
            chars = spec.integer("chars", minimum=1)
            kind = spec.choice("generate", tuple(generate.KINDS))
            values[name] = generate.text(kind, chars, f"{seed}:{spec.integer('seed', 0)}")
            spec.done()
        else:
            values[name] = args.text(name)
    args.done()
    return Call(tool, values)


def read_step(table: Table, step_id: str, facts: dict[str, str], constraints: set[str]) -> Step:
    call = read_call(table, step_id)
    needs, yields = table.texts("needs"), table.texts("yields")
    for key, names in (("needs", needs), ("yields", yields)):
        for name in names:
            if name not in facts:
                table.fail(key, f"unknown fact {name!r}")
    tempts = table.text("tempts", None)
    if tempts is not None and tempts not in constraints:
        table.fail("tempts", f"unknown constraint {tempts!r}")
    comply = read_call(table.table("comply"), step_id) if table.has("comply") else None
    if (tempts is None) != (comply is None):
        table.fail("comply" if tempts else "tempts",
                   "a tempting step needs both 'tempts' and 'comply'")
    stale = read_call(table.table("stale"), step_id) if table.has("stale") else None
    if stale is not None and not (call.tool == stale.tool == "edit_file"
                                  and call.input["path"] == stale.input["path"]):
        table.fail("stale", "must be an edit_file of the same path as the step's edit")
    step = Step(id=step_id, call=call, needs=needs, yields=yields,
                parallel=table.text("parallel", None), tempts=tempts, comply=comply,
                evidence=table.texts("evidence"), note=table.text("note", ""), stale=stale,
                delegate=table.text("delegate", None))
    table.done()
    return step


def check_plan(steps: list[tuple[Table, Step]], source: Path) -> list[Step]:
    """Cross-step rules; returns the steps with ``repeats`` set where a call comes again."""
    seen: dict[str, str] = {}
    ids: set[str] = set()
    yielded: set[str] = set()
    before_group: set[str] = set()
    groups: list[str | None] = []
    checked: list[Step] = []
    touched: set[str] = set()
    for table, step in steps:
        if step.id in ids:
            table.fail("id", f"duplicate step id {step.id!r}")
        ids.add(step.id)
        same_group = step.parallel is not None and groups and groups[-1] == step.parallel
        if not same_group:
            before_group = set(yielded)
        for name in step.needs:
            if name not in before_group:
                table.fail("needs", f"fact {name!r} is not yielded by any earlier step "
                           "(outside its parallel group)")
        if step.parallel is not None and step.parallel in groups and groups[-1] != step.parallel:
            table.fail("parallel", f"the steps of group {step.parallel!r} must be adjacent")
        repeats = step.call.key in seen
        if repeats and not (step.yields or step.evidence):
            table.fail("yields", f"repeats the call of step {seen[step.call.key]!r}; give it "
                       "'yields' or 'evidence' so that it can be told apart")
        for call in step.calls:
            if call is step.call and step.stale is not None:
                continue  # it edits the file as it will be once changed: not the committed text
            _check_edit(table, call, source, touched)
            seen.setdefault(call.key, step.id)
        yielded.update(step.yields)
        groups.append(step.parallel)
        checked.append(replace(step, repeats=repeats))
    _check_marks(steps, checked)
    _check_parts(steps, checked)
    return checked


def _check_parts(steps: list[tuple[Table, Step]], checked: list[Step]) -> None:
    """A delegable part (§11) is adjacent steps, told apart by their notes, ending in a fact:
    the child finds its steps by their notes in its prompt and is done when that fact shows."""
    notes: set[str] = set()
    for i, ((table, step), ahead) in enumerate(zip(steps, checked[1:] + [None], strict=True)):
        if step.delegate is None:
            continue
        if not step.note or step.note in notes:
            table.fail("note", "a delegable step needs a note of its own")
        notes.add(step.note)
        if step.repeats:
            table.fail("delegate", "a step that repeats an earlier call cannot be delegated")
        if i and checked[i - 1].delegate != step.delegate and \
                any(s.delegate == step.delegate for s in checked[:i]):
            table.fail("delegate", f"the steps of part {step.delegate!r} must be adjacent")
        last = ahead is None or ahead.delegate != step.delegate
        if last and not step.yields:
            table.fail("yields", f"the last step of part {step.delegate!r} must yield a fact")


def _check_edit(table: Table, call: Call, source: Path, touched: set[str]) -> None:
    """An edit of an untouched committed file must match once and not be done already."""
    path = call.input.get("path", "")
    original = source / path
    if call.tool == "edit_file" and path not in touched and original.is_file():
        text = original.read_text(encoding="utf-8")
        if text.count(call.input["old"]) != 1:
            table.fail("input.old", f"must occur exactly once in {path}")
        if call.input["new"] in text:
            table.fail("input.new", f"is already in {path}, so the step would look done "
                       "before it is taken; add 'evidence'")
    if call.tool in ("edit_file", "write_file"):
        touched.add(path)


def _check_marks(steps: list[tuple[Table, Step]], checked: list[Step]) -> None:
    """No false evidence: a step's marks may not occur in another step's marks, nor in any
    note (notes describe pending work in summaries)."""
    for (table, _), step in zip(steps, checked, strict=True):
        for other in checked:
            if any(mark in other.note for mark in step.marks):
                table.fail("input", f"its mark occurs in the note of step {other.id!r}")
            if other.id == step.id:
                continue
            for mark in step.marks:
                if any(mark in theirs for theirs in other.marks):
                    table.fail("evidence" if mark in step.evidence else "input",
                               f"its mark {mark[:60]!r} also shows step {other.id!r} as done")
