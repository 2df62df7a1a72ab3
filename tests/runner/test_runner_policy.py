"""The static allow-list (`check_source`) on its own: what passes, what is refused, and where."""
from __future__ import annotations

import pytest

from engine.runner import check_source

ALLOWED = {
    "seed_mean": "import torch\nt1 = torch.Tensor([[1, 2, 3], [4, 5, 6]])\nt1.requires_grad_()\n"
                 "out = (t1 * t1).mean()\nout.backward()\nprint(t1.grad)",
    "aliases": "import torch as t\nfrom torch import tensor, eye\nimport torch.nn.functional as F\nx = eye(2)",
    "assignments": "a, (b, c) = 1, (2, 3)\na += 1\nd = [0, 1]\nd[0] = 5\nd[1] *= 2\ndel d[0]",
    "tensor_attrs": "import torch\nx = torch.ones(2)\nx.requires_grad = True\nx.grad = None",
    "control_flow": "for i in range(3):\n    if i == 1:\n        continue\n    elif i > 1:\n        break\n"
                    "n = 0\nwhile n < 3:\n    n += 1\nassert n == 3\npass",
    "functions": "def f(x, y=2, z=-1.5, w=None):\n    return (x + y) ** 2\ng = lambda x: (x + 1) ** 2\n",
    "comprehensions": "a = [i * i for i in range(3) if i]\nb = {k: v for k, v in zip('ab', a)}\n"
                      "c = {i for i in a}\nd = sum(i for i in a)\ne = [(i, j) for i, j in b.items()]",
    "fstrings": "x = 1.5\ns = f'{x:.3f} {x!r:>10} {x:{5}}'",
    "no_grad": "import torch\nwith torch.no_grad():\n    y = torch.ones(2) * 2",
    "shadow_builtin_name": "import torch\ninput = torch.ones(2)\nprint(input)",
    "indexing": "import torch\nx = torch.ones(3, 3)\ny = x[:, 1] + x[0] + x[1:3, ...].sum() + x[None, 0]",
    "literals": "a = [1, 2.5, 'x', None, True, (1,), {1: 2}, {3}, -4]",
    # learners' Python (issue 10, item 3): run as in Python, guarded at run time
    "try_raise": "try:\n    x = 1\nexcept (ValueError, TypeError) as e:\n    raise RuntimeError('x') from e\n"
                 "else:\n    pass\nfinally:\n    pass",
    "unpacking": "print(*[1, 2], *(3,))\nprint(**{})\nd = {**{}}\na, *b = [1, 2]\nfor c, *d in [(1, 2)]:\n    pass",
    "annotations": "x: int = 1\ny: float\ndef f(a: int, *args: int, k: int = 2, **kw: str) -> float:\n    pass",
    "decorators": "import torch\n@torch.no_grad()\ndef f(x):\n    return x",
    "del_attribute": "import torch\nx = torch.ones(2)\ndel x.grad",
    "math": "import math\nimport math as m\nfrom math import sqrt, pi\ny = math.exp(1)",
    # ordinary programs (issue 23, item 4): these bind or read names like any other code
    "plain_class": "class Config:\n    lr = 0.1\n    sizes = [4, 2]\n    name: str = 'tiny'\nclass C(object):\n    pass",
    "global_nonlocal": "def f():\n    global g\n    g = 1\ndef h():\n    n = 0\n    def k():\n        nonlocal n\n"
                       "        n += 1\n    return k",
    "generators": "def f():\n    yield 1\n    yield from [2, 3]",
    "defaults": "import torch\ndef f(x=[], *, k=torch.nn.MSELoss(), m=2 ** 3):\n    pass",
    "submodule_import": "import torch.nn\nimport torch.nn.functional\nimport torch.autograd.functional as AF\n"
                        "from torch.autograd.functional import hessian",
    "main_guard_and_names": "import torch\nif __name__ == '__main__':\n    print(torch.relu.__name__)",
    "unicode_names": "α = 0.1\n学習率 = α * 2",
}

REFUSED = {
    # source: (line, column, words in the reason)
    "import os": (1, 1, "only `import torch`"),
    "import torch.creation": (1, 1, "only `import torch`"),
    "from torch import creation": (1, 1, "not part of the torch API"),
    "from . import x": (1, 1, "only imports from torch"),
    "x = 1\ny = x.__class__": (2, 5, "internals"),
    "x = 1\ny = x._private": (2, 5, "internals"),
    "__builtins__": (1, 1, "internals"),
    "class A(B, C):\n    pass": (1, 12, "at most one base"),
    "class A:\n    x, y = 1, 2": (2, 5, "`name = value`"),
    "def f():\n    global __builtins__": (2, 5, "internals of the runner"),
    "def f():\n    n = 1\n    def g():\n        nonlocal __class__": (4, 9, "internals of the runner"),
    "__name__ = 'x'": (1, 1, "internals"),
    "x = 1\nx.__name__ = 'y'": (2, 1, "internals"),
    "async def f():\n    pass": (1, 1, "async"),
    "(y := 1)": (1, 2, ":="),
    "def f(x=().__class__):\n    pass": (1, 9, "internals"),
    "eval('1')": (1, 1, "'eval' is not available"),
    "x = vars()": (1, 5, "'vars' is not available"),
    "for x.y in []:\n    pass": (1, 5, "plain name"),
    "with open('f') as (a, b):\n    pass": (1, 6, "'open' is not available"),
    "match 1:\n    case 1:\n        pass": (1, 1, "match"),
    "s = '" + "a" * 10_001 + "'": (1, 5, "longer than the limit"),
    "def f(*, k=vars):\n    pass": (1, 12, "'vars' is not available"),
    "try:\n    pass\nexcept ValueError as __x:\n    pass": (3, 1, "internals"),
    "from math import _x": (1, 1, "`math._x` is not available"),
    "x = BaseException": (1, 5, "'BaseException' is not available"),
}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_allowed_snippets_pass_the_static_check(name: str) -> None:
    assert check_source(ALLOWED[name]) == []


@pytest.mark.parametrize("source", sorted(REFUSED))
def test_refused_syntax_is_reported_with_place_and_reason(source: str) -> None:
    line, column, words = REFUSED[source]
    errors = check_source(source)
    assert errors, f"{source!r} passed the check"
    first = errors[0]
    assert first.type == "SnippetRejected"
    assert (first.line, first.column) == (line, column), first
    assert words in first.message
    # every refusal says why: refused for safety, or simply not in the tutor's torch (see the API reference)
    assert "refused for safety" in first.message or first.message.endswith("(what it provides: docs/api.md)")


def test_every_problem_is_reported_not_only_the_first() -> None:
    errors = check_source("import os\nx = 1\ny = x.__dict__\nclass A(B, C):\n    pass")
    assert [e.line for e in errors] == [1, 3, 4]


def test_syntax_errors_carry_their_position() -> None:
    [error] = check_source("x = (1,\ny = 2")
    assert error.type == "SyntaxError" and error.line == 1


def test_dunder_names_are_refused_even_when_bound_by_the_snippet() -> None:
    errors = check_source("__x = 1\nprint(__x)")
    assert [e.line for e in errors] == [1, 2]
