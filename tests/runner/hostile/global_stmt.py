# expect: SnippetRejected line 3
def f():
    global __builtins__
    __builtins__ = {}
