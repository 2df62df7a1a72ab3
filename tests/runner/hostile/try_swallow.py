# expect: ResourceLimitExceeded line 3
try:
    while True:
        pass
except:
    pass
print("the limit was swallowed")
