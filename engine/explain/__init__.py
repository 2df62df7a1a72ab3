"""The explanation layer: why x.grad is what it is, computed for any program.

    from engine.explain import explain_program, explain_symbolic
    exp = explain_program(source)          # numbers: Jacobian, vᵀJ, graph, trace, finite differences
    sym = explain_symbolic(exp, call_index=0, timeout=2.0)   # sympy: slow, run it in a worker
    exp.to_json({0: sym})

Everything is derived from the graph the engine recorded and the engine's own
rules (`engine.ops`); see the module docstrings for how each part is made.
Renderables for the CLI and the app live in `engine.explain.render`.
"""
from engine.explain.build import explain_call, explain_program, explain_symbolic
from engine.explain.model import CallExplanation, Explanation, LeafExplanation
from engine.explain.symbolic import SymbolicJacobian

_RENDER = ("render_summary", "render_jacobian", "render_vjp", "render_chain", "render_graph",
           "render_trace_step", "render_fd_check", "render_call")


def __getattr__(name):  # render functions import rich only when first used
    if name in _RENDER:
        from engine.explain import render

        return getattr(render, name)
    raise AttributeError(f"module 'engine.explain' has no attribute {name!r}")


__all__ = ["CallExplanation", "Explanation", "LeafExplanation", "SymbolicJacobian", "explain_call",
           "explain_program", "explain_symbolic", *_RENDER]
