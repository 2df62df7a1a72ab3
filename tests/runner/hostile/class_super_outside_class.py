# expect: SnippetRejected line 3
def f(self):
    return super().forward
