# expect: ResourceLimitExceeded line 2
a = list(range(10**9))
