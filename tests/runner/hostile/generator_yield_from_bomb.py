# expect: ResourceLimitExceeded line 3
def gen():
    yield from iter(int, 1)
total = sum(gen())
