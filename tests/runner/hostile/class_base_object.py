# expect: SnippetRejected line 3
x = 1
class Plain(object):
    def forward(self):
        return 1
