# expect: SnippetRejected line 3
import torch
f = getattr(torch, "tensor")
