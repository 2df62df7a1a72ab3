# expect: SnippetRejected line 3
import torch
class Config:
    act = torch.relu
