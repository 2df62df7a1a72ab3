# expect: ResourceLimitExceeded line 3
for i in range(10**5):
    print("x" * 1000)
