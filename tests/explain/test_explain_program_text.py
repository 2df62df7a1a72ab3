"""The recorder reads the program's text for a node from lines it splits once per program
(`record.Program.text`): it must be exactly what `ast.get_source_segment` gives, white space made one
space, for every node of every bundled program and for the line ends and characters Python's
tokenizer treats differently from `str.splitlines` (\\r, \\r\\n, form feed, U+2028, non-ASCII columns)."""
import ast

import pytest

from engine.explain.record import Program
from lessons.course import load_course
from lessons.model import ReadStep
from lessons.programs import ProgramBuilder


def bundled_sources():
    for lesson in load_course(user_dir=None).lessons:
        builder = ProgramBuilder(lesson)
        for index, step in enumerate(lesson.steps):
            if not isinstance(step, ReadStep) and step.snippet is not None:
                program = builder.program(index)
                if program is not None:
                    yield program.source


ODD = [
    "x = 1\r\ny = (x +\r  2)\rz = 'é' + \"ü\"\n  \n",
    "a = [1,\n 2]\x0c\nb = (3 +\x0c\n 4)",
    "s = '\u2028' + '\x1c' + '学習率'\nt = (s +\n s)",
    "y = x.backward()",          # no line end at all
]


@pytest.mark.parametrize("sources", [ODD, list(bundled_sources())], ids=["odd", "bundled"])
def test_a_nodes_text_is_its_source_segment(sources):
    for source in sources:
        program = Program(source)
        assert program.parsed
        for node in ast.walk(program.tree):
            segment = ast.get_source_segment(source, node)
            assert program.text(node) == (None if segment is None else " ".join(segment.split())), source


def test_a_program_that_does_not_parse_has_no_tree():
    assert not Program("x = (").parsed
