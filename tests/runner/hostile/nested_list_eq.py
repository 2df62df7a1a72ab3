# expect: ResourceLimitExceeded line 9
def deep():
    x = [0] * 1000
    for i in range(3):
        x = [x] * 1000
    return x
a = deep()
b = deep()
c = a == b
