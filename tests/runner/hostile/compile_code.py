# expect: SnippetRejected line 2
code = compile("1", "f", "eval")
