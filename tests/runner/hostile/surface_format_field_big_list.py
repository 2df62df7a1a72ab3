# expect: ResourceLimitExceeded line 4
import torch
big = [[torch.ones(1000)] * 1000] * 1000
text = "{}".format(big)
