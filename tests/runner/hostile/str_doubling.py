# expect: ResourceLimitExceeded line 4
s = "ab"
for i in range(40):
    s += s
