"""The panels of an explanation as Rich renderables, shared by `autograd-tutor explain` and the app.

Every sentence comes from `engine.explain.messages` in the requested language (`lang`). Each panel is
laid out for the width it will be shown at (`width`, in terminal cells); its values are drawn by
`engine.explain.matrices` (a table when it fits, else lines of numbers or a summary of a Jacobian, never
`…` cells; symbolic entries on one line, `x₁₁²/2`, never sympy's two-line fractions, which read like
`2·x₁₁/2`), and the vector-Jacobian product is written vertically, vᵀ above J above the result. Only
verified symbolic forms are shown (`SymbolicLeaf.verified`, `Chain.verified`).
"""
from __future__ import annotations

import ast

import numpy as np
from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from engine.explain.chain import path_mark
from engine.explain.matrices import (
    FULL_LIMIT,
    fitted,
    fitted_matrix,
    formula,
    in_rows,
    jacobian_layout,
    shape_text,
    sum_rows,
    whole_jacobian,
)
from engine.explain.messages import rule_text, t
from engine.explain.notation import one_line

WIDTH = 100  # the width a panel is laid out for when the caller does not say


def _leaf_symbolic(symbolic, name):
    if symbolic is None or not symbolic.ok:
        return None
    return next((s for s in symbolic.leaves if s.name == name), None)


def _note(symbolic, lang: str) -> str:
    if symbolic.note_key:
        return t(symbolic.note_key, lang, **symbolic.note_params)
    return symbolic.note


def _call_title(call, lang: str) -> str:
    forward = "_forward" if getattr(call, "forward", None) else ""
    if call.line is None:
        return t("call_title_noline" + forward, lang, index=call.index + 1)
    return t("call_title" + forward, lang, index=call.index + 1, line=call.line)


def _raised(call, lang: str) -> Text:
    error = call.error
    name = getattr(error, "type", None) or type(error).__name__
    message = getattr(error, "message", None) or str(error)
    return Text(t("raised", lang, error=name) + f"\n{name}: {message}", style="red")


# --- summary ----------------------------------------------------------------------------------------
def render_summary(call, *, lang: str = "en", width: int = WIDTH) -> RenderableType:
    lines = Table.grid(padding=(0, 2))
    lines.add_column(style="bold", no_wrap=True)
    lines.add_column(overflow="fold")  # Japanese has no spaces to wrap at: fold, never cut with …
    y = call.output_name
    api = api_name(call)
    lines.add_row(t("output", lang), f"{y}  ({shape_text(call.output_shape, lang)})")
    if call.api == DUAL:
        lines.add_row(t("call_api", lang), t("api_dual", lang, y=y))
    elif call.api != "Tensor.backward":
        key = ("api_forward" if call.forward else "api_forward_swept" if call.api in _FORWARD
               else "api_checks" if call.api in _CHECKS
               else "api_returns_jacobian" if call.batched else "api_returns" if call.returns
               else "api_accumulates")
        lines.add_row(t("call_api", lang), t(key, lang, api=api))
    if call.api == DUAL:
        lines.add_row("t", t("t_dual", lang))
    elif call.forward:
        lines.add_row("t", t("t_given", lang, api=api))
    elif call.batched:
        lines.add_row("v", t("v_batched", lang, api=api))
    elif call.api in _CHECKS:
        lines.add_row("v", t("v_checks", lang, api=api))
    elif call.gradient is None:  # "backward()" only when the program called it
        one = t("one_scalar" if call.output_shape == () else "one_element", lang)
        lines.add_row("v", t("v_implicit", lang, y=y, one=one) if call.api == "Tensor.backward"
                      else t("v_implicit_api", lang, y=y, api=api, one=one))
    else:
        lines.add_row("v", t("v_given", lang, y=operand(y)) if call.api == "Tensor.backward"
                      else t("v_given_api", lang, api=api))
    for leaf in call.leaves:
        state = (t("tangent_of", lang, name=leaf.name) if call.forward else
                 t("returned_jacobian", lang, name=leaf.name) if call.batched else
                 t("returned", lang, name=leaf.name) if call.returns else
                 t("grad_held", lang, name=leaf.name) if leaf.accumulated else t("grad_empty", lang, name=leaf.name))
        lines.add_row(t("dual_input" if call.api == DUAL else "leaf", lang, name=leaf.name),
                      f"{shape_text(leaf.shape, lang)} — {state}")
    parts = [lines]
    if call.error is not None:
        parts.append(_raised(call, lang))
    if call.refused:
        parts.append(_refusal(call, lang))
    if call.several:
        parts.append(Text(t("several_outputs", lang, count=call.several, names=", ".join(call.output_names))))
    parts += [Text(t("equals", lang, name=y)), fitted(call.output_value, width - 4, lang)]
    if call.forward:
        for leaf, tangent in zip(call.leaves, call.forward.tangents):
            label = "t =" if len(call.leaves) == 1 else f"t ({leaf.name}) ="
            parts += [Text(label), fitted(tangent, width - 4, lang)]
    elif call.gradient is not None and not call.batched:
        parts += [Text("v ="), fitted(call.seed, width - 4, lang)]
    return Panel(Group(*parts), title=_call_title(call, lang), box=box.ROUNDED)


