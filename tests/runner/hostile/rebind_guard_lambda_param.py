# expect: SnippetRejected line 2
f = lambda __sg_call=1: __sg_call
