# expect: SnippetRejected line 2
classes = list(map(type, ["C"], [()], [{}]))
