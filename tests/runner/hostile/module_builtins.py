# expect: SnippetRejected line 3
import torch
b = torch.__builtins__
