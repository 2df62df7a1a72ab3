# expect: SnippetRejected line 3
# an alias that binds __builtins__ would make the engine package the builtins of later functions
import torch as __builtins__
def f():
    return _forward_to_method("system")
g = f()
