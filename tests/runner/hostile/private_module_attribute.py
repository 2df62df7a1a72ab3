# expect: SnippetRejected line 3
import torch.nn.functional as F
a = F._apply
