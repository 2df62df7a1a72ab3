# expect: ResourceLimitExceeded line 2
s = "%*d" % (10**9, 1)
