# expect: SnippetRejected line 6
import torch
import torch.autograd.forward_ad as fwAD
with fwAD.dual_level():
    u = fwAD.unpack_dual(fwAD.make_dual(torch.ones(2), torch.ones(2)))
    fields = u._asdict()
