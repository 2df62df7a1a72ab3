# expect: SnippetRejected line 3
import torch
a = torch.ones(1000).numpy().mean(dtype="U100000")
