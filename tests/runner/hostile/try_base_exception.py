# expect: SnippetRejected line 5
try:
    while True:
        pass
except BaseException:
    pass
