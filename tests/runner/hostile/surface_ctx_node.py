# expect: SnippetRejected line 6
import torch
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return ctx._node
    @staticmethod
    def backward(ctx, g):
        return g
