"""The surface a snippet may touch, derived from the engine's public API at run time.

Attribute access is default-deny.  Allowed are: the names in `engine.__all__` on the engine module,
public (non-underscore) attributes of objects and classes defined in the `engine` package (Tensor,
grad_fn nodes, dtypes, `no_grad`, `Size`), a read-only subset of numpy arrays (what `x.numpy()`
returns), and a few methods of builtin containers and strings that cannot grow memory unchecked or
reach object internals (`str.format` only through the call guard's formatter: ``"{0.__class__}".format(x)``
would walk attributes).
Deriving the engine part from the live classes means it follows the engine without a copied list.
"""
from __future__ import annotations

import collections
import functools
import math
import types
import weakref

import numpy as np

from engine.autograd.function import Function
from engine.nn import Module
from engine.tensor import Tensor

from .errors import reason

# the builtins a snippet may use (`print` is the runner's own, writing to the captured output)
SAFE_BUILTINS = (
    "abs", "all", "any", "bool", "dict", "enumerate", "float", "int", "isinstance", "len", "list",
    "max", "min", "print", "range", "repr", "reversed", "round", "set", "sorted", "str", "sum",
    "tuple", "zip",
)
# learners' everyday builtins (`type` with one argument, `hasattr` by the attribute rules, `map`/`filter`
# calling through the call guard: see guards) and the exceptions a snippet may raise and catch; never
# BaseException, MemoryError or RecursionError (the runner's limits must not be caught)
SAFE_BUILTINS += ("filter", "hasattr", "map", "type")
# iterating by hand (`next(iter(loader))`, `next(gen, None)`); iter's callable form calls through the call guard
SAFE_BUILTINS += ("iter", "next")
# a class's method decorators (`@classmethod def from_config(cls, ...)`, `@property`): their functions are vetted
# when they are made (`Guards._call_builtin`), and a class keeps only what a decorator made (`Guards.build_class`)
SAFE_BUILTINS += ("classmethod", "property", "divmod")
EXCEPTIONS = (
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "FloatingPointError", "IndexError",
    "KeyError", "LookupError", "NameError", "NotImplementedError", "OverflowError", "RuntimeError",
    "StopIteration", "TypeError", "UnboundLocalError", "ValueError", "ZeroDivisionError",
)
SAFE_BUILTINS += EXCEPTIONS
# `import math`: its numbers and functions (the call guard bounds factorial/comb/perm/prod/lcm)
MATH_NAMES = frozenset(n for n in (
    "e inf nan pi tau acos acosh asin asinh atan atan2 atanh cbrt ceil comb copysign cos cosh degrees dist "
    "erf erfc exp exp2 expm1 fabs factorial floor fmod frexp fsum gamma gcd hypot isclose isfinite isinf "
    "isnan isqrt lcm ldexp lgamma log log10 log1p log2 modf nextafter perm pow prod radians remainder sin "
    "sinh sqrt tan tanh trunc ulp"
).split() if hasattr(math, n))

# methods of builtin values that a snippet may call, by exact type
BUILTIN_METHODS: dict[type, frozenset[str]] = {
    str: frozenset(
        "capitalize count endswith find index isalnum isalpha isdigit islower isspace isupper join "
        "lower lstrip replace rfind rstrip split splitlines startswith strip title upper".split()
    ) | {"center", "ljust", "rjust", "zfill", "format"},  # sized before they run; format without . and [ in fields
    list: frozenset("append clear copy count extend index insert pop remove reverse sort".split()),
    tuple: frozenset("count index".split()),
    dict: frozenset("clear copy get items keys pop setdefault update values".split()),
    # `Module.state_dict()` returns one, as in PyTorch (`sd.keys()`, `sd.items()` in the saving tutorial)
    collections.OrderedDict: frozenset("clear copy get items keys pop setdefault update values".split()),
    set: frozenset("add clear copy difference discard intersection pop remove union update".split()),
    int: frozenset({"bit_length"}),
    float: frozenset({"is_integer"}),
}

# read-only, in-memory ndarray attributes: no tofile/dump/ctypes/data/base/view/resize, and no
# astype (a dtype such as 'U1000000' makes every element megabytes)
NDARRAY_ATTRS = frozenset(
    "T all any argmax argmin copy cumsum dtype flatten item max mean min ndim prod "
    "reshape round shape size squeeze std sum tolist transpose var".split()
) | {"astype"}  # to numeric and bool dtypes only (checked by the call guard)
NUMPY_DTYPE_ATTRS = frozenset({"name", "itemsize", "kind"})
# graph nodes (`x.grad_fn`) show PyTorch's node API only, not the engine's saved arrays and rules
NODE_MODULE = "engine.graph"
NODE_ATTRS = frozenset({"name", "next_functions", "variable", "metadata", "register_hook", "register_prehook"})

_RUNNER_PACKAGE = __name__.rsplit(".", 1)[0]


