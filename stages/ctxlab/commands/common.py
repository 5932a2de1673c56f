"""What subcommands share: the user-error type, JSON output, number arguments and the layer
options."""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from typing import Any


class UserError(Exception):
    """An ordinary mistake: printed as one line, exit status 2, no traceback."""


def print_json(data: Any) -> None:
    """One JSON document on stdout (``--json`` on every report command)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def option(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` for a stage's ``make_layer`` (``--set``); the value is read as JSON when it
    parses (``5000``, ``0.5``, ``false``), else kept as a string."""
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def positive_int(text: str) -> int:
    """An argparse type: a whole number ≥ 1 (a usage error otherwise)."""
    return bounded_int(text, 1)


def bounded_int(text: str, low: int, high: int | None = None) -> int:
    """A whole number in ``low``..``high``; argparse reports anything else as a usage error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid whole number: {text!r}") from None
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise argparse.ArgumentTypeError(f"must be {span}, not {value}")
    return value


def add_rot_option(parser: argparse.ArgumentParser, *, default: str = "on",
                   why: str = "") -> None:
    """``--rot on|off``: the simulated model's retrieval (context rot, §4; DESIGN §4) on every
    command that runs the simulated agent; replay answers from recorded replies instead."""
    parser.add_argument("--rot", choices=("on", "off"), default=default,
                        help="the simulated model finds a fact in view by the request's "
                             "length, the fact's position and its kind, as measured models do "
                             f"(on), or always (off); default {default}{why}")


def add_subagent_options(parser: argparse.ArgumentParser) -> None:
    """``--no-subagents`` and ``--subagent-stage N``: the sub-agent tool (§11), offered where a
    scenario's plan has a part a sub-agent may take; ``--set handoff=free`` picks its naive
    hand-off (``delegation``)."""
    parser.add_argument("--no-subagents", action="store_true",
                        help="do not offer the sub-agent tool (§11): a scenario's delegable "
                             "parts run inline; --set handoff=free makes the sub-agents "
                             "report in free prose instead of sections")
    parser.add_argument("--subagent-stage", type=int, metavar="N", choices=range(1, 6),
                        help="the stage of the sub-agents' context layer (default: the "
                             "parent's)")


def delegation(args: argparse.Namespace, options: dict[str, Any]) -> dict[str, Any] | None:
    """The runner's ``delegation`` from the sub-agent options; takes ``handoff`` out of the
    ``--set`` options (it is the sub-agent tool's, not the layer's). None: the defaults."""
    from ..subagents import HANDOFFS

    chosen: dict[str, Any] = {}
    if "handoff" in options:
        chosen["handoff"] = options.pop("handoff")
        if chosen["handoff"] not in HANDOFFS:
            raise UserError(f"--set handoff={chosen['handoff']}: expected one of "
                            f"{', '.join(HANDOFFS)}")
    if args.no_subagents:
        chosen["enabled"] = False
    if args.subagent_stage is not None:
        chosen["stage"] = args.subagent_stage
    return chosen or None


def add_layer_options(parser: argparse.ArgumentParser, *, what: str = "run",
                      layer: bool = True) -> None:
    """``--impl``, ``--chain``, ``--set KEY=VALUE`` and ``--layer MODULE:FACTORY``: which
    implementation to ``what``, a context layer of your own (``ctxlab.custom``), and the
    options for its factory or the stage's ``make_layer`` (the same on run, compare, accept,
    replay, ladder)."""
    parser.add_argument("--impl", choices=("solutions", "stages"), default="solutions",
                        help=f"{what} the reference (default) or your workbook")
    parser.add_argument("--chain", choices=("reference", "mine"), default="reference",
                        help="with --impl stages: other stages from the reference or yours")
    parser.add_argument("--set", dest="options", type=option, action="append", default=[],
                        metavar="KEY=VALUE", help="an option for the stage's make_layer, "
                                                  "e.g. --set naive=true (repeatable)")
    if layer:
        parser.add_argument("--layer", metavar="MODULE:FACTORY", default=None,
                            help=f"{what} your own context layer: FACTORY(**--set) "
                                 "returns an object with prepare/admit, e.g. "
                                 "my_layer:make_layer or layers/trim.py:make_layer")


def build_custom(spec: str, options: dict[str, Any]) -> None:
    """Build ``--layer``'s layer once, so a bad module, factory or option is one clear line
    before any work."""
    from ..custom import LayerSpecError, build

    try:
        _check_types(build(spec, options), options)
    except LayerSpecError as error:
        raise UserError(str(error)) from None
    except Exception as error:  # the learner's factory raised: say so, in one line
        raise UserError(f"--layer {spec!r}: the factory failed: "
                        f"{type(error).__name__}: {error}") from None


def check_layer_options(stage: int, options: dict[str, Any]) -> None:
    """Build the layer once, so a stage that does not load or a wrong ``--set`` is one clear
    line before any work."""
    from ..workbook.layout import load_stage

    try:
        layer = load_stage(stage).make_layer(**options)
    except ImportError as error:
        raise UserError(f"stage {stage} cannot be loaded: {error}") from None
    except (TypeError, ValueError) as error:
        raise UserError(f"stage {stage}'s make_layer does not take these options: "
                        f"{error}") from None
    _check_types(layer, options)


def _check_types(layer: Any, options: dict[str, Any]) -> None:
    """Each ``--set`` value of the type of the option's default (``per_result=abc`` is not a
    number), or, for a default of None, of the type its annotation names besides None; so a
    wrong value is one line now, not an error deep inside a run."""
    try:
        parameters = inspect.signature(type(layer).__init__).parameters
    except (TypeError, ValueError):
        return
    for key, value in options.items():
        parameter = parameters.get(key)
        default = inspect.Parameter.empty if parameter is None else parameter.default
        if default is None:
            default = _example(parameter.annotation)
        if default is inspect.Parameter.empty or default is None or value is None:
            continue  # no default to compare with, or null: "switch this off"
        wanted = (int, float) if isinstance(default, float) else type(default)
        if isinstance(value, bool) is not isinstance(default, bool) or \
                not isinstance(value, wanted):
            raise UserError(f"--set {key}={json.dumps(value)}: expected "
                            f"{_kind(default)}" + (f" like {json.dumps(default)}"
                                                   if parameter.default is not None else ""))


def _example(annotation: Any) -> Any:
    """A value of the one plain type an ``X | None`` annotation names, else None."""
    names = {str(a).strip() for a in str(annotation).split("|")} - {"None"}
    plain = {"int": 0, "float": 0.0, "str": "", "bool": False}
    return plain.get(names.pop()) if len(names) == 1 else None


def _kind(value: Any) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number",
            str: "a text", dict: "a JSON object"}.get(type(value), type(value).__name__)
