# expect: ResourceLimitExceeded line 3
a = [1.5] * 10000
s = ("%(a)s" * 3000) % {"a": a}
