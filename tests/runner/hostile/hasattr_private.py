# expect: SnippetRejected line 3
import torch
h = hasattr(torch, "_forward_to_method")
