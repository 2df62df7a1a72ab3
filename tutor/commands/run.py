"""`autograd-tutor run FILE [--json]`: run a snippet file on the engine and show what happened.

Human output: what the snippet printed, then every top-level tensor with its value, requires_grad,
is_leaf, grad_fn and grad.  `--json`: exactly one JSON object on stdout (schema in docs/runner.md).
Exit status 0 when the snippet ran, 1 when it failed or was refused, 2 for a usage error.
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from tutor.commands import top_level
from tutor.commands.snippet_file import read_snippet
from tutor.commands.trust import require_confinement, trust_option
from tutor.i18n import t
from tutor.untrusted import echo, json_dumps


@click.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the human report.")
@trust_option
@click.pass_context
def command(ctx: click.Context, file: Path, as_json: bool, trust_lessons: bool) -> None:
    """Run a PyTorch-style snippet FILE safely on the tutor's engine."""
    from engine.runner import Limits, SnippetError
    from engine.runner.errors import reason
    from engine.sandbox import run_program

    lang = top_level.language(ctx)
    require_confinement("run", trust_lessons, profile="run", lang=lang)
    max_chars = Limits().max_source
    source = read_snippet(file, max_chars, "run", lang)
    if source is None:  # (the JSON report's message stays English, like every field of it)
        error = SnippetError.of("SnippetRejected", reason("file_too_large", limit=max_chars), 1, 1)
        ok, stdout, stderr, tensors = False, "", "", {}
    else:
        result = run_program(source, filename=str(file), report=True, profile="run")
        ok, stdout, stderr, error, tensors = result.ok, result.stdout, result.stderr, result.error, result.tensors
    if as_json:
        report: dict[str, object] = {"ok": ok, "stdout": stdout, "stderr": stderr}
        if error is not None:
            report["error"] = error.to_json()
        report["tensors"] = {name: _json_entry(entry) for name, entry in tensors.items()}
        echo(json_dumps(report))
    else:
        echo(stdout, nl=False)
        echo(stderr, err=True, nl=False)  # the warnings, where PyTorch writes them
        _print_tensors(tensors, lang)
        if error is not None:
            echo(error.said(lang), err=True)
    sys.exit(0 if ok else 1)


def _json_entry(entry: dict) -> dict:
    """The documented JSON fields of one tensor (the human-report fields stay out)."""
    return {key: value for key, value in entry.items() if key not in ("repr", "grad_repr")}


def _print_tensors(tensors: dict[str, dict], lang: str) -> None:
    if tensors:
        echo(f"── {t('run_tensors', lang)} " + "─" * 40, dim=True)
    for name, entry in tensors.items():
        if "same_as" in entry:
            echo(f"{name} = {entry['same_as']}  {t('run_same_tensor', lang)}")
            continue
        if "error" in entry:
            echo(f"{name}: {entry['error']}")
            continue
        echo(f"{name} = " + entry["repr"].replace("\n", "\n" + " " * (len(name) + 3)))
        echo(f"    requires_grad={entry['requires_grad']}  is_leaf={entry['is_leaf']}  grad_fn={entry['grad_fn']}")
        grad = entry["grad_repr"]
        echo("    grad=" + ("None" if grad is None else grad.replace("\n", "\n         ")))
