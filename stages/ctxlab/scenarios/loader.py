"""Loading ``fixtures/scenarios/<name>.toml`` into a checked ``Scenario`` (DESIGN §5).

Every problem is a ``ScenarioError`` whose one-line message names the file and the field, e.g.
``bugfix-small.toml: steps[2].tool: unknown tool 'read'``.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path, PurePosixPath

from .. import models
from ..dynamic import KINDS as DYNAMIC_KINDS
from . import generate, images
from .expand import expand
from .fields import Table
from .schema import (
    BEHAVIOUR_KEYS,
    Constraint,
    GeneratedFile,
    Image,
    Scenario,
    ScenarioError,
    Step,
    Success,
    UserMessage,
)
from .steps import check_plan, read_step

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
SCENARIOS_DIR = FIXTURES / "scenarios"
WORKSPACES_DIR = FIXTURES / "workspaces"


def names() -> list[str]:
    """The names of the scenarios shipped in ``fixtures/scenarios``, sorted."""
    return sorted(p.stem for p in SCENARIOS_DIR.glob("*.toml"))


def load(name_or_path: str | Path, *, workspaces: Path = WORKSPACES_DIR) -> Scenario:
    """The scenario called ``name_or_path``, or the one in that file."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = SCENARIOS_DIR / f"{name_or_path}.toml"
        if not path.is_file():
            raise ScenarioError(f"unknown scenario {str(name_or_path)!r}; "
                                f"known: {', '.join(names())}")
    elif not path.is_file():
        raise ScenarioError(f"no scenario file {str(path)!r}")
    stat = path.stat()
    return _load(path.resolve(), stat.st_mtime_ns, stat.st_size, workspaces.resolve())


@lru_cache(maxsize=32)
def _load(path: Path, _mtime: int, _size: int, workspaces: Path) -> Scenario:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"{path.name}: invalid TOML: {error}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path.name}: not a UTF-8 text file") from None
    return _parse(Table(data, path.name), path, workspaces)


def _parse(top: Table, path: Path, workspaces: Path) -> Scenario:
    name = top.text("name")
    if name != path.stem:
        top.fail("name", f"must match the file name {path.stem!r}")
    model = top.text("model")
    if models.lookup(model) is None:
        top.fail("model", f"unknown model {model!r}; known: "
                 f"{', '.join(m.id for m in models.MODELS)}")
    facts = _facts(top.table("facts"))
    space = top.table("workspace")
    source = workspaces / space.text("source")
    if not source.is_dir():
        space.fail("source", f"no workspace directory {source.name!r} in {workspaces}")
    generated = _generated(space, facts, source)
    space.done()
    constraints = tuple(_constraint(t) for t in top.tables("constraints"))
    steps = _steps(top, facts, {c.id for c in constraints}, source)
    ids = {step.id for step in steps}
    for i, constraint in enumerate(constraints):
        if constraint.after is not None and constraint.after not in ids:
            top.fail(f"constraints[{i}].after", f"unknown step {constraint.after!r}")
    success = _success(top.table("success"), source, generated)
    scenario = Scenario(
        name=name, description=top.text("description"), model=model, task=top.text("task"),
        gist=top.text("gist"), goal=_goal(top, facts, steps), facts=facts, source=source,
        generated=generated, steps=tuple(steps), success=success,
        constraints=constraints, messages=tuple(_message(t, ids) for t in top.tables("messages")),
        images=_images(top, "images"), dynamic=_dynamic(top), behaviour=_behaviour(top),
        path=path)
    _check_gist(top, scenario)
    top.done()
    return scenario


def _dynamic(top: Table) -> tuple[str, ...]:
    """The volatile context the harness sends with each request (``ctxlab.dynamic``)."""
    if not top.has("dynamic"):
        return ("date",)
    kinds = top.texts("dynamic")
    for kind in kinds:
        if kind not in DYNAMIC_KINDS:
            top.fail("dynamic", f"unknown kind {kind!r}; choose from {', '.join(DYNAMIC_KINDS)}")
    return kinds


def _behaviour(top: Table) -> dict[str, float]:
    """The habits the scenario sets (DESIGN §4); a rate is a probability, a length positive."""
    table = top.table("behaviour", {})
    found: dict[str, float] = {}
    for key in BEHAVIOUR_KEYS:
        value = table.raw(key, None)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            table.fail(key, f"must be a number, got {value!r}")
        if key == "note_rate" and not 0 <= value <= 1:
            table.fail(key, f"must be a probability in [0, 1], got {value}")
        if key == "reread_in_view_rate" and not 0 <= value < 1:
            table.fail(key, f"must be a share of reads in [0, 1), got {value}")
        if key.startswith("parallel_") and value < 1:
            table.fail(key, f"must be calls per calling response, at least 1, got {value}")
        if not key.endswith("_rate") and value <= 0:
            table.fail(key, f"must be positive, got {value}")
        found[key] = float(value)
    table.done()
    return found


