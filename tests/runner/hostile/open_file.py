# expect: SnippetRejected line 2
data = open("/etc/passwd").read()
