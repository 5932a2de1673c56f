"""Values built from a JSON schema for forced tool calls and structured answers (sim/instance).

Each keyword the builder honours has its own case: the value must satisfy it, whatever the
texts say; strings and numbers come from the texts where they fit.
"""

from __future__ import annotations

from ctxlab.sim.instance import instance, sentences

SAID = ["The build failed twice. I will read 3 files next.", "Then run 12 tests."]


def test_strings_take_the_sentences_in_order():
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    assert instance(schema, SAID) == {"a": "The build failed twice.",
                                      "b": "I will read 3 files next."}
    assert sentences(SAID)[-1] == "Then run 12 tests."


def test_numbers_are_the_ones_mentioned_when_they_fit():
    schema = {"type": "object", "properties": {
        "small": {"type": "integer", "maximum": 5}, "big": {"type": "integer", "minimum": 10}}}
    assert instance(schema, SAID) == {"small": 3, "big": 12}


def test_bounds_hold_when_no_mentioned_number_fits():
    schema = {"type": "object", "properties": {
        "n": {"type": "integer", "exclusiveMinimum": 100}, "x": {"type": "number", "maximum": -2},
        "m": {"type": "integer", "minimum": 7, "multipleOf": 5}}}
    value = instance(schema, ["nothing numeric here"])
    assert value["n"] > 100 and value["x"] <= -2 and value["m"] >= 7 and value["m"] % 5 == 0


def test_enum_const_and_formats():
    schema = {"type": "object", "properties": {
        "kind": {"enum": ["bug", "feature"]}, "v": {"const": 2},
        "when": {"type": "string", "format": "date-time"}, "mail": {"format": "email"}}}
    value = instance(schema, SAID)
    assert value["kind"] == "bug" and value["v"] == 2
    assert value["when"].endswith("Z") and "@" in value["mail"]


def test_refs_unions_and_all_of():
    schema = {"type": "object", "$defs": {"Point": {"type": "object", "required": ["x"],
                                                    "properties": {"x": {"type": "integer"}}}},
              "properties": {"p": {"$ref": "#/$defs/Point"},
                             "maybe": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
                             "both": {"allOf": [{"properties": {"a": {"type": "string"}}},
                                                {"required": ["b"]}]}}}
    value = instance(schema, SAID)
    assert isinstance(value["p"]["x"], int) and value["maybe"] is True
    assert set(value["both"]) == {"a", "b"}


def test_arrays_and_string_lengths():
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 4}, "minItems": 2},
        "code": {"type": "string", "minLength": 40}}}
    value = instance(schema, SAID)
    assert len(value["tags"]) == 2 and all(len(t) <= 4 for t in value["tags"])
    assert len(value["code"]) >= 40


def test_a_recursive_schema_ends():
    schema = {"type": "object", "$defs": {"Node": {"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
        "properties": {"root": {"$ref": "#/$defs/Node"}}}
    depth, node = 0, instance(schema, SAID)["root"]
    while node.get("children"):
        node, depth = node["children"][0], depth + 1
    assert 0 < depth < 10
