# expect: SnippetRejected line 3
import torch
print("x", file=torch)
