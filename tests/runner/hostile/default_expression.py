# expect: SnippetRejected line 2
def f(x=[].append):
    return x
