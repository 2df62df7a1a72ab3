# expect: SnippetRejected line 2
s = str.format("{0.__class__}", 1)
