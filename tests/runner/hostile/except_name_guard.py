# expect: SnippetRejected line 4
try:
    x = 1 / 0
except ZeroDivisionError as __sg_tick:
    pass
