# expect: ResourceLimitExceeded line 2
total = sum(x for x in range(10**6) for y in range(10**6))
