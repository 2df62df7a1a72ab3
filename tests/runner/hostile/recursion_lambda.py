# expect: ResourceLimitExceeded line 2
f = lambda n: f(n + 1)
f(0)
