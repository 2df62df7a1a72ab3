# expect: SnippetRejected line 11
def gen():
    try:
        yield 1
    finally:
        while True:
            pass
g = gen()
next(g)
del g  # closing the generator raises GeneratorExit in it: no finally block of the snippet's runs for it
h = hasattr(1, "__class__")
