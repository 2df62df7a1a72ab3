# expect: ResourceLimitExceeded line 3
def f(n):
    return f(n + 1)
f(0)
