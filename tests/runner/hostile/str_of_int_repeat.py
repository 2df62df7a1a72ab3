# expect: ResourceLimitExceeded line 2
s = str(1) * 10**9
