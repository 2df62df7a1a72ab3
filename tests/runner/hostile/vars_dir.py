# expect: SnippetRejected line 3
import torch
names = dir(torch)
