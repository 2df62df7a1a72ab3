# expect: ResourceLimitExceeded line 2
x = 2**10**10
