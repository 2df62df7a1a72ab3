# expect: SnippetRejected line 3
x = 1
print(f"{x.__class__}")
