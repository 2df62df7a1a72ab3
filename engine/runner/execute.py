"""Running a checked snippet: compile the guarded tree, execute it, report what happened.

Runs in the calling thread, so context variables the caller set (the engine's backward recorder)
are seen by the snippet's `backward()` calls; the wall-clock bound is checked at every step instead
of by a watchdog thread.  The snippet's own exceptions never escape `run_snippet`.
"""
from __future__ import annotations

import ast
import contextlib
import importlib
import linecache
import reprlib
import threading
import types
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from .errors import ResourceLimitExceeded, SnippetError, SnippetFailure, _Stop, reason, stop_within
from .guards import Guards
from .limits import Limits
from .policy import parse_checked
from .rewrite import rewrite
from .sizes import nested_cost


@dataclass
class RunResult:
    """What one snippet did: its output, its error (if any) and the names it bound."""

    ok: bool
    stdout: str
    error: SnippetError | None
    _sandbox: _Sandbox = field(repr=False)
    stderr: str = ""  # the warnings it raised, as PyTorch's go to stderr (`UserWarning: ...`)

    @property
    def namespace(self) -> dict[str, object]:
        """Top-level names the snippet bound (its functions too; no modules, no runner internals)."""
        return {
            name: value for name, value in self._sandbox.globals.items()
            if not name.startswith("__") and not isinstance(value, types.ModuleType)
        }

    def evaluate(self, expr: str, *, limits: Limits | None = None) -> object:
        """Evaluate one expression in the final namespace under the same rules and fresh limits."""
        limits = limits or self._sandbox.limits
        tree, errors = parse_checked(expr, mode="eval", limits=limits, bound=frozenset(self._sandbox.globals),
                                     filename=self._sandbox.filename)
        if errors:
            raise SnippetFailure(errors[0])
        value, error = self._sandbox.execute(tree, limits, output=[], stderr=[])
        if error is not None:
            raise SnippetFailure(error)
        return value


def run_snippet(source: str, *, limits: Limits | None = None, filename: str = "<snippet>") -> RunResult:
    """Check and run `source`; never raises for the snippet's fault (see `RunResult.error`)."""
    limits = limits or Limits()
    sandbox = _Sandbox(filename, limits)
    tree, errors = parse_checked(source, limits=limits, filename=filename)
    if errors:
        return RunResult(False, "", errors[0], sandbox)
    output: list[str] = []
    stderr: list[str] = []
    # traces of the program's own frames (anomaly detection's forward trace) show its lines, as PyTorch's do,
    # also where the sandbox cannot read the file
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    _, error = sandbox.execute(tree, limits, output=output, stderr=stderr)
    return RunResult(error is None, "".join(output), error, sandbox, "".join(stderr))


class _Sandbox:
    """The globals a snippet (and later `evaluate` calls) run in, and the code objects it owns."""

    def __init__(self, filename: str, limits: Limits) -> None:
        self.filename = filename
        self.limits = limits
        self.globals: dict[str, object] = {"__name__": "__main__"}  # run as a script: `if __name__ == "__main__":`
        self.codes: set[types.CodeType] = set()

    def execute(self, tree: ast.AST, limits: Limits, *, output: list[str],
                stderr: list[str]) -> tuple[object, SnippetError | None]:
        try:
            code = compile(rewrite(tree), self.filename, "eval" if isinstance(tree, ast.Expression) else "exec")
        except SyntaxError as exc:  # e.g. `return` outside a function
            return None, SnippetError("SyntaxError", exc.msg, exc.lineno, exc.offset)
        except (RecursionError, MemoryError, ValueError):
            return None, SnippetError.of("SnippetRejected", reason("nested_too_deep"))
        self.codes.update(_code_objects(code))
        guards = Guards(limits, self.codes, output)
        self.globals.update(guards.names())
        self.globals["__builtins__"] = guards.builtins
        try:
            with _engine_state(guards, stderr):
                return eval(code, self.globals), None  # noqa: S307 - checked and guarded above
        except (_Stop, Exception) as raised:
            # a stop is reported as itself, also when another error raised on its way out carries it
            exc = stop_within(raised) or raised
            if isinstance(exc, _Stop):
                return None, self._error(exc.kind, str(exc), exc, exc.key, exc.params)
            if isinstance(exc, RecursionError):
                said = reason("calls_too_deep")
                return None, self._error(ResourceLimitExceeded.kind, said, exc, said.key, said.params)
            if isinstance(exc, MemoryError):
                said = reason("out_of_memory")
                return None, self._error(ResourceLimitExceeded.kind, said, exc, said.key, said.params)
            if not isinstance(exc, Exception):
                raise exc
            # the snippet's (or the engine's) error, reported as PyTorch would
            return None, self._error(type(exc).__name__, _message(exc), exc)

    def _error(self, kind: str, message: str, exc: BaseException, key: str = "",
               params: dict | None = None) -> SnippetError:
        """The error with the line and column of the innermost frame that belongs to the snippet (and a runner
        reason's catalogue key and parameters)."""
        line = column = None
        tb = exc.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if code in self.codes:
                line = tb.tb_lineno
                column = _column(code, tb.tb_lasti)
            tb = tb.tb_next
        if len(message) > _MAX_MESSAGE:  # an error may quote a huge value back
            message = message[:_MAX_MESSAGE] + " …"
        return SnippetError(kind, str(message), line, column, key, params or {})