_FORWARD = {"func.jvp", "func.jacfwd", "autograd.functional.jvp"}
_CHECKS = {"autograd.gradcheck", "autograd.gradgradcheck"}   # their sweeps, one per output element, return a bool
DUAL = "autograd.forward_ad"   # dual numbers: engine.explain.dual


def _refusal(call, lang: str) -> Text:
    """Why a call is not explained (`CallExplanation.refused`), in plain words."""
    return Text(t(call.refused, lang, y=call.output_name, entries=call.too_large), style="yellow")


def operand(expression: str) -> str:
    """`expression` ready to take `.backward(…)` or `∂…/∂x` after it: `x * x` becomes `(x * x)`, or
    "x * x.backward(…)" would read as x times x.backward()."""
    try:
        node = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return expression
    atom = isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.Tuple))
    return expression if atom else f"({expression})"


def api_name(call) -> str:
    """How the program wrote the call: y.backward, torch.autograd.grad, torch.func.jvp …"""
    return f"{call.output_name}.backward" if call.api == "Tensor.backward" else f"torch.{call.api}"


# --- Jacobian ---------------------------------------------------------------------------------------
def render_jacobian(call, symbolic=None, *, lang: str = "en", width: int = WIDTH) -> RenderableType:
    if call.refused:
        return _refusal(call, lang)
    if call.error is not None:
        return Text(t("raised_short", lang, index=call.index + 1), style="yellow")
    parts = []
    for leaf in call.leaves:
        s = leaf.structure
        m, n = s["shape"]
        head = t("jacobian_head", lang, y=call.output_name, x=leaf.name, m=m, n=n,
                 y_shape=shape_text(call.output_shape, lang), x_shape=shape_text(leaf.shape, lang))
        if max(len(call.output_shape), len(leaf.shape)) > 1:  # a matrix: vec's order decides J's rows or columns
            head += t("jacobian_vec_rows", lang)
        sep = "、" if lang == "ja" else ", "
        if leaf.jacobian is None:  # sized before it was built; the reason follows
            parts += [Text(head, style="bold"),
                      Text(t("jacobian_too_large", lang, m=m, n=n, entries=m * n), style="yellow")]
            continue
        parts.append(Text(head + sep + _kind_words(s, lang, call.output_name, leaf.name, call.output_shape),
                          style="bold"))
        sym = _leaf_symbolic(symbolic, leaf.name)
        if sym is not None and sym.verified:
            parts.append(Text(t("symbolic_intro", lang)))
            parts.append(jacobian_layout(sym.jacobian, s, leaf.shape, width, lang, symbolic=True))
            parts.append(Text(t("substituted", lang)))
        elif sym is not None:
            key = "symbolic_point_only" if sym.point_only else "symbolic_unverified"
            parts.append(Text(t(key, lang), style="yellow"))
        elif symbolic is not None and not symbolic.ok:
            parts.append(Text(t("symbolic_note", lang, note=_note(symbolic, lang)), style="yellow"))
        parts.append(jacobian_layout(leaf.jacobian, s, leaf.shape, width, lang))
    if call.too_large and not call.leaves:  # a batched call whose own result is that Jacobian
        parts.append(Text(t("jacobian_too_large_batched", lang, entries=call.too_large, api=api_name(call)),
                          style="yellow"))
    return Group(*parts)


