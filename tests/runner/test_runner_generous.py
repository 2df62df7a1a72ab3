"""Issue 10, item 3: ordinary learner code runs as in Python + PyTorch; only what touches the machine is refused.

Each construct runs through `run_snippet` and, where it can, is compared with the same source run by
plain Python (with the real `torch` when that is installed): same output, or the same exception type and
message.  The refusals that remain name the construct and say that it is refused for safety.
"""
from __future__ import annotations

import contextlib
import io

import pytest
from work_bounds import GENEROUS, CpuTime

from engine.runner import Limits, run_snippet


def _ours(source: str) -> tuple[str, tuple[str, str] | None]:
    result = run_snippet(source)
    error = None if result.error is None else (result.error.type, result.error.message)
    return result.stdout, error


def _python(source: str) -> tuple[str, tuple[str, str] | None]:
    """The same source run by Python itself (with the real torch if the source imports it)."""
    if "torch" in source:
        pytest.importorskip("torch")
    out, error = io.StringIO(), None
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(source, "<snippet>", "exec"), {"__name__": "__main__"})  # noqa: S102 - our own test text
        except Exception as exc:  # noqa: BLE001 - reported like the runner reports it
            error = (type(exc).__name__, str(exc))
    return out.getvalue(), error


def _same_as_python(source: str) -> str:
    ours, theirs = _ours(source), _python(source)
    assert ours == theirs
    return ours[0]


def _refused(source: str, words: str, kind: str = "SnippetRejected") -> None:
    """Refused or stopped by its own bound, at once: in a fraction of the CPU time the default 2 s clock allows,
    which here is only a hang guard (on a loaded machine that clock would stop a slow run first)."""
    with CpuTime() as spent:
        result = run_snippet(source, limits=GENEROUS)
    assert spent.seconds < 2
    assert result.error is not None and result.error.type == kind, result.error
    assert words in result.error.message
    if kind == "SnippetRejected":  # refused for safety, or not in the tutor's torch (pointing at the reference)
        assert "refused for safety" in result.error.message or "docs/api.md" in result.error.message


# --- decorators ---------------------------------------------------------------------------------------

DECORATORS = """import torch
x = torch.ones(2, requires_grad=True)
@torch.no_grad()
def double(v):
    return v * 2
@torch.no_grad
def triple(v):
    return v * 3
@torch.enable_grad()
def quadruple(v):
    return v * 4
def shout(fn):
    def wrapper(*args, **kwargs):
        print("calling with", args, kwargs)
        return fn(*args, **kwargs)
    return wrapper
@shout
@shout
def add(a, b=1):
    return a + b
with torch.no_grad():
    q = quadruple(x)
print(double(x).requires_grad, triple(x).requires_grad, q.requires_grad, (x * 2).requires_grad)
print(add(2, b=3), torch.is_grad_enabled())
"""


def test_decorators_run_as_in_pytorch() -> None:
    out = _same_as_python(DECORATORS)
    assert out.endswith("False False True True\ncalling with (2,) {'b': 3}\ncalling with (2,) {'b': 3}\n5 True\n")


def test_a_decorator_is_applied_through_the_call_guard() -> None:
    _refused("@type\ndef f():\n    pass\ng = f(f, {})", "calling 'function'")
    _refused('@"{0.__class__}".format\ndef f():\n    pass', "str.format")


# --- str.format ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    'a, b = 1, 2.5\nprint("{} {:.3f}".format(a, b))',
    'print("{x}".format(x=1), "{0}-{1}-{0}".format("a", "b"), "{{literal}} {}".format(None))',
    'print("{:>8}|{:<6}|{:^7}|{:+d}|{:,}|{!r}|{:08.3e}".format("hi", 3, "mid", 5, 1234567, "q", 12.5))',
    'print("{:{w}.{p}f}|{:{}}".format(3.14159, 7, 4, w=10, p=2))',
    'print("{1}".format(0))',
    'print("{x}".format(y=1))',
    'print("{} {0}".format(1))',
    'import torch\nloss = torch.tensor(0.25)\nprint("loss: {:.4f} {}".format(loss.item(), torch.tensor([1.0, 2.0])))',
])
def test_str_format_with_plain_fields_runs_as_in_python(source: str) -> None:
    _same_as_python(source)


