# expect: SnippetRejected line 7
def k():
    return 1
@type
def f():
    pass
g = f(k, {})
