"""Instantiating a quiz template: the same question with fresh numbers.

A template's snippet has `{name}` placeholders; each is replaced by a Python
literal drawn from its parameter spec. The draw depends only on the seed
(`random.Random(seed)`), so a variant can be stored as (template id, seed)
and rebuilt identically on any machine.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from lessons.model import (
    ChoiceParam,
    FloatParam,
    IntParam,
    LocalText,
    ParamSpec,
    QuizTemplate,
    TensorParam,
)


@dataclass(frozen=True)
class QuizVariant:
    snippet: str
    expression: str
    concepts: tuple[str, ...]
    text: LocalText
    params: dict[str, object]  # name -> the generated value (nested lists for tensors)


def instantiate(template: QuizTemplate, seed: int) -> QuizVariant:
    rng = random.Random(seed)
    values = {param.name: _draw(param, rng) for param in template.params}
    literals = {name: _literal(value, param) for (name, value), param in zip(values.items(), template.params)}
    return QuizVariant(snippet=template.snippet.format(**literals), expression=template.expression,
                       concepts=template.concepts, text=template.text, params=values)


def _draw(param: ParamSpec, rng: random.Random) -> object:
    if isinstance(param, IntParam):
        return rng.randint(param.low, param.high)
    if isinstance(param, FloatParam):
        return round(rng.uniform(param.low, param.high), param.decimals)
    if isinstance(param, ChoiceParam):
        return rng.choice(param.values)
    shape = rng.choice(param.shapes)
    return _cells(param, list(shape), rng)


def _cells(param: TensorParam, shape: list[int], rng: random.Random) -> object:
    if not shape:
        if param.integers:
            return float(rng.randint(int(param.low), int(param.high)))
        return round(rng.uniform(param.low, param.high), param.decimals)
    return [_cells(param, shape[1:], rng) for _ in range(shape[0])]


def _literal(value: object, param: ParamSpec) -> str:
    if isinstance(param, TensorParam):
        return _float_literal(value)
    if isinstance(value, str):
        return value  # inserted as written: an op name, say
    return repr(value)


def _float_literal(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_float_literal(v) for v in value) + "]"
    text = repr(float(value))
    return text[:-1] if text.endswith(".0") else text
