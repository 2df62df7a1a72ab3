"""A graph is freed by reference counting as soon as nothing holds it, as PyTorch's is: no reference cycle
between a tensor and the node that saved it, so long training loops do not wait for the garbage
collector (which also made every op slower)."""
import gc
import weakref

import engine


def test_graph_with_saved_outputs_is_freed_without_the_collector():
    x = engine.ones(3, requires_grad=True)
    gc.disable()
    try:
        y = x * 2
        nodes = []
        for _ in range(20):
            y = engine.tanh(y).exp().sigmoid() * 0.5  # tanh, exp and sigmoid save their output
            nodes.append(weakref.ref(y.grad_fn))
        y.sum().backward()
        del y
        assert [n() for n in nodes] == [None] * len(nodes)
    finally:
        gc.enable()


def test_unused_graph_is_freed_without_the_collector():
    x = engine.ones(3, requires_grad=True)
    gc.disable()
    try:
        y = x.exp()
        node = weakref.ref(y.grad_fn)
        y.mul_(2)  # the in-place op's node saves the old value and takes over the output
        second = weakref.ref(y.grad_fn)
        del y
        assert node() is None and second() is None
    finally:
        gc.enable()
