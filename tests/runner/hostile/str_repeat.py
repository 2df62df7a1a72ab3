# expect: ResourceLimitExceeded line 2
s = "a" * 10**10
