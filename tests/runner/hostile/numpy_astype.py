# expect: SnippetRejected line 3
import torch
a = torch.ones(10000).numpy().astype("U1000000")
