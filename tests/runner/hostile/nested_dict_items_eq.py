# expect: ResourceLimitExceeded line 6
# dict views compare their values: a view is a nested container like any other
a = [[[0] * 1000] * 1000] * 100
b = [[[0] * 1000] * 1000] * 100
d, e = {1: a}, {1: b}
c = d.items() == e.items()