@pytest.mark.parametrize("source", [
    'print("{0.__class__}".format(1))',
    'print("{0[0]}".format([1]))',
    'print("{a.real}".format(a=1))',
    'print("{0:{0.real}}".format(1))',
])
def test_str_format_fields_that_walk_into_objects_are_refused(source: str) -> None:
    _refused(source, "str.format")


def test_str_format_widths_are_bounded_before_formatting() -> None:
    _refused('s = "{:{}}".format(1, 10**9)', "width", "ResourceLimitExceeded")
    _refused('s = "{:>100000000}".format(1)', "width", "ResourceLimitExceeded")


# --- type, hasattr, map, filter, isinstance ----------------------------------------------------------

BUILTINS = """import torch
x = torch.ones(2)
print(type(x))
print(type(x) is torch.Tensor, type(x.sum()) is torch.Tensor, type(3), type([1]), type("s"), type(None))
print(type(x.shape), type(torch.float32), f"{type(x)}", str(type(x)), repr(type(x)), "{}".format(type(x)))
print(f"{type(x)!r}", "{!r:>24}".format(type(x)), type(x.numpy()), type(x.tolist()))
print(isinstance(x, torch.Tensor), isinstance(3, (int, float)), isinstance(x.shape, tuple))
print(hasattr(x, "grad"), hasattr(x, "foo"), hasattr([1], "append"), hasattr([1], "shape"), hasattr(torch, "nope"))
print(list(map(lambda v: v * 2, [1, 2, 3])), list(map(str, [1, 2])), list(map(max, [1, 5], [4, 2])))
print(list(filter(None, [0, 1, 2])), list(filter(lambda v: v > 1, [1, 2, 3])))
print(sorted(["bb", "a", "ccc"], key=len), max([3, -7], key=abs), sum(map(int, "123")))
print([t.shape for t in map(torch.ones, [1, 2])])
"""


def test_type_hasattr_map_filter_isinstance_run_as_in_pytorch() -> None:
    out = _same_as_python(BUILTINS)
    assert out.startswith("<class 'torch.Tensor'>\n")


def test_type_and_hasattr_keep_the_attribute_rules() -> None:
    _refused('t = type("C", (), {})', "three arguments")
    _refused('m = list(map(type, ["C"], [()], [{}]))', "three arguments")
    _refused("import torch\nh = hasattr(torch, '_forward_to_method')", "'_forward_to_method'")
    _refused("h = hasattr(1, '__class__')", "'__class__'")
    _refused("import torch\nh = hasattr(torch.ones(2).numpy(), 'tofile')", "tofile")
    _refused("import torch\ny = torch.ones(2, requires_grad=True) * 2\nn = type(y.grad_fn).op", "graph node's class")


def test_functions_called_from_c_go_through_the_call_guard() -> None:
    _refused('s = sorted([10**9], key="a".center)', "length", "ResourceLimitExceeded")
    _refused('s = list(map("a".ljust, [10**9]))', "length", "ResourceLimitExceeded")
    _refused('xs = [3, 1]\nxs.sort(key="{0.real}".format)', "str.format")
    _refused('import torch\nJ = torch.autograd.functional.jacobian("{0.__class__}".format, torch.ones(2))', "str.format")
    _refused('import torch\nw = torch.no_grad()(map)\nc = list(w(type, ["C"], [()], [{}]))', "three arguments")
    _refused('import torch\nw = torch.no_grad()("a".center)\ns = w(10**9)', "length", "ResourceLimitExceeded")


# --- * and ** unpacking -------------------------------------------------------------------------------

UNPACKING = """import torch
shape = (2, 3)
x = torch.zeros(*shape)
print(x.shape, torch.ones(*[2], **{"requires_grad": True}).requires_grad)
def f(a, b, *rest, scale=1, **options):
    return (a + b) * scale, rest, sorted(options.items())
print(f(*[1, 2, 3, 4], **{"scale": 2, "z": 0}))
a, *rest = [1, 2, 3]
*init, last = "abc"
rows, *_ = x.shape
print(a, rest, init, last, rows)
print([*range(3), *"ab"], (*[1], 2), {*[1, 1, 2]}, {**{"k": 1}, "j": 2})
for head, *tail in [(1, 2, 3)]:
    print(head, tail)
print(*[1, 2], sep="-")
"""


