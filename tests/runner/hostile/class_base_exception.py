# expect: SnippetRejected line 2
class Oops(Exception):
    pass
raise Oops()
