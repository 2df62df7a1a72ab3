"""Nested tuples, lists and dicts of tensors (PyTorch's pytrees) flattened to a list of leaves and rebuilt:
what lets `torch.func` transforms take a dict of parameters (`grad(loss)(params)`) and `vmap` map over one."""
from __future__ import annotations


def flatten(value) -> tuple[list, object]:
    """The leaves of `value` in order, and a spec that `unflatten` rebuilds the same structure from."""
    if isinstance(value, (tuple, list)):
        parts = [flatten(v) for v in value]
        return [leaf for leaves, _ in parts for leaf in leaves], (type(value), None, [s for _, s in parts])
    if isinstance(value, dict):
        parts = [flatten(v) for v in value.values()]
        return [leaf for leaves, _ in parts for leaf in leaves], (dict, list(value), [s for _, s in parts])
    return [value], None


def unflatten(leaves, spec):
    """The structure described by `spec` with `leaves` (an iterable consumed in order) in its places."""
    return _build(iter(leaves), spec)


def _build(it, spec):
    if spec is None:
        return next(it)
    kind, keys, children = spec
    values = [_build(it, child) for child in children]
    if kind is dict:
        return dict(zip(keys, values))
    return kind(values)


def broadcast(prefix, value, what: str) -> list:
    """One entry of `prefix` per leaf of `value`: a leaf of `prefix` (an int, None) applies to the whole subtree
    of `value` under it, as PyTorch's in_dims and out_dims do. ValueError (with `what`) where they do not fit."""
    if isinstance(prefix, (tuple, list, dict)):
        same = (isinstance(value, (tuple, list)) and isinstance(prefix, (tuple, list)) and len(prefix) == len(value)
                or isinstance(value, dict) and isinstance(prefix, dict) and set(prefix) == set(value))
        if not same:
            raise ValueError(what)
        pairs = [(prefix[k], value[k]) for k in value] if isinstance(prefix, dict) else zip(prefix, value)
        return [d for p, v in pairs for d in broadcast(p, v, what)]
    return [prefix] * len(flatten(value)[0])
