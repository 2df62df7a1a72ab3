# expect: ResourceLimitExceeded line 2
a = list(zip(range(10**6), range(10**6)))
