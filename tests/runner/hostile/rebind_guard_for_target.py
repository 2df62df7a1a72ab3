# expect: SnippetRejected line 2
for __sg_attr in [1]:
    pass
