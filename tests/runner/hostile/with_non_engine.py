# expect: TypeError line 2
with [1, 2]:
    pass
