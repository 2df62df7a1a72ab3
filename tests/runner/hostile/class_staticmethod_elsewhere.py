# expect: SnippetRejected line 2
f = staticmethod(print)