def test_star_unpacking_runs_as_in_pytorch() -> None:
    _same_as_python(UNPACKING)


def test_unpacking_is_sized_before_it_is_built() -> None:
    _refused("r = range(10**6)\nxs = [*r, *r, *r]", "unpacked list", "ResourceLimitExceeded")
    _refused("r = range(10**6)\nprint(*r, *r)", "unpacked tuple", "ResourceLimitExceeded")
    _refused("print(*range(10**9))", "range", "ResourceLimitExceeded")
    for source in ("print(*5)", "[*5]", "(*5,)", "{*5}", "[].append(*5)", "def f(*a):\n    pass\nf(*5)"):
        _same_as_python(source)  # Python's own TypeError


# --- annotations --------------------------------------------------------------------------------------

ANNOTATIONS = """import torch
x: int = 3
y: float
def f(a: torch.Tensor, k: int = 2, *args: int, flag: bool = False) -> float:
    total: float = a.sum().item() * k
    return total
print(x, f(torch.ones(2)), f(torch.ones(3), 3, flag=True))
"""


def test_type_annotations_run_as_in_pytorch() -> None:
    _same_as_python(ANNOTATIONS)


# --- try / except / finally / raise -------------------------------------------------------------------

EXCEPTIONS = """import torch
x = torch.ones(3, requires_grad=True)
y = x * 2
try:
    y.backward()
except RuntimeError as e:
    print("caught:", e)
finally:
    print("finally")
try:
    v = [1][5]
except (IndexError, KeyError) as e:
    print(type(e), e)
else:
    print("not reached")
def check(n):
    if n < 0:
        raise ValueError(f"negative: {n}")
    return n
try:
    check(-1)
except ValueError as err:
    print(repr(err))
try:
    try:
        1 / 0
    except ZeroDivisionError:
        raise
except Exception as e:
    print("outer", e)
try:
    x.grad.zero_()
except AttributeError as e:
    print(e)
try:
    raise KeyError("k") from None
except LookupError as e:
    print("lookup", e)
"""


def test_try_except_finally_and_raise_run_as_in_pytorch() -> None:
    out = _same_as_python(EXCEPTIONS)
    assert out.startswith("caught: grad can be implicitly created only for scalar outputs\nfinally\n")


def test_an_uncaught_raise_is_reported_as_python_reports_it() -> None:
    result = run_snippet("x = 1\nraise ValueError(f'bad {x}')")
    assert (result.error.type, result.error.message, result.error.line) == ("ValueError", "bad 1", 2)
    _same_as_python("raise ValueError(f'bad {1}')")


@pytest.mark.parametrize("handler", ["except:", "except Exception:", "except ResourceLimitExceeded:",
                                     "except (ValueError, TypeError) as e:"])
def test_no_handler_catches_a_limit(handler: str) -> None:
    source = f"try:\n    while True:\n        pass\n{handler}\n    print('swallowed')\nprint('after')"
    result = run_snippet(source)
    assert result.stdout == ""
    assert (result.error.type, result.error.line) == ("ResourceLimitExceeded", 2)


def test_an_error_in_an_except_clause_does_not_replace_a_limit() -> None:
    source = "try:\n    try:\n        import torch\n        y = torch.creation\n    except undefined_name:\n" \
             "        pass\nexcept Exception:\n    print('swallowed')\nprint('after')"
    result = run_snippet(source)
    assert result.stdout == "" and (result.error.type, result.error.line) == ("SnippetRejected", 4)


def test_no_finally_block_runs_after_a_limit() -> None:
    source = "def f():\n    try:\n        while True:\n            pass\n    finally:\n        print('finally')\n" \
             "        return 1\nf()\nprint('after')"
    result = run_snippet(source)
    assert result.stdout == "" and result.error.type == "ResourceLimitExceeded"
    _refused("try:\n    while True:\n        pass\nfinally:\n    while True:\n        pass",
             "steps", "ResourceLimitExceeded")


