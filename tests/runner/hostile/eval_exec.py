# expect: SnippetRejected line 2
eval("1 + 1")
