# expect: SnippetRejected line 2
import torch.nn.functional as __sg_call
x = 1