def is_engine_module_name(name: str | None) -> bool:
    """True for `engine` and its submodules, except the runner itself."""
    if not name:
        return False
    return (name == "engine" or name.startswith("engine.")) and not (
        name == _RUNNER_PACKAGE or name.startswith(_RUNNER_PACKAGE + ".")
    )


def engine_module() -> types.ModuleType:
    import engine

    return engine


def public_names(module: types.ModuleType | types.SimpleNamespace) -> frozenset[str]:
    """A module's public API: its `__all__`; without one, only what the module itself defines
    (or re-exports from the top-level API), never what it merely imports (`np`, internal helpers).
    A namespace standing for a module (`torch.autograd.functional`) is all public."""
    names = getattr(module, "__all__", None)
    if isinstance(module, types.SimpleNamespace):
        names = list(vars(module))
    elif names is None:
        top = engine_module()
        exported = {id(getattr(top, n)) for n in public_names(top)} if module is not top else set()
        names = [
            n for n, v in vars(module).items()
            if getattr(v, "__module__", None) == module.__name__ and not isinstance(v, types.ModuleType)
            or isinstance(v, types.SimpleNamespace) or id(v) in exported
        ]
    return frozenset(n for n in names if not n.startswith("_"))


def is_tensor(value: object) -> bool:
    return isinstance(value, Tensor)


def is_engine_type(value: object) -> bool:
    return isinstance(value, type) and is_engine_module_name(value.__module__)


def is_engine_object(value: object) -> bool:
    return is_engine_module_name(type(value).__module__)


# --- classes a snippet defines (see docs/runner.md, "Classes") --------------------------------------

# the bases a snippet's `class` statement may name (besides its own classes), as PyTorch's docs spell them
CLASS_BASES = {Function: "torch.autograd.Function", Module: "torch.nn.Module"}
# the engine methods a snippet class may replace: the extension points PyTorch documents for these bases
OVERRIDABLE = frozenset({"__init__", "forward", "backward", "setup_context", "jvp", "extra_repr"})
# every class the runner's `class` statement built (after vetting it); weak, so they die with the snippet
_SNIPPET_CLASSES: weakref.WeakSet[type] = weakref.WeakSet()


def register_snippet_class(cls: type) -> None:
    _SNIPPET_CLASSES.add(cls)


def is_snippet_class(value: object) -> bool:
    return isinstance(value, type) and value in _SNIPPET_CLASSES


def is_snippet_object(value: object) -> bool:
    """An instance of a class the snippet defined (a Module or Function subclass)."""
    return type(value) in _SNIPPET_CLASSES


def engine_member(cls: type, name: str) -> bool:
    """Whether `name` is defined by an engine class in cls's MRO (so a snippet must not replace it)."""
    return any(name in vars(k) for k in cls.__mro__ if is_engine_type(k))


def _class_member(cls: type, name: str) -> bool:
    """Whether `name` is defined by cls or a base class: never the metaclass's own attributes (`mro`)."""
    return any(name in vars(k) for k in cls.__mro__)


# what torch's own Module.__init__ puts on every instance (`_parameters`, `_modules`): never the snippet's
_ENGINE_INSTANCE_NAMES = frozenset(vars(Module()))


def own_private(obj: object, name: str) -> bool:
    """Whether `obj._name` is a private attribute of the snippet's own (`self._lr` in a method of its class): a
    name with one leading underscore on an instance of the snippet's class that is none of torch's own."""
    return (name.startswith("_") and not name.startswith("__") and is_snippet_object(obj)
            and name not in _ENGINE_INSTANCE_NAMES and not engine_member(type(obj), name))


def attribute_refusal(obj: object, name: str) -> str | None:
    """None when `obj.name` is part of the allowed surface, else the reason it is not."""
    if own_private(obj, name) or name == "_version" and isinstance(obj, Tensor):  # an int: in-place changes so far
        return None
    if name.startswith("_saved_") and type(obj).__module__ == NODE_MODULE:  # PyTorch's y.grad_fn._saved_self
        return None
    if name.startswith("_"):
        return reason("private_internal", name=name)
    if obj is math:
        return None if name in MATH_NAMES else reason("math_attribute_unavailable", name=name)
    if isinstance(obj, types.ModuleType):
        if is_engine_module_name(obj.__name__) and name in public_names(obj):
            return None
        return reason("attribute_not_in_tutor_torch", name=name)
    if isinstance(obj, type):
        if obj.__module__ == NODE_MODULE:  # `type(y.grad_fn)`: a node's class shows the node API only
            return None if name in NODE_ATTRS else reason("node_class_attribute_unavailable", name=name)
        if is_engine_type(obj) or is_snippet_class(obj):
            return None if _class_member(obj, name) else reason("class_attribute_unavailable", name=name)
        return reason("type_attributes_unavailable", kind=repr(obj.__name__))
    if type(obj).__module__ == NODE_MODULE:
        return None if name in NODE_ATTRS else reason("node_attribute_unavailable", name=name)
    # public attributes of engine objects (e.g. torch.autograd.functional) and of the snippet's own instances
    if is_engine_object(obj) or is_snippet_object(obj) or isinstance(obj, types.SimpleNamespace):
        return None  # a misspelt public name gets Python's own AttributeError, as in PyTorch
    if isinstance(obj, (np.ndarray, np.generic)):
        return None if name in NDARRAY_ATTRS else reason("numpy_attribute_unavailable", name=name)
    if isinstance(obj, np.dtype):
        return None if name in NUMPY_DTYPE_ATTRS else reason("numpy_attribute_unavailable", name=name)
    if isinstance(obj, Exception) and name == "args":  # `except ValueError as e: e.args` (elements vetted)
        return None
    allowed = BUILTIN_METHODS.get(type(obj))
    if allowed is not None and name in allowed:
        return None
    return reason("attribute_of_unavailable", name=name, kind=type(obj).__name__)


