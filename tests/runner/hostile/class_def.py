# expect: SnippetRejected line 2
class A(Exception):
    pass
