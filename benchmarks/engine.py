"""Engine speed, side by side in one run: this engine, PyTorch (CPU) and HIPS autograd when installed.

(a) per-op overhead: a 1000-op chain of elementwise ops on a 3x3 tensor, then backward, in float32
    and in float64; engine and PyTorch runs alternate in this one process, so both see the same
    machine, and the verdict reads the median of the per-pair ratios;
(b) the full Jacobian of f(x) = (x + 1)**2 * x.sum() for n = 10, 100, 1000 inputs;
(c) the Hessian of h(x) = sum(tanh(x) * x) * x.sum() for n = 10, 100, and a JVP of f at n = 100, engine
    (one create_graph gradient + one batched sweep; double-VJP) vs torch.func.hessian / torch.func.jvp,
    alternating in this one process.
Prints medians and ratios to PyTorch. Run: python benchmarks/engine.py [--repeat N]

Instructions per chain, independent of the machine's load (callgrind counts, it does not time): run
`--chains K` (K engine float32 chains with backward, nothing else) for two K under valgrind and take the
difference, which leaves out the interpreter's start and the imports:
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/engine.py --chains 1
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/engine.py --chains 11
(instructions per chain = (Collected of 11 - Collected of 1) / 10).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# This file is itself called engine.py: keep its folder off the path so `import engine` finds the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
import engine  # noqa: E402

torch = autograd = None
if "--chains" not in sys.argv:  # (counting instructions: the references' imports would dwarf the chains)
    try:
        import torch
    except ImportError:  # the comparison columns are left out
        pass
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        pass


def median_seconds(fn, repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


CHAIN = 1000


def chain(lib, x):
    """CHAIN elementwise ops (mul, add, sin, tanh cycling), summed."""
    for i in range(CHAIN // 4):
        x = x * 0.999
        x = x + 0.001
        x = lib.sin(x)
        x = lib.tanh(x)
    return x.sum()


def chain_of(lib, dtype_name):
    dtype = getattr(lib, dtype_name)

    def run():
        x = lib.ones(3, 3, dtype=dtype, requires_grad=True)
        chain(lib, x).backward()
    return run


def alternating(fn_a, fn_b, repeat: int) -> tuple[float, float, float]:
    """Medians of a and b timed turn about, and the median of the per-pair ratios a/b."""
    fn_a(), fn_b()  # warm-up
    a, b = [], []
    for _ in range(repeat):
        for fn, times in ((fn_a, a), (fn_b, b)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return statistics.median(a), statistics.median(b), statistics.median(x / y for x, y in zip(a, b))


def chain_autograd():
    autograd.grad(lambda x: chain(anp, x))(np.ones((3, 3)))


def f_engine(x):
    return (x + 1) ** 2 * x.sum()


def jac_engine(n):
    return lambda: engine.autograd.functional.jacobian(f_engine, engine.linspace(-1, 1, n))


def jac_engine_loop(n):
    """One backward per output element: what the batched sweep replaces."""
    def run():
        x = engine.linspace(-1, 1, n).requires_grad_()
        y = f_engine(x)
        rows = []
        for i in range(n):
            x.grad = None
            y[i].backward(retain_graph=True)
            rows.append(x.grad)
        return rows
    return run


def jac_torch(n, vectorize):
    x = torch.linspace(-1, 1, n)
    return lambda: torch.autograd.functional.jacobian(f_engine, x, vectorize=vectorize)


def jac_jacrev(n):
    x = torch.linspace(-1, 1, n)
    jac = torch.func.jacrev(f_engine)
    return lambda: jac(x)


def jac_autograd(n):
    x = np.linspace(-1, 1, n)
    jac = autograd.jacobian(lambda x: (x + 1) ** 2 * anp.sum(x))
    return lambda: jac(x)


def h_fn(x):
    return (x.tanh() * x).sum() * x.sum()


def hessian_of(lib, n):
    x = lib.linspace(-1, 1, n, dtype=lib.float64)
    hess = lib.func.hessian(h_fn)
    return lambda: hess(x)


def jvp_of(lib, n):
    x = lib.linspace(-1, 1, n, dtype=lib.float64)
    v = lib.ones(n, dtype=lib.float64)
    return lambda: lib.func.jvp(f_engine, (x,), (v,))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--chains", type=int, default=None, help="only run this many engine chains (callgrind)")
    args = parser.parse_args()
    if args.chains is not None:
        run = chain_of(engine, "float32")
        for _ in range(args.chains):
            run()
        return
    rows = []
    pair_ratios = {}
    for dtype_name in ("float32", "float64"):
        label = f"(a) 1000-op chain {dtype_name}"
        if torch:
            ours, ref, pair_ratios[dtype_name] = alternating(chain_of(engine, dtype_name), chain_of(torch, dtype_name),
                                                            args.repeat)
            rows += [(label, "engine", ours, ref), (label, "torch", ref, ref)]
        else:
            rows.append((label, "engine", median_seconds(chain_of(engine, dtype_name), args.repeat), None))
    if autograd:
        rows.append(("(a) 1000-op chain float64", "HIPS autograd", median_seconds(chain_autograd, args.repeat),
                     dict(((r[0], r[1]), r[2]) for r in rows).get(("(a) 1000-op chain float64", "torch"))))
    for n in (10, 100, 1000):
        label = f"(b) jacobian n={n}"
        candidates = [("engine (batched sweep)", jac_engine(n)), ("engine (loop of backward)", jac_engine_loop(n))]
        if torch:
            candidates += [("torch functional.jacobian", jac_torch(n, False)),
                           ("torch functional.jacobian vectorize", jac_torch(n, True)),
                           ("torch.func.jacrev", jac_jacrev(n))]
        if autograd:
            candidates.append(("HIPS autograd.jacobian", jac_autograd(n)))
        repeat = max(3, args.repeat // (5 if n == 1000 else 1))
        timed = [(name, median_seconds(fn, repeat)) for name, fn in candidates]
        ref = dict(timed).get("torch functional.jacobian")
        rows += [(label, name, t, ref) for name, t in timed]
    second = {}
    if torch:
        for label, make in (("(c) hessian n=10", lambda lib: hessian_of(lib, 10)),
                            ("(c) hessian n=100", lambda lib: hessian_of(lib, 100)),
                            ("(c) jvp n=100", lambda lib: jvp_of(lib, 100))):
            ours, ref, second[label] = alternating(make(engine), make(torch), args.repeat)
            rows += [(label, "engine", ours, ref), (label, "torch.func", ref, ref)]
    print(f"{'benchmark':32} {'implementation':38} {'median':>12} {'vs torch':>9}")
    for label, name, seconds, ref in rows:
        ratio = f"{seconds / ref:8.2f}x" if ref else "        -"
        print(f"{label:32} {name:38} {seconds * 1e3:9.3f} ms {ratio}")
    print()
    for line in verdicts(rows, pair_ratios):
        print(line)
    targets = {"(c) hessian n=10": 1.0, "(c) hessian n=100": 2.0, "(c) jvp n=100": 1.0}
    for label, ratio in second.items():
        print(f"{label}: engine / torch = {ratio:.2f} (median of paired runs; target <= {targets[label]:g}): "
              f"{'met' if ratio <= targets[label] else 'NOT met'}")


def verdicts(rows, pair_ratios) -> list[str]:
    """The issue's targets, checked against this run's medians."""
    by = {(label, name): seconds for label, name, seconds, _ in rows}
    lines = []
    for dtype_name, ratio in pair_ratios.items():
        lines.append(f"(a) {dtype_name}: engine / torch = {ratio:.2f} (median of paired runs; "
                     f"target <= 1.0): {'met' if ratio <= 1.0 else 'NOT met'}")
    for n in (10, 100, 1000):
        label = f"(b) jacobian n={n}"
        ours = by[(label, "engine (batched sweep)")]
        others = {name: t for (lab, name), t in by.items() if lab == label and not name.startswith("engine")}
        slowest_ratio = max((ours / t for t in others.values()), default=0.0)
        loop = by[(label, "engine (loop of backward)")] / ours
        verdict = "met" if slowest_ratio < 1.0 else "NOT met"
        lines.append(f"(b) n={n}: batched is {1 / slowest_ratio if slowest_ratio else float('inf'):.1f}x faster "
                     f"than the fastest other ({verdict}); {loop:.1f}x faster than one backward per output"
                     + (f" (target >= 10x: {'met' if loop >= 10 else 'NOT met'})" if n == 1000 else ""))
    return lines


if __name__ == "__main__":
    main()
