# expect: SnippetRejected line 3
import torch
@"{0.__class__.__mro__}".format
def f(x):
    return x
