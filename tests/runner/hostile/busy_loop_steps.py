# expect: ResourceLimitExceeded line 2
for i in range(10**6):
    x = i * 2
