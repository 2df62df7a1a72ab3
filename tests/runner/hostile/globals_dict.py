# expect: SnippetRejected line 2
g = globals()