# dtype kinds a snippet's arrays may have: bool, signed/unsigned int, float (never object, str, bytes,
# void, datetime: object arrays hold arbitrary Python objects, text arrays make every element megabytes)
NUMERIC_KINDS = frozenset("biuf")
# numpy methods that take a dtype, and how many positional arguments they may get (`out` comes next)
NDARRAY_POSITIONAL = {"sum": 2, "prod": 2, "cumsum": 2, "mean": 2, "std": 2, "var": 2, "all": 1, "any": 1,
                      "max": 1, "min": 1, "argmax": 1, "argmin": 1, "round": 1}
NDARRAY_KEYWORDS = frozenset({"axis", "dtype", "keepdims", "ddof", "decimals", "order"})


def dtype_refusal(value: object) -> str | None:
    """None unless `value` is a tensor or array whose elements are not numbers or bools."""
    if isinstance(value, Tensor):
        kind = value._data.dtype.kind
    elif isinstance(value, (np.ndarray, np.generic)):
        kind = value.dtype.kind
    else:
        return None
    if kind in NUMERIC_KINDS:
        return None
    return reason("array_dtype_refused", dtype=str(value.dtype))


def requested_dtype_refusal(value: object) -> str | None:
    """None when `dtype=value` asks for a numeric or bool dtype (a torch dtype, float, 'float32'…)."""
    if value is None or value is float or value is int or value is bool:
        return None
    numpy = getattr(value, "numpy", value) if type(value).__module__ == "engine.dtypes" else value
    try:
        kind = np.dtype(numpy).kind
    except (TypeError, ValueError):
        kind = "?"
    if kind in NUMERIC_KINDS:
        return None
    return reason("dtype_refused", dtype=f"{value!r:.40}")


def value_refusal(value: object) -> str | None:
    """None when a value fetched through an allowed attribute may be handed to the snippet."""
    if isinstance(value, types.ModuleType):
        if is_engine_module_name(value.__name__) or value is math:
            return None
        return reason("module_value_unavailable", name=repr(value.__name__))
    if isinstance(value, types.FunctionType) and not is_engine_module_name(value.__module__):
        return reason("function_not_engine", name=repr(value.__qualname__))
    if isinstance(value, type) and not (is_engine_type(value) or is_snippet_class(value)
                                        or issubclass(value, (np.generic, int, float))):
        return reason("type_value_unavailable", name=repr(value.__name__))
    if isinstance(value, (types.CodeType, types.FrameType, types.TracebackType, types.GeneratorType)):
        return reason("interpreter_internals")
    return None


@functools.lru_cache(maxsize=1)
def public_engine_types() -> dict[type, str]:
    """The classes of the engine's public API, each with the name PyTorch prints for it (`torch.Tensor`)."""
    found: dict[type, str] = {}
    pending = [(engine_module(), "torch")]
    seen: set[int] = set()
    while pending:
        module, dotted = pending.pop(0)
        if id(module) in seen:
            continue
        seen.add(id(module))
        for name in sorted(public_names(module), key=lambda n: n != getattr(getattr(module, n, None), "__name__", "")):
            value = getattr(module, name, None)
            if isinstance(value, types.ModuleType) and is_engine_module_name(value.__name__):
                pending.append((value, f"{dotted}.{name}"))
            elif is_engine_type(value):
                found.setdefault(value, f"{dotted}.{name}")
    return found


def type_text(value: object) -> str | None:
    """How PyTorch shows an engine class (`<class 'torch.Tensor'>`), None for anything else."""
    if isinstance(value, type):
        name = public_engine_types().get(value)
        if name is not None:
            return f"<class '{name}'>"
        if value.__module__ == NODE_MODULE:  # a graph node's class: `<class 'MulBackward0'>`
            return f"<class '{value.__name__}'>"
    return None
