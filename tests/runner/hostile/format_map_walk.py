# expect: SnippetRejected line 2
s = "{a.__class__}".format_map({"a": 1})
