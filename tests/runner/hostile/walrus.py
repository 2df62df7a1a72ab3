# expect: SnippetRejected line 2
print(y := 5)
