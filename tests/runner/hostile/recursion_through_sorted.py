# expect: ResourceLimitExceeded line 3
def f(v):
    return sorted([v, v], key=f)
f(1)
