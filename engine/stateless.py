"""`torch.func.functional_call` and `stack_module_state`: a module run with tensors given in a dict instead of
its own parameters, which is what lets grad/jacrev/vmap differentiate or map over a model's parameters
(per-sample gradients, ensembles, NTK). The module's own entries are swapped for the call and put back."""
from __future__ import annotations

from engine.methods.shape import stack


def _owner(module, name: str):
    """The submodule holding the dotted `name`, and the attribute's last part."""
    *path, leaf = name.split(".")
    for part in path:
        module = module._modules[part]
    return module, leaf


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """`module(*args, **kwargs)` with each named parameter/buffer replaced by the tensor of that name."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (tuple, list)):
        merged: dict = {}
        for d in dicts:
            for k in d:
                if k in merged:
                    raise ValueError(f"['{k}'] appeared in multiple dictionaries; behavior of functional call is "
                                     "ambiguous")
            merged.update(d)
        dicts = merged
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    swapped = []
    try:
        for name, tensor in dicts.items():
            owner, leaf = _owner(module, name)
            registry = owner._parameters if leaf in owner._parameters else owner._buffers
            if leaf not in registry:
                raise AttributeError(f"'{type(owner).__name__}' object has no attribute '{leaf}'")
            for table in (registry, owner.__dict__):  # a parameter is also an instance attribute (fast lookup)
                if leaf in table:
                    swapped.append((table, leaf, table[leaf]))
                    table[leaf] = tensor
        return module(*args, **(kwargs or {}))
    finally:
        for table, leaf, original in reversed(swapped):
            table[leaf] = original


def stack_module_state(models) -> tuple[dict, dict]:
    """(params, buffers) of same-shaped `models`, each entry their tensors stacked along a new dim 0: fresh leaves
    that require grad where the models' parameters do, ready for `vmap(functional_call…)` over the ensemble."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not all(m.training == models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError(f"stack_module_state: Expected all models to be of the same class, got: "
                           f"{[type(m) for m in models]}")

    def stacked(named):
        names = [n for n, _ in named(models[0])]
        out = {}
        for name in names:
            tensors = [dict(named(m))[name] for m in models]
            leaf = stack([t.detach() for t in tensors]).detach()
            out[name] = leaf.requires_grad_(True) if all(t.requires_grad for t in tensors) else leaf
        return out
    return stacked(lambda m: m.named_parameters()), stacked(lambda m: m.named_buffers())
