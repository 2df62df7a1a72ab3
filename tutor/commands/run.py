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
        report["tensors"] = {name: tensor_report(t) for name, t in tensors.items()}
        click.echo(json.dumps(report, ensure_ascii=False))
    else:
        click.echo(stdout, nl=False)
        _print_tensors(tensors)
        if error is not None:
            click.echo(str(error), err=True)
    sys.exit(0 if ok else 1)


def tensor_report(t: object) -> dict[str, object]:
    """The JSON description of one tensor: shape, data, dtype, flags, grad and grad_fn name."""
    grad = _grad(t)
    return {
        "shape": list(t.shape),
        "data": _jsonable(t.tolist()),
        "dtype": str(t.dtype),
        "requires_grad": bool(t.requires_grad),
        "is_leaf": bool(t.is_leaf),
        "grad": None if grad is None else _jsonable(grad.tolist()),
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
    for name, t in tensors.items():
        grad_fn = None if t.grad_fn is None else t.grad_fn.name()
        click.echo(f"{name} = " + repr(t).replace("\n", "\n" + " " * (len(name) + 3)))
        click.echo(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  grad_fn={grad_fn}")
        grad = _grad(t)
        click.echo("    grad=" + ("None" if grad is None else repr(grad).replace("\n", "\n         ")))
