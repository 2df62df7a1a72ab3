# expect: SnippetRejected line 4
x = 1
t = type(x)
c = type("C", (), {})
