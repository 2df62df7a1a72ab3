# expect: ResourceLimitExceeded line 2
r = round(5, -10**9)
