# expect: SnippetRejected line 2
class Big(int):
    def forward(self):
        return 1
