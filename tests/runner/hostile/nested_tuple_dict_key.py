# expect: ResourceLimitExceeded line 5
t = ((0,) * 1000,) * 1000
s = set([t, t])
d = {}
d[(t,) * 1000] = 1
