# expect: ResourceLimitExceeded line 3
try:
    while True:
        pass
finally:
    while True:
        pass
