# expect: ResourceLimitExceeded line 2
s = ("a" * 10**5).replace("a", "a" * 10**5)
