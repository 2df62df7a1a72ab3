# expect: ResourceLimitExceeded line 2
xs = list(iter("a".center(10**9).count, -1))
