# expect: ResourceLimitExceeded line 3
r = range(10**6)
a, *rest = [*r, *r, *r]
