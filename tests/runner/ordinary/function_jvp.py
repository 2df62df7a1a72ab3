# The forward-mode AD tutorial: a custom Function with setup_context and jvp
import torch
import torch.autograd.forward_ad as fwAD


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(foo):
        result = torch.exp(foo)
        return result

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.result = output

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


class Sin(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_forward(x)
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def jvp(ctx, x_t):
        x, = ctx.saved_tensors
        return x.cos() * x_t

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * x.cos()


fn = Fn.apply
primal = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.double, requires_grad=True)
tangent = torch.tensor([[1.0, 2.0], [-1.0, 0.5]], dtype=torch.double)

with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent
    s = fwAD.unpack_dual(Sin.apply(dual_input)).tangent
print(jvp)
print(s)
print(torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True, check_backward_ad=False,
                               check_undefined_grad=False, check_batched_grad=False))
print(torch.autograd.gradcheck(Sin.apply, (primal,), check_forward_ad=True))
y = Sin.apply(primal).sum()
y.backward()
print(primal.grad)
