# expect: ResourceLimitExceeded line 2
s = f"{1:{10**9}}"
