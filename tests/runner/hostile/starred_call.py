# expect: ResourceLimitExceeded line 2
print(*range(10**9))
