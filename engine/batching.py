"""`torch.func.vmap`: the function runs once per slice of the batch and the results are stacked.

PyTorch runs each op once on a batched tensor; here every slice is taken by indexing (`x[:, b]`) and the results joined
with `stack`, so each op still runs through the one dispatch (and is recorded, when a slice requires grad)
and the numbers are PyTorch's. What the learner sees of vmap itself follows PyTorch: in_dims and out_dims as
int, None or nested per argument, its errors for bad in_dims and mismatched batch sizes, `randomness='error'`
refusing random ops, `chunk_size` accepted (it only bounds PyTorch's memory). Composes with grad, jacrev, …
and with itself, since a transform is just a function called on each slice."""
from __future__ import annotations

import contextlib

from engine import pytree
from engine.methods.shape import stack
from engine.tensor import Tensor

_random_modes: list[str] = []  # the randomness flag of each vmap being run, innermost last


def check_random() -> None:
    """Called by the random factories: under vmap(randomness='error') a random op is refused, as in PyTorch."""
    if _random_modes and _random_modes[-1] == "error":
        raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                           "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
                           "of vmap")


@contextlib.contextmanager
def _randomness(mode: str):
    _random_modes.append(mode)
    try:
        yield
    finally:
        _random_modes.pop()


def _name(func) -> str:
    return getattr(func, "__name__", type(func).__name__)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`torch.func.vmap(func, in_dims, out_dims)`: func mapped over a dim of its inputs."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapped(*args, **kwargs):
        head = f"vmap({_name(func)}, in_dims={in_dims!r}, ...)(<inputs>)"
        if not args:
            raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                             "are trying to vmap over a function with no inputs. The latter is unsupported.")
        if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
            raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                             f"structure of inputs, got: {type(in_dims)}.")
        leaves, spec = pytree.flatten(args)
        prefix = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        dims = pytree.broadcast(prefix, args, f"{head}: in_dims is not compatible with the structure of `inputs`.")
        size = _batch_size(leaves, dims, head)
        outputs = []
        with _randomness(randomness):
            for b in range(size):
                sliced = [x if d is None else x[(slice(None),) * (d % x.ndim) + (b,)] for x, d in zip(leaves, dims)]
                outputs.append(func(*pytree.unflatten(sliced, spec), **kwargs))
        return _stack(outputs, out_dims, func)
    return wrapped


def _batch_size(leaves, dims, head: str) -> int:
    sizes = []
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"{head}: in_dims must be int or None for each input, got {d!r}")
        if not isinstance(x, Tensor):
            raise ValueError(f"{head}: Got in_dim={d} for an input but the input is of type {type(x)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective in_dim")
        if not -x.ndim <= d < x.ndim:
            raise ValueError(f"{head}: Got in_dim={d} for some input, but that input is a Tensor of dimensionality "
                             f"{x.ndim} so expected in_dim to satisfy -{x.ndim} <= in_dim < {x.ndim}.")
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(f"{head}: at least one input must be batched (in_dims must not be None for every input)")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0]


def _stack(outputs, out_dims, func):
    """The per-slice results joined along out_dims (None: the first slice's value, unbatched)."""
    spec = pytree.flatten(outputs[0])[1]
    columns = list(zip(*(pytree.flatten(o)[0] for o in outputs)))
    dims = pytree.broadcast(out_dims, outputs[0],
                            f"vmap({_name(func)}, ...): out_dims is not compatible with the structure of `outputs`.")
    joined = []
    for column, d in zip(columns, dims):
        if d is None:
            joined.append(column[0])
            continue
        if not isinstance(column[0], Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                             f"{type(column[0])}. Did you mean to set out_dims= to None for output?")
        joined.append(stack(column, d))
    return pytree.unflatten(joined, spec)
