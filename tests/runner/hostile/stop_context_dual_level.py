# expect: ResourceLimitExceeded line 6
import torch.autograd.forward_ad as fwAD
try:
    with fwAD.dual_level():
        fwAD.exit_dual_level()
        while True:
            pass
except Exception:
    pass
print("the limit was swallowed")
