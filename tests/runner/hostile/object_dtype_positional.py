# expect: SnippetRejected line 3
import torch
a = torch.ones(3).numpy().sum(None, "O")
