# expect: ResourceLimitExceeded line 2
s = sorted([10**9], key="a".center)
