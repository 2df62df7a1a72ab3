# expect: SnippetRejected line 2
import os
