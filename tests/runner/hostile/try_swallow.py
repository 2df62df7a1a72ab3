# expect: SnippetRejected line 2
try:
    while True:
        pass
except BaseException:
    pass