def _kind_words(s, lang: str, y: str, x: str, y_shape: tuple) -> str:
    kind = s["kind"]
    if kind == "row" and y_shape != ():   # one element but not 0-dim, e.g. shape (1,): not a scalar
        return t("kind_row_one", lang)
    if kind == "block-diagonal":
        bm, bn = s["blocks"]
        return t("kind_block", lang, bm=bm, bn=bn)
    if kind == "dense":   # the fallback kind: dense only when no entry is zero
        total = s["shape"][0] * s["shape"][1]
        return t("kind_dense" if s["nonzero"] == total else "kind_unstructured", lang, nonzero=s["nonzero"], total=total)
    return t("kind_" + kind.replace("-", "_"), lang, x=x, y=y)


# --- VJP --------------------------------------------------------------------------------------------
def render_vjp(call, symbolic=None, *, lang: str = "en", width: int = WIDTH) -> RenderableType:
    """vᵀ · J = result, stacked vertically so it reads at any width (the article's (1, 1)J = (4, 2))."""
    if call.refused:
        return _refusal(call, lang)
    if call.error is not None:
        return Text(t("raised_short", lang, index=call.index + 1), style="yellow")
    if call.forward:
        return render_jvp(call, lang=lang, width=width)
    parts = [Text(t("module_hooked", lang), style="magenta")] if call.module_hooks else []
    for leaf in call.leaves:
        sym = _leaf_symbolic(symbolic, leaf.name)
        sym = sym if sym is not None and sym.verified and not call.batched else None
        parts.append(Text(t("vjp_head", lang, x=leaf.name), style="bold"))
        flat = len(call.output_shape) > 1 or len(leaf.shape) > 1
        v_rows = in_rows(call.seed)
        parts += [Text(t("vjp_v", lang) if flat else t("vjp_v_plain", lang)), fitted(v_rows, width, lang)]
        whole = None if leaf.jacobian is None else whole_jacobian(leaf.jacobian, width - 4)
        if whole is not None:
            parts += [Text("·  J ="), whole]
        else:
            parts.append(Text(t("vjp_times_j" if leaf.jacobian is not None else "vjp_times_unbuilt_j", lang)))
        symbolic_vjp = None if sym is None else fitted_matrix(in_rows(sym.vjp, leaf.shape), width)
        if symbolic_vjp is not None and symbolic_vjp.fits:
            parts += [Text(t("vjp_symbolic", lang)), symbolic_vjp.table()]
        elif sym is not None:
            parts += [Text(t("vjp_symbolic", lang)),
                      Text("\n".join(f"  [{j + 1}] {formula(e)}" for j, e in enumerate(sym.vjp.reshape(-1)[:24])))]
        parts += [Text(t("vjp_result", lang) if flat else t("vjp_result_plain", lang)),
                  fitted(in_rows(leaf.vjp, leaf.shape), width, lang)]
        if flat and len(leaf.shape) != 2:
            parts += [Text(t("vjp_reshaped", lang, x=leaf.name, shape=shape_text(leaf.shape, lang))),
                      fitted(leaf.vjp, width, lang)]
        mark = "✓" if leaf.vjp_matches else "✗"
        style = "green" if leaf.vjp_matches else "red"
        if call.batched or call.returns:
            key = ("vjp_batched" if call.batched else "vjp_check_returned") + ("" if leaf.vjp_matches else "_bad")
            parts.append(Text(t(key, lang, mark=mark, x=leaf.name, api=api_name(call)), style=style))
            continue
        if leaf.accumulated:
            parts.append(Text(t("vjp_accumulated", lang, x=leaf.name)))
            parts += sum_rows(leaf.grad_before, leaf.vjp, leaf.grad_after, width, lang)
            key = "vjp_check_accumulated" if leaf.vjp_matches else "vjp_check_accumulated_bad"
        else:
            key = "vjp_check" if leaf.vjp_matches else "vjp_check_bad"
        parts.append(Text(t(key, lang, mark=mark, x=leaf.name), style=style))
        if not leaf.vjp_matches and call.hooked:
            parts.append(Text(t("hooks_changed", lang, x=leaf.name), style="magenta"))
    return Group(*parts)


