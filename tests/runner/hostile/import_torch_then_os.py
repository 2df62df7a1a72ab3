# expect: SnippetRejected line 3
import torch
import subprocess as torch2
