"""OpInfo-style conformance: every sample of `opinfo.OPS` on the engine and on real PyTorch 2.13.

Compared: forward values (allclose, nan-equal), dtype, shape, `grad_fn` name, the gradients of every float
input for a random cotangent (with the sign of their zeros: a learner reads `-0.` where PyTorch prints `0.`),
and for inputs PyTorch rejects, the error type and message. A public name of the engine without an entry fails
`test_every_public_name_has_an_entry`.
"""
from __future__ import annotations

import contextlib
import io
import math
import re
import warnings
import zlib

import numpy as np
import pytest
from opinfo import OPS, T, public_names

import engine

torch = pytest.importorskip("torch", reason="the conformance suite compares the engine with real PyTorch")

_RTOL = None
CASES = [(name, i) for name in sorted(OPS) for i in range(len(OPS[name].samples))]


def test_every_public_name_has_an_entry():
    missing = sorted(public_names(engine) - set(OPS))
    assert not missing, f"public names without a conformance entry in tests/engine/opinfo.py: {missing}"


def test_every_entry_names_something_public():
    stale = sorted(set(OPS) - public_names(engine))
    assert not stale, f"entries for names the engine does not export: {stale}"


def _arrays(name: str, index: int, sample) -> dict:
    rng = np.random.default_rng(zlib.crc32(f"{name}/{index}/{sample.code}".encode()))
    return {key: spec.array(rng) if isinstance(spec, T) else spec for key, spec in sample.inputs.items()}


def _run(lib, sample, arrays: dict, cotangent_seed: int, create_graph: bool = False) -> dict:
    """Run one sample on `lib`: the result (or error), then a backward with a random cotangent (with
    `create_graph`, each gradient's first nodes are recorded too: `_first`)."""
    env = {"torch": lib, "F": lib.nn.functional, "math": math, "inf": math.inf, "nan": math.nan}
    leaves = {}
    for key, value in arrays.items():
        spec = sample.inputs[key]
        if key.startswith("np_") or not isinstance(spec, T):
            env[key] = value.copy() if isinstance(value, np.ndarray) else value
            continue
        t = lib.from_numpy(value.copy())
        if value.ndim == 0:
            t = t.reshape(())
        if spec.requires_grad and value.dtype.kind == "f":
            t.requires_grad_()
            leaves[key] = t
        env[key] = t
    *body, last = sample.code.strip().split("\n")
    record: dict = {}
    with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        try:
            if last.startswith((" ", "\t")) or re.match(r"^\w[\w.\[\], ]*\s*([-+*/%]|//)?=[^=]", last):
                exec(sample.code, env)
                result = None
            else:
                exec("\n".join(body), env)
                result = eval(last, env)
        except Exception as err:  # noqa: BLE001 - the error is what is compared
            return {"error": (type(err).__name__, str(err))}
        record["result"] = _describe(lib, result, sample.values)
        outputs = [t for t in _tensors(lib, result) if t.requires_grad and t.is_floating_point()]
        if outputs and leaves:
            rng = np.random.default_rng(cotangent_seed)
            try:
                for out in outputs[:1]:
                    cotangent = rng.standard_normal(tuple(out.shape)).astype(str(out.dtype).split(".")[1])
                    out.backward(lib.from_numpy(cotangent), create_graph=create_graph)
                record["grads"] = {key: _describe(lib, t.grad, True) for key, t in leaves.items()}
                if create_graph:
                    record["first"] = {key: _first(t.grad.grad_fn if t.grad is not None else None)
                                       for key, t in leaves.items()}
            except Exception as err:  # noqa: BLE001
                record["backward_error"] = (type(err).__name__, str(err))
    return record


def _first(node, depth: int = 3):
    """The first `depth` levels of a gradient's graph by name: `x.grad.grad_fn`, the nodes of its `next_functions`,
    theirs (a backward's x.grad is CopyBackwards first; the rule's own nodes come next)."""
    if node is None or depth == 0:
        return None if node is None else type(node).__name__
    return type(node).__name__, [_first(p, depth - 1) for p, _ in node.next_functions]


def _tensors(lib, value) -> list:
    if isinstance(value, lib.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(lib, v)]
    return []


def _describe(lib, value, values: bool):
    """A library-neutral description of a result, compared with `_same`."""
    if isinstance(value, lib.Tensor):
        node = value.grad_fn
        data = value.detach().numpy() if value.dtype is not lib.float16 else value.detach().float().numpy()
        return {"tensor": data.copy() if values else None, "dtype": str(value.dtype), "shape": tuple(value.shape),
                "requires_grad": value.requires_grad, "grad_fn": None if node is None else node.name()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, [_describe(lib, v, values) for v in value])
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [_describe(lib, v, values) for v in value])
    if isinstance(value, np.ndarray):
        return {"array": value.copy(), "dtype": str(value.dtype)}
    if isinstance(value, (bool, int, float, str, type(None))):
        return (type(value).__name__, value)
    return ("repr", re.sub(r" at 0x[0-9a-f]+", "", repr(value)))


