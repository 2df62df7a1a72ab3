# expect: SnippetRejected line 3
import torch
class MyTensor(torch.Tensor):
    def forward(self):
        return 1
