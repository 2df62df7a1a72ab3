"""Building a step's program from its `continues` chain, and mapping program lines back to the file.

A step with `continues = true` runs after the previous step's whole program,
like the next cell of a notebook. The program is one source text made of the
chain's snippets; `Program.locate` turns a line of it back into the step and
the file line it came from, so a failure can be reported where it is written.

A step that continues after an error step starts from the state that step
reached, as the next cell of a notebook does: the failing cell's statements up
to the one that raised have run, and so has the raising statement itself, up to
its error (a failed `torch.autograd.grad` has already run backward and freed the
graph). The raising statement is kept, its error caught; what follows it is not.
"""
from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from lessons.model import ErrorStep, Lesson


@dataclass(frozen=True)
class Part:
    """One snippet inside a program."""

    step_index: int
    first_line: int  # the program line this snippet starts on (1-based)
    line_count: int
    file_line: int | None  # the file line of the snippet's first line, when known


@dataclass(frozen=True)
class Program:
    source: str
    parts: tuple[Part, ...]

    def locate(self, line: int | None) -> tuple[Part | None, int | None]:
        """The part a program line belongs to, and the file line it was written on."""
        if line is None:
            return None, None
        for part in self.parts:
            if part.first_line <= line < part.first_line + part.line_count:
                offset = line - part.first_line
                return part, (part.file_line + offset if part.file_line is not None else None)
        return None, None


def join(snippets: list[tuple[int, str, int | None]]) -> Program:
    """A program made of (step index, snippet, file line) pieces, in order."""
    texts, parts, line = [], [], 1
    for step_index, snippet, file_line in snippets:
        text = snippet.rstrip()
        if not text:
            continue
        count = text.count("\n") + 1
        texts.append(text)
        parts.append(Part(step_index, line, count, file_line))
        line += count
    return Program("\n".join(texts) + "\n", tuple(parts))


# statements with a block of their own, which `try: …` on one line cannot hold
_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef,
             ast.AsyncFor, ast.AsyncWith, ast.Match, ast.TryStar)


class ProgramBuilder:
    """Builds (and caches) the programs of one lesson's steps."""

    def __init__(self, lesson: Lesson, run: Callable | None = None):
        self.lesson = lesson
        self._run = run
        self._pieces: dict[tuple[int, bool], list] = {}

    def program(self, index: int) -> Program | None:
        """Step `index`'s full program, or None for a step with no code."""
        pieces = self._chain(index, as_prefix=False)
        return join(pieces) if pieces else None

    def prefix(self, index: int) -> Program | None:
        """What runs before step `index`'s own snippet: the earlier cells of its `continues` chain."""
        step = self.lesson.steps[index]
        if not step.continues or index == 0:
            return None
        pieces = self._chain(index - 1, as_prefix=True)
        return join(pieces) if pieces else None

    def _chain(self, index: int, *, as_prefix: bool) -> list[tuple[int, str, int | None]]:
        key = (index, as_prefix)
        if key not in self._pieces:
            step = self.lesson.steps[index]
            pieces = self._chain(index - 1, as_prefix=True) if step.continues and index > 0 else []
            if step.snippet is not None:
                pieces = pieces + [(index, step.snippet, step.snippet_line)]
            if as_prefix and isinstance(step, ErrorStep) and step.snippet is not None:
                pieces = pieces[:-1] + self._before_failure(index, pieces)
            self._pieces[key] = pieces
        return self._pieces[key]

    def _before_failure(self, index: int, pieces: list) -> list:
        """The error step's own piece, cut before the top-level statement that raised (if it raised)."""
        program = join(pieces)
        result = self.run(program.source)
        step_index, snippet, file_line = pieces[-1]
        if result.error is None:
            return [pieces[-1]]
        part, _ = program.locate(result.error.line)
        if part is None or part.step_index != index:
            return []
        failing = result.error.line - part.first_line + 1
        try:
            statements = ast.parse(snippet).body
        except SyntaxError:
            return []
        for statement in statements:
            if statement.lineno <= failing <= (statement.end_lineno or statement.lineno):
                lines = snippet.splitlines()
                if isinstance(statement, _COMPOUND):  # `try:` cannot share its line: cut before it, as before
                    return [(step_index, "\n".join(lines[:statement.lineno - 1]), file_line)]
                # the raising line runs again, its error caught; the program's line numbers stay the file's
                kept = lines[:statement.lineno - 1] + [f"try: {lines[statement.lineno - 1]}",
                                                       *lines[statement.lineno:statement.end_lineno],
                                                       "except Exception: pass"]
                return [(step_index, "\n".join(kept), file_line)]
        return []

    def run(self, source: str, expressions: tuple[str, ...] = ()):
        """Run a program in the sandbox worker (a confined child process; see `engine.sandbox`), and
        evaluate `expressions` after it in the same child."""
        if self._run is None:
            from engine.sandbox import run_program

            self._run = run_program
        return self._run(source, expressions=list(expressions)) if expressions else self._run(source)
