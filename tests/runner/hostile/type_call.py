# expect: SnippetRejected line 3
x = 1
t = type(x)
