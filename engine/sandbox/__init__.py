"""The OS layer of the snippet sandbox: every snippet runs in a forked, confined child process.

    from engine.sandbox import run_program, worker
    run = run_program("import torch\\nx = torch.ones(2, requires_grad=True)\\n(x * 3).sum().backward()",
                      expressions=["x.grad"])
    run.ok, run.stdout, run.error, run.values[0]["value"]      # plain data: numpy arrays, floats, str…
    run.evaluate("x.grad * 2")                                  # another child, same program

The language layer (`engine.runner`) still checks and guards the code inside the child; this layer
holds when that one has a hole: the child cannot open files, run programs, create processes or
sockets, or outlive its time (see `confine`, `zygote`, docs/runner.md). Only JSON crosses back.
"""
from engine.sandbox.client import (
                                   Confinement,
                                   SandboxError,
                                   SandboxRun,
                                   UnsupportedResult,
                                   decode_value,
                                   run_program,
                                   worker,
)

__all__ = ["Confinement", "SandboxError", "SandboxRun", "UnsupportedResult", "decode_value", "run_program",
           "worker"]
