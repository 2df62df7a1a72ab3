# expect: ResourceLimitExceeded line 3
big = ["x" * 10**5] * 10**4
s = str(KeyError(KeyError(big)))
