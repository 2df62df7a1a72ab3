"""Reading a lesson file into the model, with a clear problem for anything wrong.

`load_lesson(path)` is what the app uses (one `LessonError`, never a
traceback); `read_lesson(path)` returns every problem at once for `check`.
Only the file and its schema are checked here; running the snippets is
`lessons.validate`'s job.
"""
from __future__ import annotations

import ast
import dataclasses
import difflib
import os
import re
import string
import textwrap
from pathlib import Path

from lessons import spec
from lessons.errors import LessonError
from lessons.exceptions import unknown_exception
from lessons.folders import MAX_LESSON_BYTES
from lessons.glossary import typo_of
from lessons.linemap import build_line_map, value_line
from lessons.messages import say, term
from lessons.model import (
    DEFAULT_TOLERANCE,
    FORMAT_VERSION,
    MAX_ANSWER_CELLS,
    STEP_KINDS,
    BuggyAnswer,
    ChoiceOption,
    ChoiceParam,
    ChoiceStep,
    ErrorChoice,
    ErrorStep,
    FloatParam,
    IntParam,
    Lesson,
    PredictStep,
    QuizTemplate,
    ReadStep,
    TensorParam,
)
from lessons.parse_cache import KEEP_IN_PROCESS, ParseCache
from lessons.schema import Fields, Problems, toml_type
from lessons.text import LocalText
from lessons.tomlhelp import TomlError, loads

MAX_QUIZ_CELLS = MAX_ANSWER_CELLS  # the same cap as a predict step's answer (lessons.model)
_ERROR_CHOICE = re.compile(r"^(none|[A-Za-z_][A-Za-z0-9_.]*(:\s*\S.*)?)$", re.DOTALL)

# the keys of each table come from the one declaration of the format (lessons.spec)
_LESSON_KEYS = list(spec.LESSON)
_COMMON_STEP_KEYS = list(spec.STEP)
_KIND_KEYS = {kind: list(keys) for kind, keys in spec.KIND_KEYS.items()}
_QUIZ_KEYS = list(spec.QUIZ)
_built: dict[tuple, tuple[Lesson | None, tuple[LessonError, ...]]] = {}  # (see parse_lesson), oldest first
_PARAM_KEYS = {kind: list(keys) for kind, keys in spec.PARAM_KINDS.items()}


def load_lesson(path: str | os.PathLike[str], cache: ParseCache | None = None) -> Lesson:
    """Read and check one lesson file; raise the first `LessonError` if anything is wrong."""
    lesson, problems = read_lesson(path, cache)
    if problems:
        raise problems[0]
    return lesson


def read_lesson(path: str | os.PathLike[str], cache: ParseCache | None = None) -> tuple[Lesson | None, list[LessonError]]:
    """Read one lesson file, returning the lesson (None if unusable) and every problem found."""
    try:
        text = read_source(path)
    except LessonError as error:
        return None, [error]
    return parse_lesson(text, path, cache)


def read_source(path: str | os.PathLike[str]) -> str:
    """The file's text, refusing missing, huge, empty, binary and non-UTF-8 files without reading them whole."""
    shown = os.fspath(path)
    try:
        stat = os.stat(path)
        if not Path(path).is_file():
            raise LessonError(shown, "", None, say("not_a_regular_file"))
        if stat.st_size > MAX_LESSON_BYTES:
            raise _too_big(shown, stat.st_size)
        with open(path, "rb") as file:
            data = file.read(MAX_LESSON_BYTES + 1)
    except FileNotFoundError:
        raise LessonError(shown, "", None, say("file_not_found")) from None
    except OSError as error:
        raise LessonError(shown, "", None, say("cannot_read", reason=error.strerror or error)) from None
    if len(data) > MAX_LESSON_BYTES:
        raise _too_big(shown, len(data))
    if not data.strip():
        raise LessonError(shown, "", None, say("empty_file"))
    if b"\x00" in data:
        line = data[:data.index(b"\x00")].count(b"\n") + 1
        raise LessonError(shown, "", line, say("binary_file"))
    try:
        return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise LessonError(shown, "", line, say("not_utf8", byte=f"{data[error.start]:02x}", column=column)) from None


