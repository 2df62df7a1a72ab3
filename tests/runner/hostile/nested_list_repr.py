# expect: ResourceLimitExceeded line 5
a = []
for i in range(90000):
    a = [a]
print(a)
