# expect: SnippetRejected line 5
def gen():
    yield 1
g = gen()
frame = g.gi_frame
