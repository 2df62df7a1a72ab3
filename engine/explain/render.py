"""Rich renderables of an explanation, shared by `autograd-tutor explain` and the app's panels.

Matrices are tables with right-aligned columns; symbolic entries are sympy's
Unicode pretty-printing. Large Jacobians get a layout that still reads: the
diagonal laid out in x's shape, the diagonal blocks one by one, or a map of
where the non-zeros are.
"""
from __future__ import annotations

import re

import numpy as np
from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from engine.explain.graph import shape_text

FULL_LIMIT = 12          # show every entry of a Jacobian up to this many rows and columns
BLOCKS_SHOWN = 3
MAP_WIDTH = 60


def number(x) -> str:
    """PyTorch-like short numbers: 4, 0.5, 1.1667, 1.2e-07."""
    x = float(x)
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < 1e6:
        return str(int(x))
    if 1e-4 <= abs(x) < 1e6:
        return f"{x:.4f}".rstrip("0").rstrip(".")
    return f"{x:.4e}"


def pretty(expr) -> str:
    import sympy

    return sympy.pretty(sympy.sympify(expr), use_unicode=True, wrap_line=False)


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def one_line(expr) -> str:
    """A formula on one line as the articles write it: 6x², 2(inp + 1), x²/2, (x + 1)·exp(x)."""
    text = str(expr)
    text = re.sub(r"\*\*(\d+)", lambda m: m.group(1).translate(_SUPERSCRIPT), text)
    text = text.replace("**", "^")
    text = re.sub(r"(?<![\w.])(\d+)\*(?=[^\W\d]|\()", r"\1", text)
    return text.replace("*", "·")


def cell(value) -> str:
    return number(value) if isinstance(value, (int, float, np.number)) else pretty(value)


def matrix(a, *, title: str | None = None) -> Table:
    """A 0-, 1- or 2-d array as an aligned table (higher ranks: rows of the last axis)."""
    a = np.asarray(a, dtype=object if np.asarray(a).dtype == object else np.float64)
    rows = a.reshape(1, -1) if a.ndim < 2 else a.reshape(-1, a.shape[-1])
    table = Table(show_header=False, box=box.SQUARE, title=title, padding=(0, 1), show_lines=a.dtype == object)
    for _ in range(rows.shape[1] or 1):
        table.add_column(justify="right")
    for row in rows:
        table.add_row(*[cell(v) for v in row])
    return table


def _leaf_symbolic(symbolic, name):
    if symbolic is None or not symbolic.ok:
        return None
    return next((s for s in symbolic.leaves if s.name == name), None)


def render_summary(call) -> RenderableType:
    lines = Table.grid(padding=(0, 2))
    lines.add_column(style="bold")
    lines.add_column()
    lines.add_row("output", f"{call.output_name}  ({shape_text(call.output_shape)})")
    lines.add_row("v", call.v_words)
    for leaf in call.leaves:
        state = (f"{leaf.name}.grad already held a gradient; this call adds to it" if leaf.accumulated
                 else f"{leaf.name}.grad was empty before this call")
        lines.add_row(f"leaf {leaf.name}", f"{shape_text(leaf.shape)} — {state}")
    parts = [lines, Text(f"{call.output_name} ="), matrix(call.output_value)]
    if call.gradient is not None:
        parts += [Text("v ="), matrix(call.seed)]
    return Panel(Group(*parts), title=f"backward call {call.index + 1}", box=box.ROUNDED)


def render_jacobian(call, symbolic=None) -> RenderableType:
    parts = []
    for leaf in call.leaves:
        s = leaf.structure
        m, n = s["shape"]
        head = (f"J = ∂vec({call.output_name}) / ∂vec({leaf.name}): {m}x{n} ({shape_text(call.output_shape)} output, "
                f"{shape_text(leaf.shape)} input), {_kind_words(s)}")
        parts.append(Text(head, style="bold"))
        sym = _leaf_symbolic(symbolic, leaf.name)
        if sym is not None:
            parts.append(Text("symbolic (each input element a symbol):"))
            parts.append(_layout(sym.jacobian, s, leaf.shape, call.output_shape))
            parts.append(Text(f"with the values of {leaf.name} substituted:"))
        elif symbolic is not None and not symbolic.ok:
            parts.append(Text(f"symbolic form: {symbolic.note}", style="yellow"))
        parts.append(_layout(leaf.jacobian, s, leaf.shape, call.output_shape))
    return Group(*parts)


def _kind_words(s) -> str:
    kind = s["kind"]
    if kind == "block-diagonal":
        bm, bn = s["blocks"]
        return (f"block-diagonal with {bm}x{bn} blocks: each group of outputs depends only on its own "
                "group of inputs")
    if kind == "dense":
        return f"dense ({s['nonzero']} of {s['shape'][0] * s['shape'][1]} entries non-zero)"
    return {
        "zero": "all zero: the output does not depend on this input here",
        "scalar": "a single number",
        "identity": "the identity",
        "diagonal": "diagonal: each output element depends only on the input element at the same place",
        "constant": "every entry equal: each input element counts the same (as in sum or mean)",
        "rows-equal": "every row equal",
        "row": "one row (a scalar output): the row is the gradient itself",
    }[kind]


