# expect: SnippetRejected line 5
try:
    raise ValueError(print, 1)
except ValueError as e:
    p = e.args[0].__self__
