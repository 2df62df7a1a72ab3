# expect: ResourceLimitExceeded line 4
x = 3
for i in range(100):
    x = x * x
