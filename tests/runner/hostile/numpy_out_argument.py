# expect: SnippetRejected line 5
# out= writes into another tensor's memory behind its version counter
import torch
x = torch.ones(3)
torch.zeros(3).numpy().cumsum(out=x.numpy())
