# expect: ResourceLimitExceeded line 2
s = "%999999999d" % 1
