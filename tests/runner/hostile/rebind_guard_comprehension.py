# expect: SnippetRejected line 2
a = [1 for __sg_tick in range(3)]
