# expect: SnippetRejected line 3
import torch
torch.ones = print
