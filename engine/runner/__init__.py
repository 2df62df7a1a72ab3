"""The snippet runner: run untrusted PyTorch-style code on the engine, and nothing else.

    from engine.runner import run_snippet, Limits
    result = run_snippet("import torch\\nx = torch.ones(2, requires_grad=True)\\n(x * 3).sum().backward()")
    result.ok, result.stdout, result.error, result.namespace["x"].grad
    result.evaluate("x.grad * 2")

Two walls: `policy` refuses any syntax outside an allow-list before anything runs, and the guards
inserted by `rewrite` check every attribute, call, operator and size at run time.  See
docs/runner.md for what is allowed and the limits.
"""
from .errors import ResourceLimitExceeded, SnippetError, SnippetFailure, SnippetRejected
from .execute import RunResult, run_snippet
from .limits import Limits
from .policy import check_source

__all__ = [
    "Limits", "ResourceLimitExceeded", "RunResult", "SnippetError", "SnippetFailure", "SnippetRejected",
    "check_source", "run_snippet",
]