def _facts(table: Table) -> dict[str, str]:
    facts = {key: table.text(key) for key in table.data}
    for key, marker in facts.items():
        for other, theirs in facts.items():
            if other != key and marker in theirs:
                table.fail(key, f"its marker occurs inside the marker of fact {other!r}")
    return facts


def _inside(table: Table, key: str, value: str) -> str:
    pure = PurePosixPath(value)
    if pure.is_absolute() or ".." in pure.parts:
        table.fail(key, f"must be a path inside the workspace, got {value!r}")
    return value


def _generated(space: Table, facts: dict[str, str], source: Path) -> tuple[GeneratedFile, ...]:
    found: dict[str, GeneratedFile] = {}
    for where, raw in expand(space.raw("generate", []), space.file, space.at("generate")):
        if not isinstance(raw, dict):
            space.fail("generate", "must be an array of tables")
        table = Table(raw, space.file, where)
        path = _inside(table, "path", table.text("path"))
        if path in found or (source / path).exists():
            table.fail("path", f"{path!r} is generated twice or also committed")
        fact_names = table.texts("facts")
        for fact in fact_names:
            if fact not in facts:
                table.fail("facts", f"unknown fact {fact!r}")
        found[path] = GeneratedFile(
            path=path, kind=table.choice("kind", tuple(generate.KINDS)),
            chars=table.integer("chars", minimum=1),
            seed=table.integer("seed", 0), markers=tuple(facts[f] for f in fact_names),
            place=table.choice("place", generate.PLACES, "middle"))
        table.done()
    return tuple(found.values())


def _steps(top: Table, facts: dict[str, str], constraints: set[str], source: Path) -> list[Step]:
    read = []
    for where, raw in expand(top.raw("steps"), top.file, "steps"):
        if not isinstance(raw, dict):
            top.fail("steps", "must be an array of tables")
        table = Table(raw, top.file, where)
        read.append((table, read_step(table, table.text("id"), facts, constraints)))
    if not read:
        top.fail("steps", "the plan is empty")
    return check_plan(read, source)


def _goal(top: Table, facts: dict[str, str], steps: list[Step]) -> tuple[str, ...]:
    goal = top.texts("goal")
    if not goal:
        top.fail("goal", "name at least one fact that shows the task is done")
    yielded = {fact for step in steps for fact in step.yields}
    for fact in goal:
        if fact not in facts or fact not in yielded:
            top.fail("goal", f"fact {fact!r} is not yielded by any step")
    return goal


def _constraint(table: Table) -> Constraint:
    constraint = Constraint(id=table.text("id"), text=table.text("text"),
                            after=table.text("after", None))
    table.done()
    return constraint


def _message(table: Table, ids: set[str]) -> UserMessage:
    after = table.text("after")
    if after not in ids:
        table.fail("after", f"unknown step {after!r}")
    message = UserMessage(text=table.text("text"), after=after, images=_images(table, "images"))
    table.done()
    return message


def _images(table: Table, key: str) -> tuple[Image, ...]:
    found = []
    for item in table.tables(key):
        color = item.text("color")
        try:
            images.parse_color(color)
        except ValueError as error:
            item.fail("color", str(error))
        found.append(Image(item.integer("width", minimum=1), item.integer("height", minimum=1),
                           color))
        item.done()
    return tuple(found)


def _success(table: Table, source: Path, generated: tuple[GeneratedFile, ...]) -> Success:
    unchanged = table.texts("unchanged")
    for i, path in enumerate(unchanged):
        _inside(table, f"unchanged[{i}]", path)
        if not (source / path).is_file() and path not in {g.path for g in generated}:
            table.fail(f"unchanged[{i}]", f"{path!r} is neither committed nor generated")
    success = Success(command=table.text("command"), unchanged=unchanged)
    table.done()
    return success


def _check_gist(top: Table, scenario: Scenario) -> None:
    """The gist is what a free-form summary keeps: no paths, facts or constraints (§12.4)."""
    gist = scenario.gist.casefold()
    leaks = [c.input["path"] for s in scenario.steps for c in s.calls if "path" in c.input]
    leaks += list(scenario.facts.values()) + [c.text for c in scenario.constraints]
    for leak in leaks:
        if leak.casefold() in gist:
            top.fail("gist", f"must not mention {leak[:60]!r}: a free-form summary loses it")
