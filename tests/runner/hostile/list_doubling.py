# expect: ResourceLimitExceeded line 4
a = [1]
for i in range(40):
    a.extend(a)
