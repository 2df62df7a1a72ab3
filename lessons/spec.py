"""The lesson format, declared once: which keys each table has, their types and which are required.

The loader (`lessons.loader`) takes its key lists from here, and `json_schema()` turns the same
declaration into the JSON Schema editors use (`lessons/lesson.schema.json`, referenced by the
`#:schema` line `autograd-tutor new` writes), so the two cannot drift apart; a test checks that the
schema and the loader give the same verdict on every bundled lesson and the malformed corpus.

Regenerate the file after changing this module:  python -m lessons.spec
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from lessons.model import FORMAT_VERSION, MAX_ANSWER_CELLS, STEP_KINDS

SCHEMA_PATH = Path(__file__).with_name("lesson.schema.json")
SCHEMA_ID = "https://autograd-tutor.invalid/lesson.schema.json"
ID_REGEX = "^[a-z0-9][a-z0-9-]*$"


@dataclass(frozen=True)
class Key:
    type: str  # a name in _TYPES, or "tables" (an array of tables `items`), or "table" (`items`)
    doc: str
    required: bool = False
    items: dict[str, "Key"] | None = None
    extra: dict = field(default_factory=dict)  # JSON Schema keywords the loader also enforces


TOLERANCE = {
    "rtol": Key("nonnegative", "relative tolerance: |a − b| ≤ atol + rtol·|b|"),
    "atol": Key("nonnegative", "absolute tolerance"),
}
TEXT = {
    "en": Key("nonempty", "the English text (Markdown)", required=True),
    "ja": Key("nonempty", "the Japanese text (Markdown); English is shown when it is missing"),
}
LESSON = {
    "format_version": Key("format_version", f"the lesson format: {FORMAT_VERSION}", required=True),
    "id": Key("id", "lowercase letters, digits and '-'; unique across the course; progress is kept under it",
              required=True),
    "order": Key("integer", "position in the course (bundled lessons use 10, 20, 30…)"),
    "title": Key("text", "the lesson's title", required=True),
    "summary": Key("text", "one sentence on what the learner will understand", required=True),
    "concepts": Key("tags", "concept tags (see lessons/glossary.toml)", required=True, extra={"minItems": 1}),
    "source": Key("text", "credit, shown on the lesson's first screen: the article, book or course it is based on"),
    "tolerance": Key("table", "the lesson's default tolerance for numbers", items=TOLERANCE),
    "steps": Key("tables", "the steps, in order", required=True, extra={"minItems": 1}),  # items: STEP
    "quiz": Key("tables", "quiz templates: predict questions with fresh numbers"),  # items: QUIZ
}
STEP = {
    "id": Key("id", "unique in the lesson", required=True),
    "kind": Key("kind", "read, predict, error or choice", required=True),
    "text": Key("text", "what the learner reads; for a choice step, the question", required=True),
    "snippet": Key("string", "Python code run by the snippet runner (dedented)"),
    "continues": Key("boolean", "run the previous step's program first, like the next notebook cell"),
    "hints": Key("texts", "hints, revealed one at a time"),
    "explanation": Key("text", "shown after the learner answers"),
    "concepts": Key("tags", "concept tags this step practises (default: the lesson's)"),
}
ERROR_CHOICE = {
    "error": Key("error", "\"<Type>: <message start>\", \"<Type>\" or \"none\"", required=True),
    "why": Key("text", "why this outcome happens or not"),
}
OPTION = {
    "text": Key("text", "the option", required=True),
    "correct": Key("boolean", "exactly one option is correct"),
    "why": Key("text", "why this option is right or wrong"),
}
BUGGY = {
    "misconception": Key("id", "the misconception's id (lessons/misconceptions.toml)", required=True),
    "answer": Key("expression", "an expression of the program's names giving that learner's answer", required=True),
}
KIND_KEYS = {
    "read": {},
    "predict": {
        "expression": Key("expression", "the expression the learner predicts, evaluated after the program",
                          required=True),
        "expect": Key("expression", "optional: your intent; check fails if the engine disagrees"),
        "tolerance": Key("table", "overrides the lesson's tolerance", items=TOLERANCE),
        "nonfinite": Key("boolean", "the answer is meant to contain inf or nan"),
        "misconceptions_off": Key("tags", "misconceptions (ids of lessons/misconceptions.toml) never named here"),
        "buggy": Key("tables", "extra buggy answers: what a learner holding a misconception answers here",
                     items=BUGGY),
    },
    "error": {"choices": Key("tables", "the possible outcomes; exactly one matches", required=True,
                             items=ERROR_CHOICE, extra={"minItems": 2})},
    "choice": {"options": Key("tables", "the options; exactly one has correct = true", required=True,
                              items=OPTION, extra={"minItems": 2})},
}
KIND_REQUIRED_SNIPPET = ("error",)  # and predict needs a snippet unless it continues
PARAM_KINDS = {
    "tensor": {
        "shapes": Key("shapes", f"shapes to draw from, like [[2, 3], [3]]; at most {MAX_ANSWER_CELLS} cells",
                      required=True),
        "low": Key("number", "the smallest cell value", required=True),
        "high": Key("number", "the largest cell value", required=True),
        "integers": Key("boolean", "whole-number cells (default true)"),
        "decimals": Key("decimals", "decimals when not integers (default 1)"),
    },
    "int": {"low": Key("integer", "smallest value", required=True),
            "high": Key("integer", "largest value", required=True)},
    "float": {"low": Key("number", "smallest value", required=True),
              "high": Key("number", "largest value", required=True),
              "decimals": Key("decimals", "decimals (default 1)")},
    "choice": {"values": Key("values", "values to choose from; strings are inserted as written", required=True)},
}
QUIZ = {
    "id": Key("id", "unique among the lesson's quiz templates", required=True),
    "concepts": Key("tags", "concept tags (default: the lesson's)"),
    "text": Key("text", "the question", required=True),
    "snippet": Key("string", "the program, with {name} placeholders; must import torch itself", required=True),
    "expression": Key("expression", "the expression the learner predicts", required=True),
    "params": Key("params", "how each {name} is generated"),
    "tolerance": Key("table", "overrides the lesson's tolerance", items=TOLERANCE),
    "hints": Key("texts", "hints, revealed one at a time"),
    "explanation": Key("text", "shown after the learner answers"),
    "nonfinite": Key("boolean", "the answer is meant to contain inf or nan"),
}


# --- JSON Schema ------------------------------------------------------------------------------

def _text_schema() -> dict:
    return {"description": "Markdown: a string (English) or { en = \"…\", ja = \"…\" }",
            "anyOf": [{"type": "string", "pattern": r"\S"}, {"$ref": "#/definitions/localText"}]}


_TYPES = {
    "format_version": lambda: {"type": "integer", "const": FORMAT_VERSION},
    "id": lambda: {"type": "string", "pattern": ID_REGEX},
    "integer": lambda: {"type": "integer"},
    "number": lambda: {"type": "number"},
    "nonnegative": lambda: {"type": "number", "minimum": 0},
    "string": lambda: {"type": "string"},
    "nonempty": lambda: {"type": "string", "pattern": r"\S"},
    "boolean": lambda: {"type": "boolean"},
    "text": lambda: {"$ref": "#/definitions/text"},
    "texts": lambda: {"type": "array", "items": {"$ref": "#/definitions/text"}},
    "tags": lambda: {"type": "array", "items": {"type": "string", "pattern": ID_REGEX}},
    "kind": lambda: {"enum": list(STEP_KINDS)},
    "expression": lambda: {"type": "string", "pattern": r"\S"},
    "error": lambda: {"type": "string", "pattern": r"^\s*(none|[A-Za-z_][A-Za-z0-9_.]*(:\s*\S[\s\S]*)?)\s*$"},
    "decimals": lambda: {"type": "integer", "minimum": 0, "maximum": 6},
    "shapes": lambda: {"type": "array", "minItems": 1,
                       "items": {"type": "array", "items": {"type": "integer", "minimum": 1}}},
    "values": lambda: {"type": "array", "minItems": 1, "items": {"type": ["string", "number"]}},
    "params": lambda: {"type": "object", "propertyNames": {"pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"},
                       "additionalProperties": {"$ref": "#/definitions/param"}},
}


def _object(keys: dict[str, Key], extra_props: dict | None = None) -> dict:
    props = {name: _key_schema(key) for name, key in keys.items()}
    props.update(extra_props or {})
    required = [name for name, key in keys.items() if key.required]
    schema = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def _key_schema(key: Key) -> dict:
    if key.type == "tables":
        schema = {"type": "array", "items": _object(key.items) if key.items else {"type": "object"}}
    elif key.type == "table":
        schema = _object(key.items)
    else:
        schema = _TYPES[key.type]()
    return {"description": key.doc, **schema, **key.extra}


def _step_schema() -> dict:
    all_kind_keys: dict[str, Key] = {}
    for keys in KIND_KEYS.values():
        all_kind_keys.update(keys)
    schema = _object({**STEP, **{name: Key(k.type, k.doc, False, k.items, k.extra)
                                 for name, k in all_kind_keys.items()}})
    rules = []
    for kind, keys in KIND_KEYS.items():
        required = [name for name, key in keys.items() if key.required]
        if kind in KIND_REQUIRED_SNIPPET:
            required.append("snippet")
        then: dict = {"properties": {name: False for name in all_kind_keys if name not in keys}}
        if required:
            then["required"] = required
        rules.append({"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]}, "then": then})
    rules.append({"if": {"properties": {"kind": {"const": "predict"}, "continues": {"const": False}},
                         "required": ["kind"]},
                  "then": {"required": ["snippet"]}})
    schema["allOf"] = rules
    return schema


def _param_schema() -> dict:
    variants = []
    for kind, keys in PARAM_KINDS.items():
        variant = _object(keys, {"kind": {"const": kind}})
        variant["required"] = ["kind", *variant.get("required", [])]
        variants.append(variant)
    return {"type": "object", "required": ["kind"],
            "properties": {"kind": {"enum": list(PARAM_KINDS)}},
            "oneOf": variants}


def json_schema() -> dict:
    """The JSON Schema (draft-07, which taplo and Even Better TOML read) for a lesson file."""
    lesson = _object(LESSON)
    lesson["properties"]["steps"]["items"] = {"$ref": "#/definitions/step"}
    lesson["properties"]["quiz"]["items"] = {"$ref": "#/definitions/quiz"}
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "autograd-tutor lesson",
        "description": "A lesson file for autograd-tutor (docs/authoring.md). Generated from lessons/spec.py; "
                       "`autograd-tutor check` checks more than this schema can (the programs run).",
        **lesson,
        "definitions": {
            "localText": _object(TEXT),
            "text": _text_schema(),
            "step": _step_schema(),
            "quiz": _object(QUIZ),
            "param": _param_schema(),
        },
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
