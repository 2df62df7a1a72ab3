# expect: SnippetRejected line 2
import torch.runner.guards as g
