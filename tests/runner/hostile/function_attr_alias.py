# expect: AttributeError line 4
def f():
    return 1
g = f.func_globals