def render_jvp(call, *, lang: str = "en", width: int = WIDTH) -> RenderableType:
    """J·t = result for a forward-mode call, each input's term J·tₓ when there are several, checked against
    what the call returned (the counterpart of `render_vjp`: t is a column on the right of J)."""
    forward = call.forward
    parts = []
    for leaf, tangent in zip(call.leaves, forward.tangents):
        parts.append(Text(t("jvp_head", lang, x=leaf.name), style="bold"))
        if len(call.leaves) > 1:
            parts.append(Text(t("jvp_term", lang, x=leaf.name), style="dim"))
        n = leaf.jacobian.shape[1]
        whole = whole_jacobian(leaf.jacobian, width - 4)
        if whole is not None:
            parts += [Text("J ="), whole]
        parts += [Text(t("jvp_t", lang, x=leaf.name)), fitted(tangent.reshape(-1, 1) if n <= FULL_LIMIT else tangent,
                                                                width, lang)]
        if len(call.leaves) > 1:
            parts += [Text(t("jvp_times", lang, x=leaf.name)),
                      fitted((leaf.jacobian.astype(np.float64) @ tangent.reshape(-1)).reshape(call.output_shape),
                              width, lang)]
    parts += [Text(t("jvp_result", lang), style="bold"), fitted(forward.computed, width, lang)]
    mark, style = ("✓", "green") if forward.matches else ("✗", "red")
    key = ("jvp_check_dual" if call.api == DUAL else "jvp_check") + ("" if forward.matches else "_bad")
    parts.append(Text(t(key, lang, mark=mark, api=api_name(call), y=call.output_name), style=style))
    return Group(*parts)


