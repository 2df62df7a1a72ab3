# expect: SnippetRejected line 3
import torch
g = torch._forward_to_method
