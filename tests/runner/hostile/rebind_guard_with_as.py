# expect: SnippetRejected line 3
import torch
with torch.no_grad() as __builtins__:
    pass
