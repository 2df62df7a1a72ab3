# expect: ResourceLimitExceeded line 4
try:
    try:
        while True:
            pass
    except undefined_name:
        pass
except Exception:
    pass
print("the limit was replaced by a NameError and swallowed")
