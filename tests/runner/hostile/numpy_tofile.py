# expect: SnippetRejected line 4
import torch
x = torch.ones(3)
x.numpy().tofile("p")
