# expect: SnippetRejected line 2
d = dict.fromkeys(range(10), 0)
