# expect: SnippetRejected line 3
import torch
torch.set_printoptions(precision=10**6)
print(torch.ones(3))
