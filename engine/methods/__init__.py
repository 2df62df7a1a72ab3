"""`Tensor`'s methods by group, each a class whose members `engine.registry` copies onto `Tensor` (the class body
in `engine.tensor` holds only the data and the Python protocol). Each method but the autograd attributes
(`autograd`: grad, grad_fn, backward, hooks, detach) is an argument parser that runs an op record through the one
dispatch (`engine.tensor._run`)."""
from __future__ import annotations

from engine.methods.autograd import AutogradMethods
from engine.methods.conversion import ConversionMethods
from engine.methods.indexing import IndexingMethods
from engine.methods.inplace import InplaceMethods
from engine.methods.linalg import LinalgMethods
from engine.methods.pointwise import PointwiseMethods
from engine.methods.reductions import ReductionsMethods
from engine.methods.shape import ShapeMethods

GROUPS = (AutogradMethods, PointwiseMethods, ReductionsMethods, LinalgMethods, ShapeMethods, IndexingMethods, InplaceMethods,
          ConversionMethods)
