"""The torch surface comes from the op records (`engine.ops`, `engine.registry`): every name a record
declares is covered by the conformance table, every torch function and in-place method the engine exposes is
declared by a record, no module keeps a list of names beside them, and dispatch shows each op's result shape to
the size guard once, before the forward runs."""
from __future__ import annotations

import ast
import contextlib
import inspect
from pathlib import Path

import numpy as np
import pytest
from opinfo import OPS as CONFORMANCE

import engine
from engine import registry, state
from engine.ops import OPS

ENGINE = Path(engine.__file__).parent


def _declared_names() -> set[str]:
    found = set()
    for names, _ in registry.declared():
        found |= {*names.methods, *names.functions, *names.inplace, *names.inplace_functions}
    return found


def test_every_declared_name_has_a_conformance_entry():
    missing = sorted(_declared_names() - set(CONFORMANCE))
    assert not missing, f"names declared by op records without an entry in tests/engine/opinfo.py: {missing}"


def test_every_torch_function_over_tensors_comes_from_a_record():
    """Every function of `import engine as torch` that takes a tensor (the ones the registry forwards to a
    method, and the tensor module's own) is one the records declare; the rest are factories, modes and dtypes."""
    declared = {name for names, _ in registry.declared() for name in (*names.functions, *names.inplace_functions)}
    assert set(registry.FUNCTIONS) == declared
    not_over_tensors = {"tensor", "is_grad_enabled", "is_inference_mode_enabled"}  # a factory, two mode queries
    for name in set(engine.__all__) - not_over_tensors:
        value = getattr(engine, name)
        if inspect.isfunction(value) and value.__module__ in ("engine.registry", "engine.tensor"):
            assert name in declared, f"torch.{name} is exposed but no record declares it"


def test_every_inplace_method_is_declared():
    inplace = {n for names, _ in registry.declared() for n in names.inplace}
    methods = {n for n in dir(engine.Tensor) if n.endswith("_") and not n.startswith("_")}
    methods -= {"requires_grad_", "retain_grad"}  # autograd flags, not ops
    assert methods <= inplace, f"in-place methods no record declares: {sorted(methods - inplace)}"


def test_every_method_a_record_names_runs_that_record():
    """A generated method (`x.exp()`) records its own op's node: the record, not a neighbour's."""
    x = engine.tensor([0.5, 1.5], requires_grad=True)
    for op in OPS.values():
        if op.names is None or op.grad_fn is None:
            continue
        for name in op.names.methods:
            method = getattr(engine.Tensor, name)
            if method.__module__ == "engine.registry":
                assert type(method(x).grad_fn).__name__ == op.grad_fn, name


def _string_lists(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue
            value = node.value
            if isinstance(value, (ast.Tuple, ast.List, ast.Set)) and len(value.elts) >= 5 and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
                yield node.lineno, [e.value for e in value.elts]


def test_no_list_of_op_names_beside_the_records():
    """A tuple of names that are op methods, outside the records, is a second place knowledge of an op lives."""
    op_names = _declared_names()
    for path in sorted(ENGINE.rglob("*.py")):
        if path.relative_to(ENGINE).parts[0] in ("ops", "runner", "sandbox", "explain"):
            continue  # the records themselves, and the services beside the torch surface
        for line, values in _string_lists(ast.parse(path.read_text(encoding="utf-8"))):
            named = [v for v in values if v in op_names]
            assert len(named) < 3, f"{path.name}:{line} lists op names {named}: declare them on the records"


@contextlib.contextmanager
def _guard(guard):
    previous = state.update(size_guard=guard)
    try:
        yield
    finally:
        state.restore(previous, "size_guard")


@pytest.mark.parametrize("code, shape, work", [
    ("x.expand(4, 3, 5)", (4, 3, 5), 0),
    ("x.repeat(2, 1, 3)", (2, 3, 15), 0),
    ("x + y", (3, 5), 0),
    ("x.T @ y", (5, 5), 5 * 5 * 3),
    ("x.mm(y.T)", (3, 3), 3 * 3 * 5),
    ("torch.cat([x, y])", (6, 5), 0),
    ("torch.stack([x, y], -1)", (3, 5, 2), 0),
    ("torch.where(x[0] > 0, x, y)", (3, 5), 0),
])
def test_dispatch_shows_the_result_shape_to_the_size_guard_once(code, shape, work):
    """The guard sees the op's result before it is made: once, from the record's shape function."""
    x, y = engine.randn(3, 5), engine.randn(3, 5)
    seen = []
    with _guard(lambda s, w=0, itemsize=None: seen.append((tuple(s), w))):
        result = eval(code, {"torch": engine, "x": x, "y": y})
    assert seen[-1] == (shape, work) and tuple(result.shape) == shape
    assert seen.count((shape, work)) == 1, seen


def test_a_refused_size_allocates_nothing():
    """The guard runs before the forward: a refused expand/repeat/product never reaches numpy."""
    x = engine.randn(3, 5)

    def refuse(shape, work=0, itemsize=None):
        if np.prod(shape) > 100:
            raise MemoryError(f"refused {shape}")

    with _guard(refuse), pytest.raises(MemoryError, match=r"refused \(1000, 3, 5\)"):
        x.repeat(1000, 1, 1)


@pytest.mark.parametrize("code", ["torch.tensor([[0.0] * 3000] * 3000)", "torch.tensor([torch.ones(300, 30)] * 1000)",
                                  "torch.where([[True] * 3000] * 3000, torch.ones(1), torch.zeros(1))"])
def test_nested_data_is_vetted_before_it_is_converted(code):
    """Shared rows cost nothing to write and n² to convert: the guard sees the shape first."""
    def refuse(shape, work=0, itemsize=None):
        if np.prod(shape) > 10**6:
            raise MemoryError(f"refused {tuple(shape)}")

    with _guard(refuse), pytest.raises(MemoryError, match="refused"):
        eval(code, {"torch": engine})
