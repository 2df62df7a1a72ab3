# expect: ResourceLimitExceeded line 2
s = "{:{}}".format(1, 10**9)
