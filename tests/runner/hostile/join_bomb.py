# expect: ResourceLimitExceeded line 2
s = "".join(["a" * 10**6] * 1000)
