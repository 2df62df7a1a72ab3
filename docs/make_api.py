"""Write docs/api.md: the torch API this engine provides, read from the engine itself.

Run: python docs/make_api.py   (tests/engine/test_api_doc.py fails when the file is stale)
"""
from __future__ import annotations

import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.tensor import Tensor  # noqa: E402

NOT_SUPPORTED = [
    "`torch.func.vmap` runs the function once per slice and stacks the results (PyTorch runs each op once on a "
    "batched tensor): the numbers, in_dims/out_dims and vmap's errors are PyTorch's, but an output that requires "
    "grad has `StackBackward0` for its `grad_fn` where PyTorch names the last batched op, a zero may print with "
    "another sign (`-0.`), and `.item()` inside vmap is not refused.",
    "forward-mode AD (`torch.autograd.forward_ad`): tangents are computed per op from the reverse rules by the "
    "double-VJP trick; they carry no graph of their own (PyTorch's tangents of primals that require grad have a "
    "`grad_fn` and can be differentiated: forward-over-reverse), at non-differentiable points (ties of max/min, "
    "`0 ** y`, nan) a tangent is the reverse-mode J·t where PyTorch's forward formula may differ, `prod` over "
    "zeros and ops PyTorch has no forward formula for raise `NotImplementedError`, `torch.func` transforms do not "
    "see dual tensors' tangents, and `gradcheck(check_forward_ad=True)` is not checked.",
    "`ctx.mark_dirty` of a view that requires grad (PyTorch rebases its base as well): `NotImplementedError`.",
    "`nn.Linear` initial weights come from the engine's own random stream, not PyTorch's: set them with "
    "`with torch.no_grad(): layer.weight.copy_(...)` to compare numbers; a matmul of a 3-D or larger tensor (and "
    "so `nn.Linear` without bias on such input) records one `UnsafeViewBackward0` where PyTorch records "
    "`UnsafeViewBackward0`, `MmBackward0` and `ViewBackward0`.",
    "the double backward of `prod` over a tensor containing zeros (`NotImplementedError`); other ops give "
    "derivatives of any order from the same table.",
    "a `class` statement in snippets (custom Functions and Modules run in the engine, not yet through the "
    "snippet runner, which refuses classes).",
    "devices other than the CPU: `device='cuda'` raises; `device='cpu'` and `torch.device('cpu')` are accepted.",
    "`rand`, `randn`, `randint`, `randperm` draw from the engine's own stream: `manual_seed` makes them "
    "reproducible, but not equal to PyTorch's numbers.",
    "`norm(p='nuc')` and other matrix norms (`NotImplementedError` naming the form); vector norms for any p, "
    "and `'fro'`, are provided.",
    "loss options `weight`, `pos_weight`, `label_smoothing` and the deprecated `size_average`/`reduce` "
    "(`NotImplementedError` naming the option); `reduction='mean'|'sum'|'none'` is provided.",
    "in-place writes through a view of a non-leaf tensor that requires grad (`y[0].mul_(2)` where `y = x * 1`) "
    "do not reach the base tensor; without grad (plain tensors, `torch.no_grad()`) views share memory as in "
    "PyTorch.",
    "complex dtypes, sparse tensors, named tensors, `out=` arguments.",
]


def signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def summary(obj) -> str:
    # a class's own docstring only: inherited, nn.MSELoss would read as Module's "base class of every layer"
    doc = inspect.cleandoc(vars(obj).get("__doc__") or "") if inspect.isclass(obj) else inspect.getdoc(obj) or ""
    first = doc.split("\n\n")[0].replace("\n", " ").strip()
    return first.replace("|", "\\|")


def describe_name(name: str):
    value = getattr(engine, name)
    if inspect.ismodule(value):
        return "module", "", f"`torch.{name}`: " + ", ".join(f"`{n}`" for n in sorted(getattr(value, "__all__", ())))
    if isinstance(value, engine.dtype):
        return "dtype", "", f"`{value!r}`"
    if inspect.isclass(value):
        return "class", signature(value), summary(value)
    if callable(value):
        method = getattr(Tensor, name, None)
        if getattr(value, "__doc__", "") and "the same as `input." in (value.__doc__ or "") and method is not None:
            params = list(inspect.signature(method).parameters.values())
            params[0] = params[0].replace(name="input")
            return "function", str(inspect.Signature(params)), f"the same as `input.{name}(...)`"
        return "function", signature(value), summary(value)
    return "value", "", repr(value)


def tensor_members():
    rows = []
    for name, member in sorted(vars(Tensor).items()):
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        if name.startswith("__") and name in ("__init__", "__slots__", "__module__", "__doc__", "__weakref__",
                                               "__array_priority__", "__hash__", "__qualname__", "__firstlineno__",
                                               "__static_attributes__"):
            continue
        if isinstance(member, property):
            rows.append((name, "attribute", "", summary(member)))
        elif callable(member):
            rows.append((name, "method", signature(member), summary(member)))
    return rows


def render() -> str:
    lines = ["# The torch API of this engine", "",
             "Generated by `python docs/make_api.py` from the engine itself; "
             "`tests/engine/test_api_doc.py` fails when it is stale. Every name here is checked against "
             "PyTorch 2.13 by the conformance suite (`tests/engine/opinfo.py`, `tests/engine/test_conformance.py`): "
             "values, dtypes, shapes, `grad_fn` names, gradients and error messages.", "",
             "## `torch`", "", "| name | kind | signature | notes |", "|---|---|---|---|"]
    for name in sorted(engine.__all__, key=str.lower):
        kind, sig, note = describe_name(name)
        lines.append(f"| `{name}` | {kind} | `{sig}` | {note} |" if sig else f"| `{name}` | {kind} | | {note} |")
    for module, prefix in ((engine.nn.functional, "torch.nn.functional"), (engine.autograd, "torch.autograd"),
                           (engine.autograd.functional, "torch.autograd.functional"), (engine.func, "torch.func"),
                           (engine.nn, "torch.nn"), (engine.optim, "torch.optim")):
        lines += ["", f"## `{prefix}`", "", "| name | signature | notes |", "|---|---|---|"]
        for name in sorted(getattr(module, "__all__", None) or vars(module)):
            value = getattr(module, name)
            if callable(value):
                lines.append(f"| `{name}` | `{signature(value)}` | {summary(value)} |")
            else:
                names = getattr(value, "__all__", None) or vars(value)  # a module lists its public API only
                lines.append(f"| `{name}` | | " + ", ".join(f"`{n}`" for n in sorted(names)) + " |")
    lines += ["", "## `torch.Tensor`", "", "| name | kind | signature | notes |", "|---|---|---|---|"]
    for name, kind, sig, note in tensor_members():
        lines.append(f"| `{name}` | {kind} | `{sig}` | {note} |" if sig else f"| `{name}` | {kind} | | {note} |")
    lines += ["", "## Not supported", ""] + [f"- {item}" for item in NOT_SUPPORTED] + [""]
    return "\n".join(lines)


if __name__ == "__main__":
    (ROOT / "docs" / "api.md").write_text(render(), encoding="utf-8")
    print("wrote docs/api.md")
