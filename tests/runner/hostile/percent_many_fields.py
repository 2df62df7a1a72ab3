# expect: ResourceLimitExceeded line 3
a = [1.5] * 1000
s = ("%s" * 3000) % ((a,) * 3000)