def _layout(J, s, x_shape, y_shape) -> RenderableType:
    m, n = J.shape
    if m <= FULL_LIMIT and n <= FULL_LIMIT:
        return matrix(J)
    if s["kind"] in ("diagonal", "identity") and m == n:
        return Group(Text("only the diagonal is non-zero; here it is laid out in the input's shape "
                          "(entry i is ∂yᵢ/∂xᵢ):"), matrix(np.diagonal(J).reshape(x_shape)))
    if s["kind"] == "block-diagonal":
        bm, bn = s["blocks"]
        k = m // bm
        shown = [matrix(J[b * bm:(b + 1) * bm, b * bn:(b + 1) * bn], title=f"block {b + 1} of {k}")
                 for b in range(min(k, BLOCKS_SHOWN))]
        if k > BLOCKS_SHOWN:
            shown.append(Text(f"… {k - BLOCKS_SHOWN} more blocks; everything off the blocks is 0"))
        return Group(*shown)
    nonzero = np.vectorize(lambda e: e != 0, otypes=[bool])(J)
    lines = ["".join("■" if z else "·" for z in row[:MAP_WIDTH]) + ("…" if n > MAP_WIDTH else "")
             for row in nonzero[:FULL_LIMIT * 2]]
    if m > FULL_LIMIT * 2:
        lines.append("⋮")
    return Group(Text("where the non-zeros are (■ non-zero, · zero), one line per output element:"),
                 Text("\n".join(lines)))


def render_vjp(call, symbolic=None) -> RenderableType:
    parts = []
    for leaf in call.leaves:
        sym = _leaf_symbolic(symbolic, leaf.name)
        m, n = leaf.jacobian.shape
        pieces = [matrix(call.seed.reshape(1, -1)), Text("·"),
                  matrix(leaf.jacobian) if max(m, n) <= 6 else Text("J"), Text("=")]
        if sym is not None:
            pieces += [matrix(sym.vjp.reshape(1, -1)), Text("=")]
        pieces.append(matrix(leaf.vjp.reshape(1, -1)))
        if max(m, n) <= 6:
            row = Table.grid(padding=(0, 1))
            for _ in pieces:
                row.add_column(vertical="middle")
            row.add_row(*pieces)
        else:  # too long for one line: the flattened vectors are shown row by row
            row = Group(Text("v (flattened, read row by row) ="), matrix(_in_rows(call.seed)),
                        *([Text("vᵀJ symbolically ="), matrix(_in_rows(sym.vjp, leaf.shape))] if sym else []),
                        Text("vᵀJ (flattened, read row by row) ="), matrix(_in_rows(leaf.vjp, leaf.shape)))
        parts += [Text(f"vᵀJ for {leaf.name}: the row vector v times the Jacobian", style="bold"), row]
        if max(m, n) <= 6 or len(leaf.shape) != 2:  # (row by row, a 2-D leaf is already in its shape)
            parts += [Text(f"reshaped to {leaf.name}'s shape {shape_text(leaf.shape)}:"), matrix(leaf.vjp)]
        mark = "✓" if leaf.vjp_matches else "✗"
        style = "green" if leaf.vjp_matches else "red"
        if leaf.accumulated:
            parts.append(Text(f"{leaf.name}.grad already held a gradient from an earlier backward call; "
                              f"gradients accumulate, so {leaf.name}.grad = before + vᵀJ:"))
            sums = Table.grid(padding=(0, 1))
            for _ in range(5):
                sums.add_column(vertical="middle")
            sums.add_row(matrix(leaf.grad_before), Text("+"), matrix(leaf.vjp), Text("="), matrix(leaf.grad_after))
            parts.append(sums)
            parts.append(Text(f"{mark} before + vᵀJ equals {leaf.name}.grad after this call", style=style))
        else:
            parts.append(Text(f"{mark} vᵀJ equals {leaf.name}.grad", style=style))
    return Group(*parts)


def _in_rows(vector, shape=None):
    """A flattened vector cut into rows as long as the last dim of `shape` (its own shape by default)."""
    shape = tuple(shape if shape is not None else vector.shape)
    width = shape[-1] if shape and shape[-1] else 1
    return vector.reshape(-1, width)


