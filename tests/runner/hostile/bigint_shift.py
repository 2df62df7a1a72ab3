# expect: ResourceLimitExceeded line 2
x = 1 << 10**10
