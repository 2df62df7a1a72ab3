# expect: SnippetRejected line 3
import torch
torch.float32.name = "float64"