_MAX_MESSAGE = 1000


class _ShortRepr(reprlib.Repr):
    """reprlib bounds the containers it walks, but builds any other object's repr in full before cutting it: an
    object whose text would be long (a module tree, an optimizer) is shown by its type instead."""

    def repr_instance(self, x: object, level: int) -> str:
        if nested_cost(x, 100 * _MAX_MESSAGE, text=True) > 100 * _MAX_MESSAGE:
            return f"<{type(x).__name__}>"
        return super().repr_instance(x, level)


_SHORT_REPR = _ShortRepr()
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = _MAX_MESSAGE
_SHORT_REPR.maxlist = _SHORT_REPR.maxtuple = _SHORT_REPR.maxdict = _SHORT_REPR.maxset = 20


def _message(exc: BaseException) -> str:
    """The exception's text, bounded before it is built: `assert False, big_list` or `d[big_tuple]` carry
    values whose str() would be huge, so those are shown through a bounded repr."""
    args = exc.args
    if all(type(arg) in (str, int, float, bool) for arg in args):
        if sum(len(arg) for arg in args if type(arg) is str) <= 100 * _MAX_MESSAGE or not args:
            return str(exc)
        if len(args) == 1:
            return args[0][:_MAX_MESSAGE] + " …"
    text = ", ".join(_short(arg) for arg in args[:5])
    return text[:_MAX_MESSAGE] + (" …" if len(text) > _MAX_MESSAGE else "")


def _short(value: object) -> str:
    from engine.tensor import Tensor

    if isinstance(value, Tensor):
        return f"tensor of shape {list(value.shape)}"
    if isinstance(value, (np.ndarray, np.generic)):
        return f"array of shape {list(value.shape)}"
    try:
        return _SHORT_REPR.repr(value)
    except (Exception, _Stop):  # noqa: BLE001 - a repr that fails (or a snippet's extra_repr past its limits)
        return f"<{type(value).__name__}>"  # must not hide the error itself


def _column(code: types.CodeType, lasti: int) -> int | None:
    for index, position in enumerate(code.co_positions()):
        if index == lasti // 2:
            return None if position[2] is None else position[2] + 1
    return None


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


_ACTIVE = threading.local()  # the Guards of the run going on in each thread


def _size_hook(shape: tuple[int, ...], work: int = 0, itemsize: int | None = None) -> None:
    """The engine's allocation hook: vets shapes (and matrix products' work) for the run in this thread; others
    pass freely."""
    guards = getattr(_ACTIVE, "guards", None)
    if guards is not None:
        guards.size_guard(shape, work, itemsize)


@contextlib.contextmanager
def _engine_state(guards: Guards, stderr: list[str]) -> Iterator[None]:
    """Make the run's guards vet the engine's allocations; write the engine's warnings to `stderr`, as
    PyTorch's go (the non-leaf `.grad` warning is a lesson in itself: a notebook shows it under the cell); put back the print options, grad mode,
    anomaly mode and random stream, and close a forward-AD level the snippet left open."""
    printing = importlib.import_module("engine.printing")
    tensor = importlib.import_module("engine.tensor")  # `engine.tensor` the attribute is the function
    saved, outer = printing.get_printoptions(), getattr(_ACTIVE, "guards", None)
    creation = importlib.import_module("engine.creation")
    state = importlib.import_module("engine.state")
    modes, rng = state.current(), creation._rng
    tensor.set_size_guard(_size_hook)  # idempotent; a no-op in threads that run no snippet
    _ACTIVE.guards = guards
    # every run starts as a fresh PyTorch process does: default print options, gradients recorded
    printing.set_printoptions(profile="default")
    state.update(grad=True, inference=False, anomaly=False, check_nan=True)  # (modes do not outlive a run)
    creation.manual_seed(0)  # the engine's random stream: a snippet's manual_seed does not reach the next

    def show(message: object, category: type, *_args: object, **_kw: object) -> None:
        text = f"{category.__name__}: {str(message)[:_MAX_MESSAGE]}\n"
        guards.budget.printed(len(text))  # warnings count against max_output like print does
        stderr.append(text)

    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():  # PyTorch gives inf/nan silently
            warnings.simplefilter("always")
            warnings.showwarning = show
            yield
    finally:
        _ACTIVE.guards = outer
        printing.set_printoptions(**saved)
        state.restore(modes, "grad", "inference", "anomaly", "check_nan")
        creation._rng = rng
        forward_ad = importlib.import_module("engine.autograd.forward_ad")
        if forward_ad.current_level() >= 0:  # a level the snippet entered and never exited: its tangents go
            forward_ad.exit_dual_level()