def test_refusals_and_recursion_are_not_caught_either() -> None:
    _refused("try:\n    import os\nexcept Exception:\n    pass", "import os")  # static
    _refused("import torch\ntry:\n    torch.ones(2).__class__\nexcept Exception:\n    pass", "__class__")
    _refused("x = []\nfor i in range(5000):\n    x = [x]\ntry:\n    s = str(x)\nexcept Exception:\n    s = 'caught'",
             "too deep", "ResourceLimitExceeded")
    _refused("def f(n):\n    try:\n        return f(n + 1)\n    except Exception:\n        return 0\nf(0)",
             "levels deep", "ResourceLimitExceeded")
    _refused("x = BaseException", "'BaseException'")
    _refused("try:\n    pass\nexcept MemoryError:\n    pass", "'MemoryError'")


# --- del x.grad, import math, astype, str methods -----------------------------------------------------

def test_del_grad_sets_it_to_none_as_in_pytorch() -> None:
    out = _same_as_python("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n"
                          "print(x.grad)\ndel x.grad\nprint(x.grad)")
    assert out == "tensor([3., 3.])\nNone\n"
    _refused("d = [1]\ndel d.append", "only attributes of tensors")


MATH = """import math
import math as m
from math import sqrt, pi
import torch
print(math.sqrt(2), sqrt(16), pi, m.e, math.exp(1), math.log(10), math.floor(2.7), math.ceil(2.1))
print(math.factorial(10), math.comb(5, 2), math.perm(5, 2), math.prod([1, 2, 3]), math.gcd(12, 18), math.inf)
print(math.isclose(0.1 + 0.2, 0.3), math.fsum([0.1] * 10), math.hypot(3, 4), math.sqrt(torch.tensor(4.0)))
"""


def test_import_math_runs_as_in_python() -> None:
    _same_as_python(MATH)
    _same_as_python("import math\nprint(math.sqrt(-1))")  # ValueError: math domain error
    _same_as_python("import math\nprint(math.nope)")       # AttributeError


def test_math_keeps_its_work_bounded() -> None:
    _refused("import math\nn = math.factorial(10**6)", "digits", "ResourceLimitExceeded")
    _refused("import math\nn = math.comb(10**6, 5 * 10**5)", "digits", "ResourceLimitExceeded")
    _refused("import math\nn = math.prod([2**60] * 10**4)", "digits", "ResourceLimitExceeded")
    _refused("from math import _x", "`math._x`")
    _refused("import math\nn = math.perm(10**6)", "digits", "ResourceLimitExceeded")
    _refused("import math\nn = math.lcm(*range(1, 10**4))", "digits", "ResourceLimitExceeded")
    _same_as_python("import math\nprint(math.comb(10**18, 2), math.perm(10**6, 3), math.perm(5))")


ASTYPE = """import torch
a = torch.tensor([1.5, -2.5, 0.0]).numpy()
print(a.astype(float).dtype, a.astype(int), a.astype("float32").dtype, a.astype(bool), a.astype(dtype="int8"))
print(a.astype(a.dtype).dtype, a.astype("float64").sum())
"""


def test_numeric_astype_runs_as_in_pytorch() -> None:
    _same_as_python(ASTYPE)


@pytest.mark.parametrize("dtype", ["str", "'O'", "'U1000000'", "'V8'", "'datetime64[s]'"])
def test_astype_to_a_non_numeric_dtype_is_refused(dtype: str) -> None:
    _refused(f"import torch\na = torch.ones(3).numpy().astype({dtype})", "astype")


STRINGS = """s = "  Hello World  "
print(s.upper(), s.lower(), s.strip(), s.split(), "-".join(["a", "b"]), s.replace("l", "L"))
print(s.startswith("  H"), s.endswith("x"), "ab".center(6, "*"), "ab".ljust(4) + "|", "ab".rjust(4), "7".zfill(3))
print("hello world".title(), "hello".capitalize(), "banana".count("a"), "banana".find("n"), "a,b".split(","))
"""


def test_common_str_methods_run_as_in_python() -> None:
    _same_as_python(STRINGS)


@pytest.mark.parametrize("call", ['"a".center(10**9)', '"a".ljust(10**9, "x")', '"a".rjust(10**9)',
                                  '"7".zfill(10**9)', '("a" * 1000).replace("a", "a" * 2000)'])
def test_str_methods_are_sized_before_they_build(call: str) -> None:
    _refused(f"s = {call}", "length", "ResourceLimitExceeded")


# --- Python's own errors instead of refusals ----------------------------------------------------------

