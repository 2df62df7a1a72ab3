# expect: SnippetRejected line 2
def f(x=().__class__):
    return x
