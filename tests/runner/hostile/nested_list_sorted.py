# expect: ResourceLimitExceeded line 5
# sorting compares nested lists in one C call
a = [[0] * 1000] * 1000
b = [[0] * 1000] * 1000
s = sorted([a, b] * 500)