@pytest.mark.parametrize("source", [
    "import torch\nx = torch.ones(2, requires_grad=True)\nx.grad.zero_()",
    "import torch\ny = torch.foo",
    "import torch\nx = torch.ones(2)\ny = x.foo",
    "y = [1].shape",
    "import torch\nwith torch.no_grad:\n    pass",
    "with [1, 2]:\n    pass",
])
def test_python_errors_are_python_errors_not_refusals(source: str) -> None:
    out = _same_as_python(source)
    assert out == ""


def test_missing_attribute_message_and_line() -> None:
    result = run_snippet("import torch\nx = torch.ones(2, requires_grad=True)\nx.grad.zero_()")
    assert (result.error.type, result.error.message, result.error.line) == (
        "AttributeError", "'NoneType' object has no attribute 'zero_'", 3)
    result = run_snippet("import torch\nwith torch.no_grad:\n    pass")
    assert (result.error.type, result.error.message) == (
        "TypeError", "'type' object does not support the context manager protocol")


@pytest.mark.parametrize("source, words", [
    ("import torch\ny = torch.ones(2).__class__", "__class__"),
    ("import torch\ny = torch.ones(2).numpy().tofile", "tofile"),
    ("import torch\ny = torch.creation", "'creation'"),
    ("import os", "import os"),
    ("x = eval('1')", "'eval'"),
    ("class A(Exception):\n    pass", "torch.nn.Module"),
    ("def f():\n    yield 1\nframe = f().gi_frame", "gi_frame"),
])
def test_remaining_refusals_name_the_construct_and_say_why(source: str, words: str) -> None:
    _refused(source, words)


# --- the per-tensor bound is a memory bound -----------------------------------------------------------

def test_a_2000_by_2000_tensor_is_fine() -> None:
    result = run_snippet("import torch\nx = torch.ones(2000, 2000)\ny = torch.zeros(2000, 2000, dtype=torch.float64)\n"
                         "z = x * 2\nprint(x.shape, y.dtype, z.sum().item())",
                         limits=GENEROUS)  # the memory bound is under test, never the clock
    assert result.ok, result.error
    assert result.stdout == "torch.Size([2000, 2000]) torch.float64 8000000.0\n"


@pytest.mark.parametrize("source", [
    "import torch\nx = torch.ones(3000, 3000)",                         # 36 MB float32
    "import torch\nx = torch.ones(2100, 2100, dtype=torch.float64)",    # 35 MB float64
    "import torch\nx = torch.ones(2000, 1) + torch.ones(1, 3000)",      # 24 MB broadcast... of float32: fine
])
def test_bigger_tensors_are_refused_by_their_bytes(source: str) -> None:
    result = run_snippet(source)
    if "3000)" in source and "+" in source:
        assert result.ok, result.error
        return
    assert result.error.type == "ResourceLimitExceeded" and "MB per tensor" in result.error.message


def test_the_byte_bound_is_configurable() -> None:
    small = Limits(max_tensor_bytes=4000)
    assert run_snippet("import torch\nx = torch.ones(1000)", limits=small).ok
    result = run_snippet("import torch\nx = torch.ones(1001)", limits=small)
    assert result.error.type == "ResourceLimitExceeded"
    result = run_snippet("import torch\nx = torch.ones(10)", limits=Limits(max_elements=5))
    assert result.error.type == "ResourceLimitExceeded" and "5 per tensor" in result.error.message


def test_str_format_and_math_prod_are_bounded_as_they_go() -> None:
    _refused('t = "{:9999}" * 10**5\ns = t.format(*[1] * 10**5)', "str.format", "ResourceLimitExceeded")
    _refused("import math\nimport torch\nx = torch.ones(1000, 1000)\np = math.prod([x] * 200)", "multiplications",
             "ResourceLimitExceeded")


def test_a_tensors_version_counter_is_read_as_in_pytorch_never_written():
    """`x._version` (course branch: lesson 210 reads it): an int on tensors only; assigning it stays refused."""
    assert _same_as_python("import torch\nx = torch.ones(2)\ny = x.detach()\ny.add_(1)\n"
                           "print(x._version, y._version, x.data._version)\n") == "1 1 0\n"
    _refused("import torch\nx = torch.ones(2)\nx._version = 3\n", "'._version'")
    _refused("import torch\nclass A:\n    pass\nprint(torch.nn.Linear(1, 1)._version)\n", "'_version'")
