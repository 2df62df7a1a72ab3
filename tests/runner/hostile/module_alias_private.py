# expect: SnippetRejected line 4
import torch
x = torch
y = x.creation
