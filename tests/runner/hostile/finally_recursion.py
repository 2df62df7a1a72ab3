# expect: ResourceLimitExceeded line 4
def f(n):
    try:
        f(n + 1)
    finally:
        f(n + 1)
f(0)
