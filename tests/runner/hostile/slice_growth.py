# expect: ResourceLimitExceeded line 4
a = [0] * 1000
for i in range(20):
    a[:0] = a
