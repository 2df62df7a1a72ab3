# expect: SnippetRejected line 4
# an object array with a str reaching sympy's sympify (which evaluates strings) through exp
import torch
a = torch.ones(3).numpy().cumsum(dtype="O")
a[0] = "__import__('os').system('touch pwned')"
print(torch.nn.functional.binary_cross_entropy_with_logits(a, torch.ones(3)))
