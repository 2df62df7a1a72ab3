# expect: SnippetRejected line 2
from torch import _FUNCTIONS
