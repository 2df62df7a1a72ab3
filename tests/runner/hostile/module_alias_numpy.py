# expect: SnippetRejected line 3
import torch as t
np = t.tensor.__globals__
