# expect: ResourceLimitExceeded line 6
a = []
for i in range(5000):
    a = [a]
try:
    s = str(a)
except Exception:
    s = "caught"
print(s)
