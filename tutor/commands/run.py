"""`autograd-tutor run FILE [--json]`: run a snippet file on the engine and show what happened.

Human output: what the snippet printed, then every top-level tensor with its value, requires_grad,
is_leaf, grad_fn and grad.  `--json`: exactly one JSON object on stdout (schema in docs/runner.md).
Exit status 0 when the snippet ran, 1 when it failed or was refused, 2 for a usage error.
"""
from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import click

from tutor.commands.snippet_file import read_snippet


@click.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the human report.")
def command(file: Path, as_json: bool) -> None:
    """Run a PyTorch-style snippet FILE safely on the tutor's engine."""
    from engine.runner import Limits, SnippetError, run_snippet
    from engine.runner.surface import is_tensor

    max_chars = Limits().max_source
    source = read_snippet(file, max_chars, "run")
    if source is None:
        error = SnippetError("SnippetRejected", f"the file is larger than the limit of {max_chars} characters", 1, 1)
        ok, stdout, tensors = False, "", {}
    else:
        result = run_snippet(source, filename=str(file))
        ok, stdout, error = result.ok, result.stdout, result.error
        tensors = {name: value for name, value in result.namespace.items() if is_tensor(value)}
    if as_json:
        report: dict[str, object] = {"ok": ok, "stdout": stdout}
        if error is not None:
            report["error"] = error.to_json()
        report["tensors"] = _tensor_reports(tensors)
        click.echo(json.dumps(report, ensure_ascii=False))
    else:
        click.echo(stdout, nl=False)
        _print_tensors(tensors)
        if error is not None:
            click.echo(str(error), err=True)
    sys.exit(0 if ok else 1)


_REPORT_ELEMENTS = 10**6  # numbers in all the tensors' data and grads of one report together


def _aliases(tensors: dict[str, object]) -> dict[str, str]:
    """name -> the first name bound to the same tensor, for every later name (`y = x` is one tensor)."""
    first: dict[int, str] = {}
    aliases = {}
    for name, t in tensors.items():
        if first.setdefault(id(t), name) != name:
            aliases[name] = first[id(t)]
    return aliases


def _tensor_reports(tensors: dict[str, object]) -> dict[str, object]:
    """One report per distinct tensor (aliases say `same_as`), the data of all of them bounded together;
    a value that cannot be reported says so instead of failing the whole report."""
    aliases, budget, reports = _aliases(tensors), _REPORT_ELEMENTS, {}
    for name, t in tensors.items():
        if name in aliases:
            reports[name] = {"same_as": aliases[name]}
            continue
        try:
            grad = _grad(t)
            size = t.numel() + (0 if grad is None else grad.numel())
            if size > budget:
                reports[name] = {**tensor_report(t, data=False), "omitted": "data too large to report"}
            else:
                budget -= size
                reports[name] = tensor_report(t)
        except Exception as exc:  # noqa: BLE001 - an odd value must not make the report raise
            reports[name] = {"error": f"this value cannot be reported ({type(exc).__name__})"}
    return reports


def tensor_report(t: object, data: bool = True) -> dict[str, object]:
    """The JSON description of one tensor: shape, data, dtype, flags, grad and grad_fn name."""
    grad = _grad(t)
    return {
        "shape": list(t.shape),
        "data": _jsonable(t.tolist()) if data else None,
        "dtype": str(t.dtype),
        "requires_grad": bool(t.requires_grad),
        "is_leaf": bool(t.is_leaf),
        "grad": None if grad is None or not data else _jsonable(grad.tolist()),
        "grad_fn": None if t.grad_fn is None else t.grad_fn.name(),
    }


def _grad(t: object) -> object:
    with warnings.catch_warnings():  # reading .grad of a non-leaf warns, as in PyTorch
        warnings.simplefilter("ignore")
        return t.grad


def _jsonable(data: object) -> object:
    """Nested lists with NaN and infinities as the strings "nan", "inf", "-inf" (JSON has none)."""
    if isinstance(data, list):
        return [_jsonable(item) for item in data]
    if isinstance(data, float) and not math.isfinite(data):
        return "nan" if math.isnan(data) else ("inf" if data > 0 else "-inf")
    return data


def _print_tensors(tensors: dict[str, object]) -> None:
    if tensors:
        click.echo(click.style("── tensors " + "─" * 40, dim=True))
    aliases = _aliases(tensors)
    for name, t in tensors.items():
        if name in aliases:
            click.echo(f"{name} = {aliases[name]}  (the same tensor)")
            continue
        try:
            _print_tensor(name, t)
        except Exception as exc:  # noqa: BLE001 - an odd value must not make the report raise
            click.echo(f"{name}: this value cannot be reported ({type(exc).__name__})")


def _print_tensor(name: str, t: object) -> None:
    grad_fn = None if t.grad_fn is None else t.grad_fn.name()
    click.echo(f"{name} = " + repr(t).replace("\n", "\n" + " " * (len(name) + 3)))
    click.echo(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  grad_fn={grad_fn}")
    grad = _grad(t)
    click.echo("    grad=" + ("None" if grad is None else repr(grad).replace("\n", "\n         ")))
