"""Forward-mode AD (`torch.autograd.forward_ad`): the tangents the table's ops carry are J·t.

Checked three ways: on random programs against the engine's own reverse-mode Jacobian (J @ t) and against
PyTorch's forward AD; on every conformance sample (every public op, with its edge cases) against PyTorch's
forward AD where PyTorch supports the op; and on the examples of PyTorch's forward-mode AD tutorial.
"""
import contextlib
import io
import math
import warnings
import zlib

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from opinfo import OPS, T
from programs import build, programs, shapes

import engine

torch = pytest.importorskip("torch")
import torch.autograd.forward_ad as torch_fwad  # noqa: E402

fwad = engine.autograd.forward_ad


def tangent_of(lib, fw, program, xv, yv, tx, ty):
    with fw.dual_level():
        x = fw.make_dual(lib.tensor(xv), lib.tensor(tx))
        y = fw.make_dual(lib.tensor(yv), lib.tensor(ty))
        out = fw.unpack_dual(build(program, x, y))
    return out.primal.numpy(), None if out.tangent is None else out.tangent.numpy()


@settings(max_examples=120, deadline=None)
@given(programs, shapes, st.booleans(), st.integers(0, 2**32 - 1))
def test_tangent_is_jacobian_times_t_and_matches_torch(program, shape, broadcast_y, seed):
    rng = np.random.default_rng(seed)
    yshape = (1, shape[1]) if broadcast_y else shape
    xv, yv = rng.uniform(-1.5, 1.5, shape), rng.uniform(-1.5, 1.5, yshape)
    tx, ty = rng.standard_normal(shape), rng.standard_normal(yshape)
    primal, tangent = tangent_of(engine, fwad, program, xv, yv, tx, ty)
    assume(np.isfinite(primal).all() and np.abs(primal).max() < 1e6)
    jx, jy = engine.autograd.functional.jacobian(lambda a, b: build(program, a, b),
                                                 (engine.tensor(xv), engine.tensor(yv)))
    expected = (jx.numpy().reshape(primal.size, -1) @ tx.reshape(-1)
                + jy.numpy().reshape(primal.size, -1) @ ty.reshape(-1)).reshape(primal.shape)
    scale = max(1.0, np.abs(expected).max())
    np.testing.assert_allclose(tangent, expected, rtol=1e-9, atol=1e-9 * scale)
    _, torch_tangent = tangent_of(torch, torch_fwad, program, xv, yv, tx, ty)
    np.testing.assert_allclose(tangent, torch_tangent, rtol=1e-9, atol=1e-9 * scale)


# --- every conformance sample, its float inputs made dual ------------------------------------------------
CASES = [(name, i) for name in sorted(OPS) for i in range(len(OPS[name].samples))]
# Where f is not differentiable (ties of max/min, 0 ** y, nan, the mean of nothing) the engine's tangent is
# its reverse-mode J·t, and PyTorch's hand-written forward formula may differ; prod over zeros is refused in
# forward mode as in double backward (docs/api.md).
KINKS = {"max-11", "min-11", "maximum-10", "maximum-13", "minimum-10", "minimum-13", "__pow__-12", "__pow__-18",
         "pow-12", "mean-8", "mean-9", "nn.functional.mse_loss-7", "prod-5", "prod-6", "prod-7",
         "scatter-2", "atan2-11", "atan2-12", "atan2_-0", "nn.Embedding-0"}  # (scatter-2: PyTorch's reverse mode refuses a src
# larger than index, its forward mode not; atan2 at the origin: its reverse mode gives 0, its forward mode nan;
# nn.Embedding-0: PyTorch's forward mode gives the padding row a tangent, its reverse mode no gradient)
# function transforms detach their inputs here (the engine's transforms do not compose with dual tensors)
TRANSFORMS = ("func", "autograd.gradgradcheck")


