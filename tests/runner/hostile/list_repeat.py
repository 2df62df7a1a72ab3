# expect: ResourceLimitExceeded line 2
a = [0] * 10**9
