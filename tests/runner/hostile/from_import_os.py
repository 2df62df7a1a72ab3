# expect: SnippetRejected line 2
from os import system