def render_chain(call, symbolic=None) -> RenderableType:
    parts = []
    chains = [] if symbolic is None else symbolic.chains
    for leaf in call.leaves:
        chain = next((c for c in chains if c.leaf == leaf.name), None)
        if chain is None:
            note = symbolic.note if symbolic is not None and not symbolic.ok else "symbolic factors not computed yet"
            path = " → ".join(g.name for g in call.graph)
            parts.append(Text(f"{call.output_name} → {leaf.name}: {path} ({note})"))
            continue
        if not chain.ok:
            parts.append(Text(f"chain rule for ∂{chain.output}/∂{chain.leaf}: {chain.note}", style="yellow"))
            continue
        parts.append(Text(one_line(chain.text()), style="bold"))
        for k, path in enumerate(chain.paths):
            table = Table(box=box.SIMPLE, title=f"path {k + 1}" if len(chain.paths) > 1 else None)
            table.add_column("factor")
            table.add_column("node")
            table.add_column("local derivative (per element)", justify="right")
            for segment in path.segments:
                for j, (name, factor) in enumerate(segment.factors):
                    label = f"∂{segment.top}/∂{segment.bottom} = {one_line(segment.factor)}" if j == 0 else ""
                    table.add_row(label, name, one_line(factor))
            parts.append(table)
    return Group(*parts)


def render_graph(call) -> RenderableType:
    graph = call.graph
    style = {"output": "bold cyan", "intermediate": "cyan", "leaf": "bold green"}

    def label(node) -> Text:
        text = Text(node.name, style=style[node.kind])
        if node.tensor:
            text.append(f"  {node.tensor}", style="bold")
        text.append(f"  [{node.kind}, {shape_text(node.shape)}]", style="dim")
        if node.saved:
            text.append("  saved: " + ", ".join(node.saved), style="magenta")
        return text

    def grow(tree, node, seen):
        for edge in node.inputs:
            if edge.source is None:
                tree.add(Text(f"{edge.input}: {edge.label}", style="dim"))
            elif edge.source in seen:
                tree.add(Text(f"{edge.input}: → {graph[edge.source].name} (shown above)", style="dim"))
            else:
                seen.add(edge.source)
                child = tree.add(Text(f"{edge.input}: ") + label(graph[edge.source]))
                grow(child, graph[edge.source], seen)

    tree = Tree(label(graph[0]))
    grow(tree, graph[0], {0})
    return tree


def render_trace_step(call, i: int) -> RenderableType:
    step = call.trace[i]
    parts = []
    if len(step.summed) > 1:
        parts.append(Text(f"{len(step.summed)} contributions arrive here and are summed:"))
        for source, g in step.summed:
            parts.append(Group(Text(f"from {_node_label(call, source)}:"), matrix(g)))
    parts += [Text("cotangent arriving (∂ output / ∂ this node's result):"), matrix(step.incoming)]
    for flow in step.flows:
        parts += [Text(f"rule for {flow.input}: {flow.formula}  →  sends to {flow.target_label}:"),
                  matrix(flow.cotangent)]
    if step.name == "AccumulateGrad":
        if step.grad_before is None:
            parts.append(Text(".grad was empty: it becomes this cotangent"))
        else:
            sums = Table.grid(padding=(0, 1))
            for _ in range(5):
                sums.add_column(vertical="middle")
            sums.add_row(matrix(step.grad_before), Text("+"), matrix(step.incoming), Text("="),
                         matrix(step.grad_after))
            parts += [Text(".grad accumulates: before + this cotangent ="), sums]
    return Panel(Group(*parts), title=f"step {i + 1} of {len(call.trace)}: {step.label}", box=box.ROUNDED)


def _node_label(call, k: int) -> str:
    node = call.graph[k]
    return f"{node.name} ({node.tensor})" if node.tensor else node.name


def render_fd_check(call) -> RenderableType:
    parts = []
    for leaf in call.leaves:
        if leaf.finite_differences is None:
            parts.append(Text(f"{leaf.name}: too many elements for a finite-difference check"))
            continue
        row = Table.grid(padding=(0, 2))
        row.add_column()
        row.add_column()
        row.add_row(Text("engine (this call)"), Text("central differences (float64)"))
        row.add_row(matrix(leaf.contribution), matrix(leaf.finite_differences))
        ok = leaf.fd_agrees
        verdict = Text(f"largest difference {leaf.fd_max_difference:.2e} — "
                       + ("agrees" if ok else "disagrees (a kink such as relu or abs at 0, or a bug)"),
                       style="green" if ok else "yellow")
        parts += [Text(f"finite-difference check for {leaf.name}", style="bold"), row, verdict]
    return Group(*parts)


def render_call(call, symbolic=None) -> RenderableType:
    """Everything about one backward call, for the command line."""
    trace = [render_trace_step(call, i) for i in range(len(call.trace))]
    return Group(render_summary(call),
                 Panel(render_jacobian(call, symbolic), title="Jacobian", box=box.ROUNDED),
                 Panel(render_vjp(call, symbolic), title="vector-Jacobian product", box=box.ROUNDED),
                 Panel(render_chain(call, symbolic), title="chain rule", box=box.ROUNDED),
                 Panel(render_graph(call), title="graph (output → leaves)", box=box.ROUNDED),
                 Panel(Group(*trace), title="backward, node by node", box=box.ROUNDED),
                 Panel(render_fd_check(call), title="finite-difference check", box=box.ROUNDED))
