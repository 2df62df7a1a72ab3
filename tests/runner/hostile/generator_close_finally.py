# expect: ResourceLimitExceeded line 10
def gen():
    try:
        yield 1
    finally:
        while True:
            pass
while True:
    g = gen()
    next(g)
    del g
