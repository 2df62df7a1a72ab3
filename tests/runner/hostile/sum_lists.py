# expect: SnippetRejected line 2
flat = sum([[1] * 1000] * 1000, [])
