# expect: ResourceLimitExceeded line 4
a = [[[0] * 1000] * 1000]
n = [[[[0] * 1000] * 1000]] * 1000
c = a in n
