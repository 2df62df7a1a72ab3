# expect: ResourceLimitExceeded line 4
def f():
    try:
        while True:
            pass
    finally:
        return 1
f()
print("the limit was swallowed")