def _too_big(shown: str, size: int) -> LessonError:
    return LessonError(shown, "", None, say("file_too_big", size=f"{size / 1e6:.1f}", cap=MAX_LESSON_BYTES // 1_000_000))


def parse_lesson(text: str, path: str | os.PathLike[str] | None = None,
                 cache: ParseCache | None = None) -> tuple[Lesson | None, list[LessonError]]:
    """Parse lesson TOML text; `path` is only used in messages and stored on the lesson.

    With a `cache`, the lesson read from the same text at the same path (in the same pack) is also kept
    for the rest of the process: lessons are immutable, and a classroom server's zygote builds the class's
    lessons once for every student's tutor it forks (building them is half of loading the course)."""
    shown = os.fspath(path) if path is not None else "<lesson>"
    pack = _pack(path)
    built_key = (ParseCache.key(text), shown, pack.name if pack else None, pack.glossary if pack else None)
    parsed = cache.get(text) if cache is not None else None
    if parsed is not None and built_key in _built:
        lesson, problems = _built[built_key]
        return lesson, list(problems)
    if parsed is None:
        try:
            parsed = loads(text), build_line_map(text)
        except TomlError as error:
            return None, [LessonError(shown, "", error.line, error.message, error.ja)]
        if cache is not None:
            cache.put(text, *parsed)
    data, lines = parsed
    problems = Problems(shown, lines)
    lesson = _read_lesson(data, problems, Path(path) if path is not None else None,
                          pack.glossary if pack is not None else frozenset())
    if lesson is not None and pack is not None:  # namespaced: packs cannot collide with other lessons
        lesson = dataclasses.replace(lesson, id=f"{pack.name}/{lesson.id}", pack=pack.name)
    result = (lesson if not problems.found else None), problems.found
    if cache is not None:
        _built[built_key] = result[0], tuple(result[1])
        while len(_built) > KEEP_IN_PROCESS:
            del _built[next(iter(_built))]
    return result


def _pack(path):
    if path is None:
        return None
    from lessons.packs import pack_of

    return pack_of(Path(path).parent)


def _check_concepts(fields: Fields, key: str, tags: tuple[str, ...] | None, glossary: frozenset[str]) -> None:
    for i, tag in enumerate(tags or ()):
        typo = typo_of(tag, glossary)
        if typo is not None:
            fields.problems.add(f"{fields.at(key)}[{i}]", say("unknown_concept", tag=tag, typo=typo), at_value=True)


def _read_lesson(data: dict, problems: Problems, path: Path | None,
                 glossary: frozenset[str] = frozenset()) -> Lesson | None:
    top = Fields(data, "", problems, _LESSON_KEYS)
    version = top.integer("format_version", required=True)
    if version is not None and version != FORMAT_VERSION:
        newer = version > FORMAT_VERSION
        top.error("format_version", say("format_version_newer" if newer else "format_version", version=version,
                                        reads=FORMAT_VERSION))
        return None
    lesson_id = top.identifier("id")
    order = top.integer("order")
    title = top.text("title", required=True)
    summary = top.text("summary", required=True)
    concepts = top.tags("concepts")
    _check_concepts(top, "concepts", concepts, glossary)
    source = top.text("source")
    tolerance = top.tolerance("tolerance") or DEFAULT_TOLERANCE
    step_tables = top.tables("steps", required=True)
    if "steps" in data and isinstance(data["steps"], list) and not data["steps"]:
        top.error("steps", say("no_steps"))
    steps = [_read_step(key_path, table, problems, glossary) for key_path, table in step_tables]
    _check_step_ids_and_chains(step_tables, steps, problems)
    quiz_tables = top.tables("quiz")
    quiz = [_read_quiz(key_path, table, problems, concepts or (), glossary) for key_path, table in quiz_tables]
    _check_unique([(f"{kp}.id", q.id) for (kp, _), q in zip(quiz_tables, quiz) if q], problems, say("what_quiz_id"))
    if problems.found:
        return None
    return Lesson(format_version=version, id=lesson_id, order=order, title=title, summary=summary,
                  concepts=concepts, source=source, tolerance=tolerance, steps=tuple(steps), quiz=tuple(quiz),
                  path=path, lines=problems.lines)


def _elsewhere(kind: str | None) -> dict[str, LocalText]:
    """For keys that belong to another step kind: which one, to explain the error."""
    found = {}
    for other, keys in _KIND_KEYS.items():
        for key in keys:
            if other != kind and key not in _KIND_KEYS.get(kind, ()):
                found.setdefault(key, say("key_of_other_kind", other=other, kind=kind))
    return found


def _read_step(key_path: str, table: dict, problems: Problems, glossary: frozenset[str] = frozenset()):
    kind = table.get("kind")
    known_kind = kind if isinstance(kind, str) and kind in STEP_KINDS else None
    # with no valid kind, the kind error is enough: accept every step key
    allowed = _COMMON_STEP_KEYS + (_KIND_KEYS[known_kind] if known_kind else sum(_KIND_KEYS.values(), []))
    fields = Fields(table, key_path, problems, allowed, elsewhere=_elsewhere(known_kind))
    if "kind" not in table:
        problems.add(key_path, say("missing_kind", kinds=", ".join(STEP_KINDS)))
    elif known_kind is None:
        fields.error("kind", say("unknown_kind", kind=repr(kind), hint=_kind_hint(kind), kinds=", ".join(STEP_KINDS)))
    common = dict(
        id=fields.identifier("id"),
        text=fields.text("text", required=True),
        snippet=_snippet(fields, required=known_kind == "error"),
        continues=fields.boolean("continues"),
        hints=fields.texts("hints"),
        explanation=fields.text("explanation"),
        line=problems.lines.get(key_path),
        snippet_line=_snippet_line(problems, f"{key_path}.snippet"),
        concepts=fields.tags("concepts", required=False) or (),
    )
    _check_concepts(fields, "concepts", common["concepts"], glossary)
    if known_kind == "predict":
        if common["snippet"] is None and not common["continues"] and "snippet" not in table:
            problems.add(key_path, say("predict_needs_snippet"))
        return PredictStep(**common, expression=_expression(fields, "expression", required=True) or "",
                           expect=_expression(fields, "expect"), tolerance=fields.tolerance("tolerance"),
                           nonfinite=fields.boolean("nonfinite"),
                           misconceptions_off=_misconceptions(fields, "misconceptions_off"),
                           buggy=_buggy_answers(fields))
    if known_kind == "error":
        return ErrorStep(**common, choices=_error_choices(fields))
    if known_kind == "choice":
        return ChoiceStep(**common, options=_options(fields))
    return ReadStep(**common)


def _misconceptions(fields: Fields, key: str) -> tuple[str, ...]:
    """Misconception ids, each one of the catalogue (a typo is named, with the closest id)."""
    ids = fields.tags(key, required=False) or ()
    for i, name in enumerate(ids):
        unknown = _unknown_misconception(name)
        if unknown:
            fields.problems.add(f"{fields.at(key)}[{i}]", unknown)
    return tuple(name for name in ids if not _unknown_misconception(name))


def _buggy_answers(fields: Fields) -> tuple[BuggyAnswer, ...]:
    """`[[steps.buggy]]`: an author's extra buggy answers, each for a misconception of the catalogue."""
    found = []
    for key_path, table in fields.tables("buggy"):
        sub = Fields(table, key_path, fields.problems, list(spec.BUGGY))
        name = sub.identifier("misconception")
        answer = _expression(sub, "answer", required=True)
        unknown = _unknown_misconception(name) if name is not None else None
        if unknown:
            sub.error("misconception", unknown)
        elif name is not None and answer is not None:
            found.append(BuggyAnswer(name, answer))
    return tuple(found)


def _unknown_misconception(name: str) -> LocalText | None:
    from lessons.misconceptions import CATALOGUE

    if name in CATALOGUE:
        return None
    close = difflib.get_close_matches(name, list(CATALOGUE), n=1, cutoff=0.6)
    hint = say("did_you_mean", close=close[0]) if close else say("known_misconceptions", names=", ".join(CATALOGUE))
    return say("unknown_misconception", name=name, hint=hint)


def _kind_hint(kind: object) -> LocalText | str:
    if not isinstance(kind, str):
        return ""
    close = difflib.get_close_matches(kind, list(STEP_KINDS), n=1, cutoff=0.6)
    return say("did_you_mean", close=close[0]) if close else ""


def _snippet(fields: Fields, *, required: bool) -> str | None:
    snippet = fields.string("snippet", required=required)
    return textwrap.dedent(snippet) if snippet is not None else None


def _snippet_line(problems: Problems, key_path: str) -> int | None:
    return value_line(problems.lines, key_path)


def _expression(fields: Fields, key: str, *, required: bool = False) -> str | None:
    source = fields.string(key, required=required)
    if source is None:
        return None
    try:
        ast.parse(source.strip(), mode="eval")
    except SyntaxError as error:
        fields.error(key, say("not_an_expression", reason=error.msg, source=repr(source.strip())))
        return None
    return source.strip()


def _error_choices(fields: Fields) -> tuple[ErrorChoice, ...]:
    choices = []
    for key_path, table in fields.tables("choices", required=True):
        sub = Fields(table, key_path, fields.problems, ["error", "why"])
        error = sub.string("error", required=True)
        if error is not None and not _ERROR_CHOICE.match(error.strip()):
            sub.error("error", say("not_an_error", error=repr(error)))
            error = None
        elif error is not None and error.strip().lower() != "none":
            problem = unknown_exception(error.strip().partition(":")[0])
            if problem is not None:
                sub.error("error", problem)
                error = None
        if error is not None:
            choices.append(ErrorChoice(error.strip(), sub.text("why")))
    if isinstance(fields.table.get("choices"), list) and len(fields.table["choices"]) < 2:
        fields.error("choices", say("two_choices"))
    _check_unique([(f"{fields.at('choices')}[{i}]", c.error) for i, c in enumerate(choices)], fields.problems,
                  say("what_choice"))
    return tuple(choices)


def _options(fields: Fields) -> tuple[ChoiceOption, ...]:
    options = []
    for key_path, table in fields.tables("options", required=True):
        sub = Fields(table, key_path, fields.problems, ["text", "correct", "why"])
        text = sub.text("text", required=True)
        if text is not None:
            options.append(ChoiceOption(text, sub.boolean("correct"), sub.text("why")))
    if isinstance(fields.table.get("options"), list):
        if len(fields.table["options"]) < 2:
            fields.error("options", say("two_options"))
        correct = sum(option.correct for option in options)
        if options and correct != 1:
            fields.error("options", say("one_correct", found=correct))
    return tuple(options)


def _check_unique(pairs: list[tuple[str, str | None]], problems: Problems, what: LocalText) -> None:
    seen: dict[str, str] = {}
    for key_path, value in pairs:
        if value is None:
            continue
        if value in seen:
            problems.add(key_path, say("duplicate", what=what, value=repr(value), other=seen[value]))
        else:
            seen[value] = key_path


def _check_step_ids_and_chains(step_tables: list[tuple[str, dict]], steps: list, problems: Problems) -> None:
    _check_unique([(f"{kp}.id", step.id) for (kp, _), step in zip(step_tables, steps)], problems, say("what_step_id"))
    has_program = False
    for (key_path, _), step in zip(step_tables, steps):
        if step.continues:
            if key_path == step_tables[0][0]:
                problems.add(f"{key_path}.continues", say("first_continues"))
            elif not has_program:
                problems.add(f"{key_path}.continues", say("nothing_to_continue"))
        has_program = step.snippet is not None or (step.continues and has_program)


def _read_quiz(key_path: str, table: dict, problems: Problems, lesson_concepts: tuple[str, ...],
               glossary: frozenset[str] = frozenset()) -> QuizTemplate | None:
    fields = Fields(table, key_path, problems, _QUIZ_KEYS)
    own_concepts = fields.tags("concepts", required=False)
    _check_concepts(fields, "concepts", own_concepts, glossary)
    template = dict(
        id=fields.identifier("id"),
        concepts=own_concepts or lesson_concepts,
        text=fields.text("text", required=True),
        snippet=_snippet(fields, required=True),
        expression=_expression(fields, "expression", required=True),
        params=_params(fields),
        tolerance=fields.tolerance("tolerance"),
        hints=fields.texts("hints"),
        explanation=fields.text("explanation"),
        line=problems.lines.get(key_path),
        snippet_line=_snippet_line(problems, f"{key_path}.snippet"),
        nonfinite=fields.boolean("nonfinite"),
    )
    if template["snippet"] is not None:
        # every declared param counts, valid or not: a bad param is reported at the param, once,
        # not also as "placeholder has no entry"
        declared = table.get("params") if isinstance(table.get("params"), dict) else {}
        _check_placeholders(fields, template["snippet"], set(declared))
    if any(template[key] is None for key in ("id", "text", "snippet", "expression")):
        return None
    return QuizTemplate(**template)


def _check_placeholders(fields: Fields, snippet: str, names: set[str]) -> None:
    try:
        parsed = list(string.Formatter().parse(snippet))
    except ValueError as error:
        fields.error("snippet", say("braces", reason=error))
        return
    used = set()
    for _, name, format_spec, conversion in parsed:
        if name is None:
            continue
        if name not in names:
            fields.error("snippet", say("placeholder_no_param" if name.isidentifier() else "placeholder_no_param_braces",
                                        name=name))
        elif format_spec or conversion:
            fields.error("snippet", say("placeholder_plain", name=name))
        used.add(name)
    for name in sorted(names - used):
        fields.problems.add(f"{fields.at('params')}.{name}", say("param_unused", name=name))


def _params(fields: Fields) -> tuple:
    table = fields.raw("params", term("params"), (dict,), False)
    if table is None:
        return ()
    params = []
    for name, entry in table.items():
        key_path = f"{fields.at('params')}.{name}"
        if not name.isidentifier():
            fields.problems.add(key_path, say("param_name", name=repr(name)))
        elif not isinstance(entry, dict):
            fields.problems.add(key_path, say("param_table", got=toml_type(entry)))
        else:
            param = _param(name, key_path, entry, fields.problems)
            if param is not None:
                params.append(param)
    return tuple(params)


def _param(name: str, key_path: str, spec: dict, problems: Problems):
    kind = spec.get("kind")
    if kind not in _PARAM_KEYS:
        problems.add(f"{key_path}.kind" if "kind" in spec else key_path,
                     say("param_kind", kinds=", ".join(_PARAM_KEYS), kind=repr(kind)))
        return None
    fields = Fields(spec, key_path, problems, ["kind", *_PARAM_KEYS[kind]])
    before = len(problems.found)
    if kind == "choice":
        values = fields.raw("values", term("values"), (list,), True)
        if values is not None and (not values or not all(isinstance(v, (str, int, float)) for v in values)):
            fields.error("values", say("choice_values"))
        param = ChoiceParam(name, tuple(values or ()))
    elif kind == "int":
        param = IntParam(name, fields.integer("low", required=True), fields.integer("high", required=True))
    elif kind == "float":
        param = FloatParam(name, fields.number("low", required=True), fields.number("high", required=True),
                           _decimals(fields))
    else:
        param = TensorParam(name, _shapes(fields), fields.number("low", required=True),
                            fields.number("high", required=True), fields.boolean("integers", True), _decimals(fields))
    low, high = getattr(param, "low", 0), getattr(param, "high", 0)
    if low is not None and high is not None and low > high:
        fields.error("high", say("high_below_low", high=high, low=low))
    return param if len(problems.found) == before else None


def _decimals(fields: Fields) -> int:
    decimals = fields.integer("decimals")
    if decimals is not None and not 0 <= decimals <= 6:
        fields.error("decimals", say("decimals"))
    return 1 if decimals is None else decimals


def _shapes(fields: Fields) -> tuple[tuple[int, ...], ...]:
    shapes = fields.raw("shapes", term("shapes"), (list,), True)
    if shapes is None:
        return ()
    good = all(isinstance(s, list) and all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in s)
               for s in shapes)
    if not shapes or not good:
        fields.error("shapes", say("shapes"))
        return ()
    for shape in shapes:
        cells = 1
        for size in shape:
            cells *= size
        if cells > MAX_QUIZ_CELLS:
            fields.error("shapes", say("shape_too_big", shape=shape, cells=cells, cap=MAX_QUIZ_CELLS))
            return ()
    return tuple(tuple(shape) for shape in shapes)
