"""Lesson programs run with real PyTorch (`check --against-torch`), in the same confined children.

The zygote's "torch" profile imports the real `torch` and exercises it before it forks, so a child
never needs a file: it confines itself exactly as for the engine's jobs (rlimits, Landlock, the
seccomp allow-list) and only then runs the program. There is no language layer here — PyTorch's own
surface is the point (`torch.serialization.os` included) — so the OS layer is the whole wall: a
lesson that reaches `os.system` on real torch runs nothing and writes nothing.
"""
from __future__ import annotations

import contextlib
import importlib

import torch

from engine.sandbox.jobs import encode_value

MAX_MESSAGE = 2000   # characters of an error message sent back

# Modules PyTorch imports lazily on paths lesson programs take (found by running the bundled course
# with real torch and comparing `sys.modules`): a confined child could not open their files.
LAZY_MODULES = (
    "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.optim", "torch.autograd.functional",
    "torch.autograd.forward_ad", "torch.autograd.gradcheck", "torch.func", "torch.testing",
    "torch.utils.data", "torch.utils.hooks", "torch.nn.utils", "torch.nn.modules.loss",
    "torch._decomp.decompositions_for_jvp",
)

WARM_UP = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]], requires_grad=True)
w = torch.eye(3, requires_grad=True)
y = (F.softmax(x @ w, dim=1) * x.exp() + x.relu() ** 2 - x.abs().clamp(0, 1) / 3).sum() * x.mean()
z = torch.log(torch.sigmoid(x).tanh() + 1).sum(0)
y.backward(retain_graph=True)
z.backward(torch.ones(3))
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
loss = F.mse_loss(model(x.detach()), torch.zeros(2, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
optimizer.zero_grad()
loss.backward()
optimizer.step()
J = torch.autograd.functional.jacobian(lambda t: t.sin() * 2, torch.ones(3))
g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
import torch.autograd.forward_ad as fwAD
with fwAD.dual_level():
    tangent = fwAD.unpack_dual(fwAD.make_dual(torch.ones(3), torch.ones(3)).sin()).tangent
from torch.func import grad, hessian, jacfwd, jacrev, vmap
f = lambda t: (t.sin() * t).sum()
H = hessian(f)(torch.ones(2)) + jacrev(jacfwd(f))(torch.ones(2)) + vmap(grad(f))(torch.ones(2, 2))
H = H + torch.autograd.functional.hessian(f, torch.ones(2)) + torch.autograd.functional.jvp(f, torch.ones(2), torch.ones(2))[1]
ok = torch.autograd.gradcheck(torch.sin, torch.ones(2, dtype=torch.float64, requires_grad=True))
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t ** 3
    @staticmethod
    def backward(ctx, grad_output):
        t, = ctx.saved_tensors
        return grad_output * 3 * t ** 2
Cube.apply(x).sum().backward()
print(x.grad, y.grad_fn.name(), J.shape, g.sum().item(), torch.randn(2), f"{y.item():.3f}", repr(model), H, ok)
"""


def preload() -> dict:
    """Import and exercise what lesson programs use (in the zygote, before any fork); the job table."""
    torch.set_num_threads(1)          # a confined child cannot start threads: every op runs inline
    for name in LAZY_MODULES:
        importlib.import_module(name)
    run(WARM_UP, "x.grad")
    return {"torch": run}


class _Discard:
    """stdout for the program: what it prints is not compared (only values and errors are)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def run(source: str, expression: str | None = None) -> dict:
    """Run `source` with real PyTorch; its error, or the value of `expression` in what it leaves."""
    namespace: dict = {"__name__": "__lesson__"}
    try:
        with contextlib.redirect_stdout(_Discard()):
            exec(compile(source, "<lesson>", "exec"), namespace)
            value = eval(expression, namespace) if expression else None
            answer = {"error": None, "value": _encode(value)} if expression else {"error": None}
    except (Exception, SystemExit) as error:  # the program's own failure is the outcome compared
        return {"error": {"type": type(error).__name__, "message": str(error)[:MAX_MESSAGE]}}
    return answer


def _encode(value: object) -> dict:
    """`jobs.encode_value`'s tagged plain data, for real torch values too."""
    if isinstance(value, torch.Tensor):
        tensor = value.detach()
        if tensor.is_complex() or tensor.layout != torch.strided:
            return {"kind": "unsupported", "type": "Tensor"}
        value = (tensor.float() if tensor.dtype in (torch.bfloat16, torch.float16) else tensor).numpy()
    return encode_value(value)
