# expect: SnippetRejected line 3
def gen():
    yield 1
