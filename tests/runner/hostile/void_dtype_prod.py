# expect: SnippetRejected line 3
import torch
a = torch.ones(4).numpy().prod(dtype="V1000000")
