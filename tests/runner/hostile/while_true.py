# expect: ResourceLimitExceeded line 2
while True:
    pass
