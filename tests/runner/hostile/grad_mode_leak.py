# expect: SnippetRejected line 4
import torch
torch.set_grad_enabled(False)
torch.set_printoptions(precision=10**6)
