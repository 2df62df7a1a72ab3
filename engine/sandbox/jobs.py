"""What the confined child can be asked to do, and the plain data it answers with.

Each job takes JSON-able keyword arguments and returns a JSON-able dict; nothing else crosses the
pipe (no pickles, no live objects). The jobs wrap the language layer (`engine.runner`) and the
explanation layer (`engine.explain`), which run here, inside the child, on the snippet's values.
"""
from __future__ import annotations

import warnings
from numbers import Number

import numpy as np

from engine.explain.model import plain  # NaN and ±inf as "nan", "inf", "-inf": JSON has none (no sympy)
from engine.runner import run_snippet
from engine.runner.errors import SnippetFailure
from engine.runner.surface import is_tensor

MAX_REPORT_ELEMENTS = 10**6   # numbers in one `run` report (the rest are summarised by shape)


def run(source: str, filename: str = "<snippet>", expressions: list[str] = (), report: bool = False) -> dict:
    """Run `source`; evaluate `expressions` in what it leaves; optionally report its top-level tensors."""
    result = run_snippet(source, filename=filename)
    out: dict[str, object] = {"ok": result.ok, "stdout": result.stdout, "stderr": result.stderr,
                              "error": _error(result.error)}
    if expressions:
        out["values"] = [_evaluate(result, expression) for expression in expressions]
    if report:
        out["tensors"] = tensor_report(result.namespace)
    return out


def explain(source: str, symbolic: bool = False, timeout: float = 2.0, want: tuple[str, ...] = ("panels",),
            lang: str = "en", width: int = 100, expressions: list[str] = ()) -> dict:
    """The explanation of every backward call `source` makes: rendered panels and/or its JSON form.

    `lang` ("en" or "ja") and `width` (the cells a panel is shown in) are chosen by the caller: the
    panels are rendered here, in the child, so they are laid out for that width in that language.
    `expressions` are evaluated in what the program leaves (a lesson step's answer)."""
    from engine.explain import explain_program, explain_symbolic, render
    from engine.explain.messages import LANGUAGES
    from engine.sandbox.renderables import to_data

    lang = lang if lang in LANGUAGES else "en"
    width = max(40, min(int(width), 400))
    explanation = explain_program(source)
    out: dict[str, object] = {"ok": explanation.ok, "error": _error(explanation.error), "stdout": explanation.stdout,
                              "calls": len(explanation.calls)}
    if expressions and explanation.run is not None:
        out["values"] = [_evaluate(explanation.run, expression) for expression in expressions]
    sym = {call.index: explain_symbolic(call, timeout=timeout) for call in explanation.calls} if symbolic else {}
    count = len(explanation.calls)
    if "json" in want:
        out["json"] = explanation.to_json(sym)
    if "panels" in want:
        out["panels"] = [{
            "index": call.index,
            "line": call.line,
            "summary": to_data(render.render_summary(call, lang=lang, width=width)),
            "jacobian": to_data(render.render_jacobian(call, sym.get(call.index), lang=lang, width=width)),
            "vjp": to_data(render.render_vjp(call, sym.get(call.index), lang=lang, width=width)),
            "chain": to_data(render.render_chain(call, sym.get(call.index), lang=lang, width=width)),
            "graph": to_data(render.render_graph(call, lang=lang, width=width)),
            "fd": to_data(render.render_fd_check(call, lang=lang, width=width)),
            # the app's stepper names the backward call above each step (tutor.widgets.backprop_stepper)
            "trace": [to_data(step) for step in render.render_steps(call, lang=lang, width=width - 4)],
            "forward": call.forward is not None,   # J·t, not vᵀJ: the app labels its tabs so
        } for call in explanation.calls]
    if "report" in want:
        out["report"] = [to_data(render.render_call(call, sym.get(call.index), lang=lang, width=width, calls=count))
                         for call in explanation.calls]
    return out


