# expect: SnippetRejected line 3
def f():
    global x
    x = 1
