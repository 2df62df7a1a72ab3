# expect: SnippetRejected line 2
class Meta(type):
    def forward(cls):
        return 1
