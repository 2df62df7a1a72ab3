# expect: KeyError line 4
t = ((1.5,) * 1000,) * 1000
d = {}
x = d[t]
