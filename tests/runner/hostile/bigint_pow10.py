# expect: ResourceLimitExceeded line 2
x = 10**10**10
