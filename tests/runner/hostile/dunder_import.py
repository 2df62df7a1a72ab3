# expect: SnippetRejected line 2
os = __import__("os")
