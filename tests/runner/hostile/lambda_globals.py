# expect: SnippetRejected line 3
f = lambda: 0
g = f.__globals__
