# expect: SnippetRejected line 3
# replacing the step guard would switch the step/time limit off
from torch import ones as __sg_tick
while True:
    pass
