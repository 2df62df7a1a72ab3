# expect: SnippetRejected line 2
breakpoint()
