# expect: ResourceLimitExceeded line 3
a = [[1.5] * 1000] * 1000
s = max([a, a], key=str)
