# expect: SnippetRejected line 3
import torch
t = torch.tensor(torch.ones(2).numpy().cumsum(0, "O"))