def beliefs(source: str, expression: str, ids: list[str] | None = None, extra: list | None = None) -> dict:
    """What `expression` is after `source` when run as each misconception believes (`engine.explain.beliefs`):
    {"answers": {id: [value, …]}}, the id "" holding the correct value (lists empty where nothing applies).
    `extra`: [id, expression] pairs, an author's buggy answers, evaluated after the correct run."""
    from engine.explain.beliefs import IDS, believed_answers

    wanted = tuple(i for i in (ids or IDS) if i in IDS)
    answers = believed_answers(source, expression, wanted,
                               extra=[(str(key), str(answer)) for key, answer in (extra or ()) if key in wanted])
    return {"answers": {key: [encode_value(v) for v in values] for key, values in answers.items()}}


JOBS = {"run": run, "explain": explain, "beliefs": beliefs}


# --- plain data ---------------------------------------------------------------------------------

def _error(error) -> dict | None:
    return None if error is None else error.to_json()


def _evaluate(result, expression: str) -> dict:
    try:
        return {"value": encode_value(result.evaluate(expression))}
    except SnippetFailure as failure:
        return {"error": failure.error.to_json()}


def encode_value(value: object) -> dict:
    """A value a program computed, as tagged plain data (`client.decode_value` reads it back)."""
    if value is None:
        return {"kind": "none"}
    if isinstance(value, (bool, np.bool_)):
        return {"kind": "bool", "value": bool(value)}
    if isinstance(value, Number) and not isinstance(value, complex):
        return {"kind": "number", "value": plain(float(value))}
    if isinstance(value, str):
        return {"kind": "text", "value": value}
    type_name = type(value).__name__
    if type_name in ("Size", "dtype", "device"):
        return {"kind": "text", "value": str(value)}
    if is_tensor(value):
        array = value.detach().numpy()
    elif isinstance(value, (np.ndarray, list, tuple)):
        try:
            array = np.array(value)  # `(x.requires_grad, y.is_leaf)` stays bools; any number makes it numbers
            if array.dtype.kind != "b":
                array = np.array(value, dtype=np.float64)
        except (TypeError, ValueError):
            return {"kind": "unsupported", "type": type_name}
    else:
        return {"kind": "unsupported", "type": type_name}
    if array.dtype.kind not in "biuf":
        return {"kind": "unsupported", "type": type_name}
    return {"kind": "tensor", "dtype": array.dtype.name, "shape": list(array.shape), "data": plain(array.tolist())}


def tensor_report(namespace: dict) -> dict:
    """The top-level tensors for `autograd-tutor run`: JSON data and the human report lines.

    One entry per name, but a tensor bound to several names is described once (later names say
    `same_as`), the numbers of all tensors together are bounded by MAX_REPORT_ELEMENTS (past it:
    `omitted`), and a value that cannot be reported says so instead of failing the report.
    """
    seen: dict[int, str] = {}
    budget = MAX_REPORT_ELEMENTS
    report = {}
    for name, value in namespace.items():
        if not is_tensor(value):
            continue
        if id(value) in seen:
            report[name] = {"same_as": seen[id(value)]}
            continue
        seen[id(value)] = name
        try:
            grad = _grad(value)
            size = value.numel() + (0 if grad is None else grad.numel())
            full = size <= budget
            budget -= size if full else 0
            report[name] = {
                "shape": list(value.shape),
                "data": plain(value.tolist()) if full else None,
                "dtype": str(value.dtype),
                "requires_grad": bool(value.requires_grad),
                "is_leaf": bool(value.is_leaf),
                "grad": None if grad is None or not full else plain(grad.tolist()),
                "grad_fn": None if value.grad_fn is None else value.grad_fn.name(),
                "repr": repr(value) if full else f"<tensor of shape {list(value.shape)}: too large to show>",
                "grad_repr": None if grad is None else (repr(grad) if full else "<too large to show>"),
            }
            if not full:
                report[name]["omitted"] = "data too large to report"
        except Exception as error:  # noqa: BLE001 - an odd value must not make the whole report fail
            report[name] = {"error": f"this value cannot be reported ({type(error).__name__})"}
    return report


def _grad(t: object) -> object:
    with warnings.catch_warnings():  # reading .grad of a non-leaf warns, as in PyTorch
        warnings.simplefilter("ignore")
        return t.grad
