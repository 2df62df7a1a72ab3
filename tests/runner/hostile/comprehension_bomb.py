# expect: ResourceLimitExceeded line 2
rows = [[0] * 10**5 for i in range(10**5)]