# --- chain rule -------------------------------------------------------------------------------------
def render_chain(call, symbolic=None, *, lang: str = "en", width: int = WIDTH) -> RenderableType:
    if call.refused:
        return _refusal(call, lang)
    if call.error is not None:
        return Text(t("raised_short", lang, index=call.index + 1), style="yellow")
    if call.forward:
        return Group(*(Text(t("chain_forward", lang, y=call.output_name, x=leaf.name)) for leaf in call.leaves))
    parts = []
    chains = [] if symbolic is None else symbolic.chains
    for leaf in call.leaves:
        chain = next((c for c in chains if c.leaf == leaf.name), None)
        path = " → ".join(g.name for g in call.graph)
        y, x = call.output_name, leaf.name
        if chain is None:
            if symbolic is None:
                parts.append(Text(t("chain_pending", lang, y=y, x=x, path=path)))
            else:
                parts.append(Text(t("chain_unavailable", lang, y=y, x=x, path=path, note=_note(symbolic, lang))))
            continue
        if not chain.ok or not chain.verified:
            key = {"no_dependence": "chain_no_dependence", "timeout": "chain_timeout",
                   "jacobian": "chain_jacobian"}.get(chain.note, "chain_no_formula")
            parts.append(Text(t(key, lang, y=y, x=x, api=api_name(call)), style="yellow"))
            continue
        if call.derivative_of is not None and call.derivative_of[1] == x:
            parts.append(Text(t("chain_second", lang, dy=y, y=call.derivative_of[0], x=x)))
        if chain.elements:  # the intro comes before the lines it introduces
            parts.append(Text(t("chain_per_element", lang), style="dim"))
        if chain.segments:
            parts.append(Text(t("chain_segments", lang, y=y), style="dim"))
        parts.append(Text(chain.text(one_line), style="bold"))
        for name, value in chain.constants:
            parts += [Text(t("chain_constant", lang, name=name)), fitted(value, width - 4, lang)]
        if chain.named:
            parts.append(Text(t("chain_named", lang, names=", ".join(chain.named)), style="dim"))
        if chain.weight and all(part.isidentifier() for part in chain.weight.split(".")):
            key = "chain_weighted_diagonal" if chain.paths else "chain_weighted"   # paths: every factor element-wise
            parts.append(Text(t(key, lang, v=chain.weight, y=operand(y), x=x), style="dim"))
        if chain.paths:
            parts.append(Text(t("chain_elementwise", lang), style="dim"))
            if len(chain.paths) > 1:
                parts.append(Text(t("chain_paths_add", lang, x=x, y=y, count=len(chain.paths))))
            for k, p in enumerate(chain.paths):
                named = len(p.segments) > 1  # a column for ∂z/∂g, ∂g/∂x only when named tensors split the path
                table = Table(box=box.SIMPLE, title=t("chain_path", lang, k=path_mark(k)) if len(chain.paths) > 1 else None)
                if named:
                    table.add_column(t("col_factor", lang), overflow="fold")
                table.add_column(t("col_node", lang), no_wrap=True)
                table.add_column(t("col_local", lang), justify="right", overflow="fold")
                for segment in p.segments:
                    for j, (name, factor) in enumerate(segment.factors):
                        label = f"∂{segment.top}/∂{segment.bottom} = {one_line(segment.factor)}" if j == 0 else ""
                        # Text, not str: a str cell is read as Rich markup, and a formula such as
                        # `torch.tensor([inf, 1.])` would vanish as a [tag]
                        table.add_row(*([Text(label)] if named else []), Text(name), Text(one_line(factor)))
                parts.append(table)
        elif chain.steps:
            parts.append(Text(t("chain_tensor", lang), style="dim"))
            parts.append(Text(t("chain_steps_weighted", lang, v=chain.weight, y=y) if chain.weight
                              else t("chain_steps", lang, y=y)))
            for step in chain.steps:
                parts.append(Text(f"  {step.label}: {one_line(step.formula)}"))
        elif chain.elements and chain.more_elements:
            parts.append(Text(t("chain_more_elements", lang, count=chain.more_elements), style="dim"))
        if chain.hook_changed:
            parts.append(Text(t("chain_verified_hooked", lang, x=x), style="green"))
            parts.append(Text(t("hooks_changed", lang, x=x), style="magenta"))
        else:  # ".grad from backward" only where .grad is this call's gradient and nothing else
            key = "chain_verified_call" if call.returns or leaf.accumulated else "chain_verified"
            parts.append(Text(t(key, lang, x=x), style="green"))
    return Group(*parts)