def _run_dual(lib, fw, sample, arrays, tangents):
    """Run a sample with every float input a dual tensor; the primals and tangents of its tensor results."""
    env = {"torch": lib, "F": lib.nn.functional, "math": math, "inf": math.inf, "nan": math.nan}
    *body, last = sample.code.strip().split("\n")
    with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        try:
            with fw.dual_level():
                for key, value in arrays.items():
                    if not isinstance(sample.inputs[key], T) or key.startswith("np_"):
                        env[key] = value
                        continue
                    t = lib.from_numpy(value.copy()).reshape(value.shape)
                    env[key] = fw.make_dual(t, lib.from_numpy(tangents[key].copy()).reshape(value.shape)) \
                        if key in tangents else t
                exec("\n".join(body), env)
                result = eval(last, env) if not last.startswith((" ", "\t")) and "=" not in last else None
                found = _tensors(lib, result)
                pairs = [fw.unpack_dual(t) for t in found]
                return [(p.detach().numpy().copy(), None if d is None else d.detach().numpy().copy())
                        for p, d in pairs]
        except Exception as err:  # noqa: BLE001 - the error is what is compared
            return (type(err).__name__, str(err))


def _tensors(lib, value):
    if isinstance(value, lib.Tensor):
        return [value] if value.dtype.is_floating_point else []
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(lib, v)]
    return []


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_conformance_sample_tangents_match_torch(name, index):
    sample = OPS[name].samples[index]
    if "class " in sample.code or "backward" in sample.code or sample.error == "unsupported":
        pytest.skip("custom classes, backward passes and unsupported forms are not forward-mode samples")
    if f"{name}-{index}" in KINKS or name.startswith(TRANSFORMS):
        pytest.skip("a non-differentiable point or a function transform (see KINKS, TRANSFORMS)")
    rng = np.random.default_rng(zlib.crc32(f"{name}/{index}/{sample.code}".encode()))
    arrays = {key: spec.array(rng) if isinstance(spec, T) else spec for key, spec in sample.inputs.items()}
    tangents = {key: rng.standard_normal(np.shape(value)).astype(value.dtype) for key, value in arrays.items()
                if isinstance(value, np.ndarray) and value.dtype.kind == "f" and not key.startswith("np_")}
    expected = _run_dual(torch, torch_fwad, sample, arrays, tangents)
    if isinstance(expected, tuple) and expected[0] == "NotImplementedError":
        pytest.skip(f"PyTorch has no forward-mode formula here: {expected[1]}")
    actual = _run_dual(engine, fwad, sample, arrays, tangents)
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and actual[0] == expected[0], f"{sample!r}: torch {expected}, engine {actual}"
        return
    assert not isinstance(actual, tuple), f"{sample!r}: the engine raises {actual}, torch does not"
    assert len(actual) == len(expected)
    for (ep, et), (tp, tt) in zip(actual, expected):
        assert (et is None) == (tt is None), f"{sample!r}: tangent engine {et}, torch {tt}"
        if tt is not None:
            rtol = 1e-7 if tt.dtype == np.float64 else 2e-4  # formulas differ in order (pow: via log)
            finite = np.abs(tt[np.isfinite(tt)])
            scale = max(1.0, float(finite.max()) if finite.size else 1.0)
            np.testing.assert_allclose(et, tt, rtol=rtol, atol=rtol * scale, equal_nan=True, err_msg=repr(sample))


# --- the tutorial's examples and the API's rules ------------------------------------------------------------
def test_tutorial_basic_usage():
    rng = np.random.default_rng(0)
    primal, tangent = engine.tensor(rng.standard_normal((10, 10))), engine.tensor(rng.standard_normal((10, 10)))
    plain = engine.tensor(rng.standard_normal((10, 10)))
    with fwad.dual_level():
        dual_input = fwad.make_dual(primal, tangent)
        assert fwad.unpack_dual(dual_input).tangent is tangent
        transposed = tangent.T
        assert fwad.unpack_dual(fwad.make_dual(primal, transposed)).tangent is not transposed  # another layout
        dual_output = dual_input ** 2 + plain ** 2
        jvp = fwad.unpack_dual(dual_output).tangent
    np.testing.assert_allclose(jvp.numpy(), 2 * primal.numpy() * tangent.numpy(), rtol=1e-6)
    assert fwad.unpack_dual(dual_output).tangent is None  # dropped when the level exits
    assert "tangent" not in repr(dual_output)


