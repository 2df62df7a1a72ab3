# expect: SnippetRejected line 3
x = 1
class Plain(object, int):
    def forward(self):
        return 1