def _same(e, t, path="result", signed_zeros=False):
    if isinstance(t, dict) and "tensor" in t:
        assert isinstance(e, dict) and "tensor" in e, f"{path}: engine gave {e}, torch a tensor"
        for key in ("dtype", "shape", "requires_grad", "grad_fn"):
            assert e[key] == t[key], f"{path}.{key}: engine {e[key]!r} != torch {t[key]!r}"
        if t["tensor"] is not None:
            _close(e["tensor"], t["tensor"], path, signed_zeros)
    elif isinstance(t, dict) and "array" in t:
        assert e["dtype"] == t["dtype"], f"{path}.dtype: {e['dtype']} != {t['dtype']}"
        _close(e["array"], t["array"], path)
    elif isinstance(t, tuple) and len(t) == 2 and isinstance(t[1], list):
        assert e[0] == t[0] and len(e[1]) == len(t[1]), f"{path}: engine {e} != torch {t}"
        for i, (a, b) in enumerate(zip(e[1], t[1])):
            _same(a, b, f"{path}[{i}]")
    elif isinstance(t, tuple) and t[0] == "float":
        assert e[0] == "float" and (math.isclose(e[1], t[1], rel_tol=1e-5, abs_tol=1e-6)
                                    or (math.isnan(e[1]) and math.isnan(t[1]))), f"{path}: {e} != {t}"
    else:
        assert e == t, f"{path}: engine {e!r} != torch {t!r}"


def _close(e: np.ndarray, t: np.ndarray, path: str, signed_zeros: bool = False) -> None:
    """Close as PyTorch's numbers; with `signed_zeros`, a zero also has PyTorch's sign (a learner sees `-0.`)."""
    assert e.shape == t.shape, f"{path}: shape {e.shape} != {t.shape}"
    if signed_zeros and t.dtype.kind == "f":
        zeros = (e == 0) & (t == 0)
        differ = zeros & (np.signbit(e) != np.signbit(t))
        assert not differ.any(), f"{path}: zeros signed differently: engine {e[differ]}, torch {t[differ]}"
    if t.dtype.kind in "fc":
        rtol = _RTOL or (1e-9 if t.dtype == np.float64 else 2e-5)  # float32 inputs: float32's precision
        finite = np.abs(t[np.isfinite(t)])
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        np.testing.assert_allclose(e, t, rtol=rtol, atol=rtol * scale, equal_nan=True, err_msg=path)
    else:
        np.testing.assert_array_equal(e, t, err_msg=path)


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_sample_matches_torch(name, index):
    info = OPS[name]
    sample = info.samples[index]
    arrays = _arrays(name, index, sample)
    seed = zlib.crc32(sample.code.encode())
    expected = _run(torch, sample, arrays, seed)
    actual = _run(engine, sample, arrays, seed)
    if sample.error == "unsupported":
        assert actual.get("error", ("",))[0] == "NotImplementedError", f"{sample!r}: {actual}"
        return
    global _RTOL
    _RTOL = 2e-5 if any(a.dtype.kind == "f" and a.dtype != np.float64 for a in arrays.values()
                        if isinstance(a, np.ndarray)) else None
    if "error" in expected:
        assert "error" in actual, f"{sample!r}: torch raises {expected['error']}, the engine gave {actual}"
        if sample.error == "type":
            assert actual["error"][0] == expected["error"][0], f"{sample!r}: {actual['error']} != {expected['error']}"
        else:
            assert actual["error"] == expected["error"], f"{sample!r}"
        return
    assert "error" not in actual, f"{sample!r}: the engine raises {actual['error']}, torch does not"
    _same(actual["result"], expected["result"])
    if info.skip_grad:
        return
    if "backward_error" in expected or "backward_error" in actual:
        assert actual.get("backward_error") == expected.get("backward_error"), f"{sample!r}"
        return
    assert ("grads" in actual) == ("grads" in expected), f"{sample!r}: backward ran on one library only"
    for key, grad in expected.get("grads", {}).items():
        _same(actual["grads"][key], grad, f"{key}.grad", signed_zeros=True)



DOUBLE = [(name, i) for name, i in CASES if not OPS[name].skip_grad and OPS[name].samples[i].error != "unsupported"]


@pytest.mark.parametrize("name,index", DOUBLE, ids=[f"{n}-{i}" for n, i in DOUBLE])
def test_double_backward_graph_matches_torch(name, index):
    """backward(create_graph=True) records the gradient's own graph: its first three levels are PyTorch's nodes,
    by name (pow's rule multiplies by its exponent, a Scalar: MulBackward1, not the MulBackward0 of
    `x * 3`). The samples `opinfo.DOUBLE_DIFFERS` lists must still differ, so that list stays exact."""
    sample = OPS[name].samples[index]
    arrays = _arrays(name, index, sample)
    seed = zlib.crc32(sample.code.encode())
    expected = _run(torch, sample, arrays, seed, create_graph=True)
    actual = _run(engine, sample, arrays, seed, create_graph=True)
    if "first" not in expected:
        return
    if index in OPS[name].double_differs:
        assert actual.get("first") != expected["first"], f"{sample!r} now matches: remove it from DOUBLE_DIFFERS"
    else:
        assert actual.get("first") == expected["first"], f"{sample!r}"