def test_tutorial_modules_and_custom_function():
    model = engine.nn.Linear(5, 5)
    x = engine.randn(16, 5)
    params = dict(model.named_parameters())
    tangents = {name: engine.rand(*p.shape) for name, p in params.items()}
    with fwad.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwad.make_dual(p, tangents[name]))
        jvp = fwad.unpack_dual(model(x)).tangent
    expected = x.numpy() @ tangents["weight"].numpy().T + tangents["bias"].numpy()
    np.testing.assert_allclose(jvp.numpy(), expected, rtol=1e-5, atol=1e-6)

    class Exp(engine.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            ctx.result = foo.exp()
            return ctx.result

        @staticmethod
        def jvp(ctx, g):
            return g * ctx.result

    class NoJvp(engine.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            return foo * 2

    p, t = engine.tensor([0.5, -1.0]), engine.tensor([1.0, 2.0])
    with fwad.dual_level():
        np.testing.assert_allclose(fwad.unpack_dual(Exp.apply(fwad.make_dual(p, t))).tangent.numpy(),
                                   np.exp([0.5, -1.0]) * [1.0, 2.0], rtol=1e-6)
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            NoJvp.apply(fwad.make_dual(p, t))


def _script(lib, fw) -> list:
    """Misuses, nesting, printing and level exit, each line what the library printed or raised."""
    lines = []

    def attempt(fn):
        try:
            lines.append(repr(fn()))
        except Exception as err:  # noqa: BLE001
            lines.append(f"{type(err).__name__}: {err}")
    x, v = lib.tensor([1.0, 2.0]), lib.tensor([0.5, 1.0])
    attempt(lambda: fw.make_dual(x, v))
    attempt(lambda: fw.unpack_dual(x))
    attempt(lambda: fw.exit_dual_level())
    with fw.dual_level() as level:
        lines.append(level)
        d = fw.make_dual(x, v)
        attempt(lambda: fw.make_dual(x, lib.tensor([1.0, 2.0, 3.0])))
        attempt(lambda: fw.make_dual(x, lib.tensor([1, 2])))
        attempt(lambda: fw.make_dual(lib.tensor([1, 2]), v))
        attempt(lambda: fw.make_dual(d, v))
        attempt(lambda: fw.make_dual(x, v, level=3))
        attempt(lambda: fw.unpack_dual([1.0]))
        attempt(lambda: fw.enter_dual_level())
        attempt(lambda: d // 1)
        attempt(lambda: d * 2)
        attempt(lambda: (d * d).sum())
        attempt(lambda: fw.make_dual(lib.zeros(2, 3, dtype=lib.float64), lib.ones(2, 3, dtype=lib.float64)))
        attempt(lambda: fw.make_dual(lib.tensor([1.0, 2.0], requires_grad=True), v).grad_fn.name())
        with lib.no_grad():
            attempt(lambda: fw.unpack_dual(d.exp()))
        y = lib.zeros(2)
        y.add_(d)
        attempt(lambda: y)
        attempt(lambda: fw.unpack_dual(d.detach()))
        attempt(lambda: fw.unpack_dual(d.double()).tangent)
        z = d * 1
        z.zero_()
        attempt(lambda: fw.unpack_dual(z))
        attempt(lambda: fw.unpack_dual(z.detach_()))
    attempt(lambda: d)
    attempt(lambda: fw.unpack_dual(y))
    return lines


def test_errors_printing_and_levels_as_torch():
    assert _script(engine, fwad) == _script(torch, torch_fwad)
