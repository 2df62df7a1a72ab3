"""`torch.nn` modules for a training loop: Parameter, Module, Linear, Embedding, Sequential, ModuleList, Flatten
(activations and dropout in `engine.nn.activation`, losses in `engine.nn.loss`).

Initial weights come from the engine's own random stream (`torch.manual_seed` makes them reproducible),
not PyTorch's: lessons that compare numbers set weights explicitly, e.g.
`with torch.no_grad(): layer.weight.copy_(torch.tensor(...))`.
"""
from __future__ import annotations

import math
from collections import OrderedDict, namedtuple

import numpy as np

from engine.creation import rand, randn
from engine.grad_mode import no_grad
from engine.nn import functional as F
from engine.nn.hooks import ModuleHooks
from engine.tensor import _TENSOR_TYPES, Tensor, guard_work


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns (PyTorch's repr when every key matched)."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"


def _quoted(keys) -> str:
    return ", ".join(f'"{k}"' for k in keys)


class Parameter(Tensor):
    """A Tensor that is a module's parameter: a leaf that requires grad, found by `Module.parameters()`."""

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = Tensor._make(np.zeros((0,), dtype=np.float32))
        return cls._make(data._data, bool(requires_grad))

    def __init__(self, data=None, requires_grad=True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


_TENSOR_TYPES.add(Parameter)


class Module:
    """Base class of every layer and model: `__call__` runs `forward`; parameters and submodules assigned
    as attributes are registered (in order) for `parameters()`, `named_parameters()`, `zero_grad()`."""

    def __init__(self, *args, **kwargs) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_hooks", ModuleHooks())

    def __setattr__(self, name: str, value) -> None:
        if "_parameters" not in self.__dict__:  # a subclass's __init__ that forgot super().__init__(), as PyTorch
            if isinstance(value, (Parameter, Module)):
                kind = "parameters" if isinstance(value, Parameter) else "module"
                raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        params, modules = self.__dict__["_parameters"], self.__dict__["_modules"]
        if isinstance(value, Parameter):
            params[name] = value
            modules.pop(name, None)
        elif isinstance(value, Module):
            modules[name] = value
            params.pop(name, None)
        elif name in self.__dict__["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (torch.Tensor or None "
                                "expected)")
            self.__dict__["_buffers"][name] = value
            return
        elif name in params:
            if value is not None and not isinstance(value, Parameter):
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' (torch.nn.Parameter "
                                "or None expected)")
            params[name] = value
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for registry in (self.__dict__["_parameters"], self.__dict__["_buffers"], self.__dict__["_modules"]):
            if name in registry:
                del registry[name]
                return
        object.__delattr__(self, name)

    def __getattr__(self, name: str):
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        guard_work()  # a tree of shared modules calls each one once per path: the caller's guard may stop it
        hooks = self.__dict__.get("_hooks")
        if not hooks:
            return self.forward(*args, **kwargs)
        return hooks.call(self, args, kwargs)

    # --- hooks (engine.nn.hooks): each returns a RemovableHandle ---
    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """`hook(module, args)` (or `(module, args, kwargs)`) before forward; what it returns replaces args
        (or `(args, kwargs)`)."""
        return self._hooks.add(self._hooks.forward_pre, hook, prepend=prepend, with_kwargs=with_kwargs)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """`hook(module, args, output)` (or `(module, args, kwargs, output)`) after forward; what it returns
        replaces the output. `always_call`: called even when forward raised."""
        return self._hooks.add(self._hooks.forward, hook, prepend=prepend, with_kwargs=with_kwargs,
                               always_call=always_call)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """`hook(module, grad_output)` when the gradient reaches the module's outputs; may return a new
        grad_output."""
        return self._hooks.add(self._hooks.backward_pre, hook, prepend=prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """`hook(module, grad_input, grad_output)` when the gradient leaves for the module's inputs; may return
        a new grad_input."""
        return self._hooks.add(self._hooks.backward, hook, prepend=prepend)

    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        """Each module once (PyTorch's memo): a module shared by several parents, or by a cycle, is visited once,
        so walking a tree costs its distinct modules, not its paths."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, p in module._parameters.items():
                if p is None or p in memo:
                    continue
                if remove_duplicate:
                    memo.add(p)
                yield (f"{module_prefix}.{name}" if module_prefix else name), p

    def parameters(self, recurse: bool = True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """A tensor the module keeps (running statistics, masks) that is not a parameter: not trained, but in
        `state_dict()` unless `persistent=False`."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if (hasattr(self, name) or name in self._modules) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (torch Tensor or None "
                            "required)")
        self._buffers[name] = tensor
        (self._non_persistent.discard if persistent else self._non_persistent.add)(name)

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, b in module._buffers.items():
                if b is None or b in memo:
                    continue
                if remove_duplicate:
                    memo.add(b)
                yield (f"{module_prefix}.{name}" if module_prefix else name), b

    def buffers(self, recurse: bool = True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def _state(self, prefix: str = ""):
        """(dotted name, tensor) of what `state_dict` holds, in PyTorch's order: each module's parameters, then its
        persistent buffers, then its children's."""
        for module_prefix, module in self.named_modules(prefix=prefix, remove_duplicate=False):
            dotted = f"{module_prefix}." if module_prefix else ""
            for name, p in module._parameters.items():
                if p is not None:
                    yield dotted + name, p
            for name, b in module._buffers.items():
                if b is not None and name not in module._non_persistent:
                    yield dotted + name, b

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def apply(self, fn):
        """Call `fn` on every submodule, children first, then on this module, and return self (PyTorch's weight
        initialisation: `model.apply(init_weights)`). Like PyTorch, a module shared by several parents is visited
        under each: each visit counts as work for the caller's guard."""
        for module in self.children():
            module.apply(fn)
        guard_work()
        fn(self)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p._grad = None
                else:
                    p._grad = Tensor._make(np.zeros_like(p._grad._data))

    def train(self, mode: bool = True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    # --- state_dict / load_state_dict (added by the core branch) ---
    def state_dict(self, *, destination=None, prefix: str = "", keep_vars: bool = False):
        """`module.state_dict()`: every parameter by its dotted name, in registration order; detached (on the
        same storage) unless `keep_vars`."""
        out = OrderedDict() if destination is None else destination
        for name, p in self._state(prefix.rstrip(".")):
            out[name] = p if keep_vars else p.detach()
        return out

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy the tensors of `state_dict` into the parameters of the same names (PyTorch's errors for missing,
        unexpected and mis-shaped entries); returns the missing and unexpected keys."""
        own = dict(self._state())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for name, p in own.items():
            if name not in state_dict:
                continue
            value = state_dict[name]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{name}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value)}")
            elif tuple(value.shape) != tuple(p.shape):
                errors.append(f"size mismatch for {name}: copying a param with shape {value.shape} from checkpoint, "
                              f"the shape in current model is {p.shape}.")
        if strict:
            if unexpected:
                errors.insert(0, f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
            if missing:
                errors.insert(0, f"Missing key(s) in state_dict: {_quoted(missing)}. ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        with no_grad():
            for name, p in own.items():
                if name in state_dict:
                    p.copy_(state_dict[name])
        return _IncompatibleKeys(missing, unexpected)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        """PyTorch's layout: `extra_repr()` (a str, its lines as items) and the children, indented. A module shared by
        several parents is shown under each, as in PyTorch; each one shown counts as work for the caller's guard."""
        guard_work()
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        lines = extra_lines + child_lines
        if len(extra_lines) == 1 and not child_lines:
            return f"{type(self).__name__}({extra_lines[0]})"
        return f"{type(self).__name__}(" + ("\n  " + "\n  ".join(lines) + "\n" if lines else "") + ")"


class Linear(Module):
    """`y = x @ weight.T + bias`; weight (out_features, in_features) drawn uniformly in ±1/sqrt(in_features)
    from the engine's stream (not PyTorch's numbers: set weights explicitly to compare)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1 / math.sqrt(in_features) if in_features else 0
        self.weight = Parameter(rand(out_features, in_features) * (2 * bound) - bound)
        self.bias = Parameter(rand(out_features) * (2 * bound) - bound) if bias else None
        if not bias:
            self._parameters["bias"] = None

    def forward(self, input):  # noqa: A002
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Embedding(Module):
    """A lookup table: `emb(indices)` gives the rows of `weight` (num_embeddings, embedding_dim), drawn from N(0, 1)
    on the engine's stream (set them explicitly to compare with PyTorch); the `padding_idx` row starts at zero and
    gets no gradient."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False, _weight=None,
                 _freeze: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse = max_norm, norm_type, scale_grad_by_freq, sparse
        weight = randn(num_embeddings, embedding_dim) if _weight is None else _weight
        if _weight is None and padding_idx is not None:
            with no_grad():
                weight[padding_idx].fill_(0)
        self.weight = Parameter(weight, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx: int | None = None, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False):
        """An Embedding whose weight is `embeddings` (a 2-D tensor), frozen unless `freeze=False`."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, _weight=embeddings,
                   _freeze=freeze)

    def forward(self, input):  # noqa: A002
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text


class Sequential(Module):
    """Modules applied in order: `Sequential(nn.Linear(2, 3), nn.ReLU())`."""

    def __init__(self, *modules) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self._modules[name] = m
        else:
            for i, m in enumerate(modules):
                self._modules[str(i)] = m

    def forward(self, input):  # noqa: A002
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return Sequential(*items[index])
        return items[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class ModuleList(Module):
    """Modules held in a list (`nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])`): registered, so their
    parameters are the model's, but called by the learner's own `forward`."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def append(self, module):
        self._modules[str(len(self._modules))] = module
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        self.extend(items)

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(items[index])
        return items[index]

    def __setitem__(self, index: int, module) -> None:
        self._modules[list(self._modules)[index]] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __repr__(self) -> str:
        """PyTorch's: a run of children that print alike is one line, `(0-2): 3 x Linear(...)`."""
        guard_work()
        lines, items = [], [(name, repr(m).replace("\n", "\n  ")) for name, m in self._modules.items()]
        i = 0
        while i < len(items):
            j = i
            while j + 1 < len(items) and items[j + 1][1] == items[i][1]:
                j += 1
            label = items[i][0] if j == i else f"{items[i][0]}-{items[j][0]}"
            lines.append(f"({label}): " + (items[i][1] if j == i else f"{j - i + 1} x {items[i][1]}"))
            i = j + 1
        return "ModuleList(" + ("\n  " + "\n  ".join(lines) + "\n" if lines else "") + ")"


class Flatten(Module):
    """`x.flatten(start_dim, end_dim)` as a layer (by default everything but the batch dimension)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):  # noqa: A002
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
