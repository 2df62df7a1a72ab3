# expect: SnippetRejected line 2
exit(3)
