# expect: ResourceLimitExceeded line 3
a = [[1.5] * 1000] * 100
print(a)
