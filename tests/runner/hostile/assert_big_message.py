# expect: AssertionError line 3
a = [[1.5] * 1000] * 1000
assert False, [a] * 1000
