# expect: SnippetRejected line 3
f = lambda: 0
c = f.__code__
