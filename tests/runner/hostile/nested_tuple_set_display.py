# expect: ResourceLimitExceeded line 5
t = (0,) * 1000
for i in range(3):
    t = (t,) * 1000
s = {t}
