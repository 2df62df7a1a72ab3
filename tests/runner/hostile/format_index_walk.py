# expect: SnippetRejected line 3
import torch
s = "{0[0]}".format([torch])