# --- graph ------------------------------------------------------------------------------------------
def render_graph(call, *, lang: str = "en", width: int = WIDTH) -> RenderableType:
    if call.refused:
        return _refusal(call, lang)
    graph = call.graph
    style = {"output": "bold cyan", "intermediate": "cyan", "leaf": "bold green", "input": "bold green"}

    def label(node) -> Text:
        text = Text(node.name, style=style[node.kind])
        if node.tensor:
            text.append(f"  {node.tensor}", style="bold")
        text.append(f"  [{t('kind_' + node.kind, lang)}, {shape_text(node.shape, lang)}]", style="dim")
        if node.saved_items:
            constants = {edge.input: edge for edge in node.inputs if getattr(edge, "constant", None)}

            def shown(name, tensor, shape):  # a constant in the panel's language (it gives its shape); a tensor
                if name in constants:        # by its name, then its shape
                    return f" = {_edge_label(constants[name], lang)}"
                return (f" = {tensor}" if tensor else "") + (f" ({shape_text(shape, lang)})" if shape is not None else "")

            items = [name + shown(name, tensor, shape) for name, tensor, shape in node.saved_items]
            text.append("  " + t("saved", lang, items=", ".join(items)), style="magenta")
        return text

    def grow(tree, node, seen):
        for edge in node.inputs:
            if edge.source is None:
                tree.add(Text(f"{edge.input}: {_edge_label(edge, lang)}", style="dim"))
            elif edge.source in seen:
                tree.add(Text(t("shown_above", lang, input=edge.input, name=graph[edge.source].name), style="dim"))
            else:
                seen.add(edge.source)
                child = tree.add(Text(f"{edge.input}: ") + label(graph[edge.source]))
                grow(child, graph[edge.source], seen)

    seen = set(call.root_indices)
    trees = []
    for k in call.root_indices:   # one tree per output; a node two outputs share is drawn once
        trees.append(Tree(label(graph[k])))
        grow(trees[-1], graph[k], seen)
    return trees[0] if len(trees) == 1 else Group(*trees)


def _edge_label(edge, lang: str) -> str:
    """A constant input, in the panel's language (graph.Edge keeps its structured form in `constant`)."""
    info = getattr(edge, "constant", None)
    if not info:
        return edge.label
    if info.get("value") is not None:
        return t("constant", lang, value=info["value"])
    return t("constant_tensor", lang, name=info.get("name") or t("constant_word", lang),
             shape=shape_text(info["shape"], lang))


# --- backward, node by node ---------------------------------------------------------------------------
def render_trace_step(call, i: int, *, lang: str = "en", width: int = WIDTH, calls: int = 1) -> RenderableType:
    step = call.trace[i]
    parts = []
    if len(step.summed) > 1:
        parts.append(Text(t("trace_summed", lang, count=len(step.summed))))
        for source, g in step.summed:
            parts.append(Group(Text(t("trace_from", lang, name=_node_label(call, source))), fitted(g, width - 4, lang)))
    if step.hooked:
        parts.append(Text(t("trace_hooked", lang), style="magenta"))
    if step.module_hook:
        parts.append(Text(t("trace_module_hook", lang), style="magenta"))
    incoming = "trace_incoming" if call.gradient is None else "trace_incoming_weighted"   # backward(v): vᵀ·∂out/∂…
    parts += [Text(t(incoming, lang)), fitted(step.incoming, width - 4, lang)]
    for flow in step.flows:
        parts.append(Text(t("trace_rule", lang, input=flow.input, formula=rule_text(flow.formula, lang),
                            target=flow.target_label)))
        if flow.rule_shape is not None:
            parts.append(Text(t("trace_summed_to", lang, rule=shape_text(flow.rule_shape, lang), input=flow.input,
                                shape=shape_text(flow.cotangent.shape, lang)), style="dim"))
        parts.append(fitted(flow.cotangent, width - 4, lang))
    if step.name == "AccumulateGrad":
        if step.grad_before is None:
            parts.append(Text(t("trace_grad_empty", lang)))
        else:
            parts.append(Text(t("trace_grad_sum", lang)))
            parts += sum_rows(step.grad_before, step.incoming, step.grad_after, width - 4, lang)
    title = t("trace_title", lang, index=i + 1, total=len(call.trace), label=step.label)
    if calls > 1:
        title = (t("trace_call", lang, call=call.index + 1, line=call.line if call.line is not None else "?")
                 + title)
    return Panel(Group(*parts), title=title, box=box.ROUNDED)


def _node_label(call, k: int) -> str:
    node = call.graph[k]
    return f"{node.name} ({node.tensor})" if node.tensor else node.name


# --- forward mode, op by op (dual numbers) ---------------------------------------------------------------
def render_steps(call, *, lang: str = "en", width: int = WIDTH, calls: int = 1) -> list:
    """The call's node-by-node panels: backward's trace, or for dual numbers each op as forward mode ran it."""
    if call.forward is not None and call.forward.steps:
        return [render_tangent_step(call, i, lang=lang, width=width, calls=calls) for i in range(len(call.forward.steps))]
    return [render_trace_step(call, i, lang=lang, width=width, calls=calls) for i in range(len(call.trace))]


def render_tangent_step(call, i: int, *, lang: str = "en", width: int = WIDTH, calls: int = 1) -> RenderableType:
    """One op of a dual-number computation: the tangents coming in, the op's local derivative (its rule), the
    value and the tangent going out, checked against the directional finite difference at that op."""
    steps = call.forward.steps
    step = steps[i]
    node = call.graph[step.node]
    parts = [Text(t("tangent_value", lang)), fitted(step.value, width - 4, lang)]
    for edge, tangent in step.inputs:
        label = _input_label(call, edge, lang)
        if tangent is None:
            parts.append(Text(t("tangent_constant", lang, input=edge.input, label=label), style="dim"))
            continue
        parts += [Text(t("tangent_in", lang, input=edge.input, label=label)), fitted(tangent, width - 4, lang),
                  Text(t("tangent_rule", lang, input=edge.input, formula=rule_text(node.formula[node.inputs.index(edge)], lang)))]
    parts += [Text(t("tangent_out", lang), style="bold"), fitted(step.tangent, width - 4, lang)]
    if step.finite_difference is not None:
        diff = float(np.nan_to_num(np.abs(step.finite_difference - step.tangent), nan=0.0).max(initial=0.0))
        mark, style = ("✓", "green") if step.agrees else ("✗", "yellow")
        parts.append(Text(t("tangent_fd" if step.agrees else "tangent_fd_bad", lang, mark=mark, diff=f"{diff:.2e}"),
                          style=style))
    parts.append(Text(t("tangent_rules_note", lang), style="dim"))
    title = t("tangent_title", lang, index=i + 1, total=len(steps), label=_step_label(call, i))
    if calls > 1:
        title = t("tangent_call", lang, call=call.index + 1, line=call.line if call.line is not None else "?") + title
    return Panel(Group(*parts), title=title, box=box.ROUNDED)


def _step_label(call, i: int) -> str:
    """sin → s: the op, and the program's name for its result when it bound one."""
    step = call.forward.steps[i]
    name = call.graph[step.node].tensor
    return f"{step.op} → {name}" if name else step.op


def _input_label(call, edge, lang: str) -> str:
    """What feeds an op: a leaf or named tensor by its name, an unnamed result by its op (op 1: sin)."""
    if edge.source is None:
        return _edge_label(edge, lang)
    source = call.graph[edge.source]
    if source.tensor:
        return source.tensor
    k = next((k for k, s in enumerate(call.forward.steps) if s.node == edge.source), None)
    return edge.label if k is None else t("tangent_step", lang, index=k + 1, op=call.forward.steps[k].op)


# --- finite differences -------------------------------------------------------------------------------
def render_fd_check(call, *, lang: str = "en", width: int = WIDTH) -> RenderableType:
    if call.refused:
        return Group(Text(_call_title(call, lang), style="bold"), _refusal(call, lang))
    if call.error is not None:
        return Group(Text(_call_title(call, lang), style="bold"), _raised(call, lang))
    if call.forward:
        return _fd_forward(call, lang, width)
    parts = []
    for leaf in call.leaves:
        if leaf.finite_differences is None:  # a batched call is never replayed (build.py), whatever its size
            key = "fd_batched" if call.batched else "fd_too_large"
            parts.append(Text(t(key, lang, x=leaf.name, api=api_name(call))))
            continue
        parts.append(Text(t("fd_title", lang, x=leaf.name) + f" — {_call_title(call, lang)}", style="bold"))
        parts.append(Text(t("fd_at_values", lang, x=leaf.name), style="dim"))
        pair = [(t("fd_engine", lang), leaf.contribution), (t("fd_central", lang), leaf.finite_differences)]
        laid = [(name, fitted_matrix(a, width - 2)) for name, a in pair]
        if all(m.fits for _, m in laid) and sum(m.width for _, m in laid) + 2 <= width - 2:
            row = Table.grid(padding=(0, 2))
            row.add_column(overflow="fold")
            row.add_column(overflow="fold")
            row.add_row(*(Text(name) for name, _ in laid))
            row.add_row(*(m.table() for _, m in laid))
            parts.append(row)
        else:
            for name, m in laid:
                parts += [Text(name), m.shown(lang)]
        if not np.isfinite(leaf.contribution).all():
            parts.append(Text(t("fd_nonfinite", lang), style="yellow"))
            continue
        ok = leaf.fd_agrees
        diff = f"{leaf.fd_max_difference:.2e}"
        verdict = "fd_agrees" if ok else "fd_hooked" if call.hooked else "fd_disagrees"
        parts.append(Text(t(verdict, lang, diff=diff), style="green" if ok else "yellow"))
    return Group(*parts)


def _fd_forward(call, lang: str, width: int) -> RenderableType:
    forward = call.forward
    parts = [Text(t("fd_forward_title", lang) + f" — {_call_title(call, lang)}", style="bold"),
             Text(t("fd_forward_at", lang), style="dim")]
    if forward.finite_differences is None:
        return Group(*parts[:1], Text(t("fd_too_large", lang, x=call.output_name)))
    parts += [Text(t("fd_engine", lang)), fitted(forward.computed, width - 2, lang),
              Text(t("fd_central", lang)), fitted(forward.finite_differences, width - 2, lang)]
    ok = forward.fd_agrees
    parts.append(Text(t("fd_agrees" if ok else "fd_disagrees", lang, diff=f"{forward.fd_max_difference:.2e}"),
                      style="green" if ok else "yellow"))
    return Group(*parts)


def render_call(call, symbolic=None, *, lang: str = "en", width: int = WIDTH, calls: int = 1) -> RenderableType:
    """Everything about one backward call, for the command line."""
    inner = width - 4
    if call.error is not None:
        return Group(render_summary(call, lang=lang, width=width))
    if call.refused:
        return Group(render_summary(call, lang=lang, width=width))
    trace = render_steps(call, lang=lang, width=inner - 4, calls=calls)
    stepped = call.forward is not None and call.forward.steps
    return Group(render_summary(call, lang=lang, width=width),
                 Panel(render_jacobian(call, symbolic, lang=lang, width=inner), title=t("panel_jacobian", lang),
                       box=box.ROUNDED),
                 Panel(render_vjp(call, symbolic, lang=lang, width=inner),
                       title=t("panel_jvp" if call.forward else "panel_vjp", lang), box=box.ROUNDED),
                 Panel(render_chain(call, symbolic, lang=lang, width=inner), title=t("panel_chain", lang),
                       box=box.ROUNDED),
                 Panel(render_graph(call, lang=lang, width=inner), title=t("panel_graph", lang), box=box.ROUNDED),
                 Panel(Group(*trace) if trace or not (call.forward or call.several) else
                       Text(t("trace_forward" if call.forward else "trace_several", lang)),
                       title=t("panel_tangents" if stepped else "panel_trace", lang), box=box.ROUNDED),
                 Panel(render_fd_check(call, lang=lang, width=inner), title=t("panel_fd", lang), box=box.ROUNDED))
