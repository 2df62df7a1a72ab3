"""The answer probes: ways a learner writes a right or a wrong answer to real steps, each with the verdict it must
get ("correct", "close", "wrong") or the message key of its refusal. The printouts are PyTorch's own (`print(x)`,
`repr`, `print(x.grad)` of real tensors), so their spacing, line breaks and suffixes are exactly torch 2.13's.

Steps: bundled lessons, and `fixtures/extremes.toml` for the answers no bundled step has (tiny, huge, float64,
inf and -0., a bool mask)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Probe:
    target: str   # "lesson-id:step-id"
    typed: str    # what reaches the field (typed or pasted) or the command line
    verdict: str  # "correct" | "close" | "wrong" | an `AnswerFormatError` key

    @property
    def refused(self) -> bool:
        return self.verdict not in ("correct", "close", "wrong")


MEAN = "trying-autograd:mean-grad"                     # (2, 3): 7/6 … 2
PAIR = "tensor-gradient-jacobian:small-backward"       # (2,): [4, 2]
TALL = "matmul-gradients:w-grad-ones"                  # (3, 2): [[5, 5], [7, 7], [9, 9]]
SQUARE = "matmul-gradients:square-self-product"        # (2, 2): [[4, 2], [6, 4]], not symmetric
EYE = "tensor-gradient-jacobian:eye-first-call"        # (5, 5): 4 on the diagonal, 2 elsewhere
LOSS = "training-loop:loss-item"                       # a Python number, 4.0
SCALAR = "broadcasting-gradients:scalar-tensor"        # 0-d tensor, 21
ONE = "training-loop:forgot-zero-grad"                 # (1, 1): [[3.]]
WEIGHT = "training-loop:weight-grad"                   # (1, 2) gradient of a Parameter: [[-2, 2]]
NONE = "training-loop:grad-after-zero-grad"            # None
FLAG = "trying-autograd:requires-grad-default"         # False
NAN = "non-differentiable-points:where-nan"            # [nan, nan, 0.25]
SOFTMAX = "softmax-jacobian:one-probability"           # [0.0819…, -0.0220…, -0.0599…]
ZEROS = "two-losses:generator-overwrites"              # [0., 0.]
FLAGS_TEXT = "function-several-inputs:needs-input-grad"  # the text '(True, False, False)'
THIRDS = "repeated-indices:uneven-micro-batches"       # 62/3
TINY = "probe-extremes:tiny"                           # [1e-05, 1e-05] (float32)
HUGE = "probe-extremes:huge"                           # [123456., 123456.]
DOUBLE = "probe-extremes:double"                       # [2., 4.] float64
EDGES = "probe-extremes:edges"                         # [inf, -0., 1.]
MASK = "probe-extremes:mask"                           # tensor([False, True])

_MEAN = torch.tensor([[7 / 6, 4 / 3, 3 / 2], [5 / 3, 11 / 6, 2]])


def _printouts(value: torch.Tensor) -> list[str]:
    """How PyTorch shows `value` to a learner: printed, as a leaf, as a result, in float64, as a Parameter, as
    numpy prints it."""
    leaf = value.clone().requires_grad_(True)
    return [str(value), repr(value), str(leaf), str(leaf * 1), str(value.double()), str(torch.nn.Parameter(value)),
            repr(value.numpy()), str(value.numpy())]


_PROBES: list[tuple[str, str, list[str]]] = [
    (MEAN, "correct", [*_printouts(_MEAN), "[[7/6, 4/3, 3/2], [5/3, 11/6, 2]]", "[[7/6,4/3,3/2],[5/3,11/6,2]]",
                       "  [[7/6, 4/3, 3/2],\n\n   [5/3, 11/6, 2],]  ", "[[7/6, 4/3, 3/2,], [5/3, 11/6, 2,],]",
                       "［［７/６，４/３，３/２］，［５/３，１１/６，２］］", "[[7/6、4/3、3/2]、[5/3、11/6、2]]",
                       "（（7/6, 4/3, 3/2）, （5/3, 11/6, 2））", "[[1.1667, 1.3333, 1.5], [1.6667, 1.8333, 2]]",
                       "tensor1 / 6 + 1", "\x1b[32m" + str(_MEAN) + "\x1b[0m", "\x1b[200~" + str(_MEAN) + "\x1b[201~",
                       str(_MEAN).replace("\n", "\r\n")]),
    (MEAN, "close", ["[[1.17, 1.33, 1.5], [1.67, 1.83, 2]]", "[[1.2, 1.3, 1.5], [1.7, 1.8, 2]]"]),
    (MEAN, "wrong", ["[[1, 2, 3], [4, 5, 6]]", str(-_MEAN), str(_MEAN + 1), str(_MEAN / 6), str(_MEAN * 6), "None",
                     "[[7/6, 4/3, 3/2], [5/3, 11/6, 3]]"]),
    (MEAN, "answer_wrong_shape", [str(_MEAN.flatten()), str(_MEAN[:1]), "[[7/6, 4/3], [3/2, 5/3]]"]),
    (MEAN, "answer_transposed", [str(_MEAN.T), "[[7/6, 5/3], [4/3, 11/6], [3/2, 2]]"]),
    (MEAN, "answer_unclosed", ["[[1, 2, 3], [4, 5, 6]", "tensor([[1., 2., 3.],", "[" * 500]),
    (MEAN, "answer_unmatched", ["[[1, 2, 3], [4, 5, 6]]]", ")"]),
    (MEAN, "answer_too_long", ["[" + "1, " * 33_000 + "1]", "7" * 100_000]),
    (MEAN, "answer_abbreviated", ["tensor([[1.1667, ..., 1.5000], [1.6667, ..., 2.0000]])", "[[7/6, …], [5/3, …]]"]),
    (MEAN, "answer_empty", ["", "   \n\t ", "\x1b[0m\x00\x07"]),
    (MEAN, "answer_syntax", ["[[1, 2, 3], [4, 5, 6]] x", "[[1,, 2]]", "🙂", "[[1, 2, 3], [4, 5, 6]];"]),
    (MEAN, "answer_unknown_name", ["x / 2", "ｘ + 1", "日本語", "a" * 15_000, "tensor1 + " + "b" * 5_000]),
    (MEAN, "answer_formula_forbidden", ["tensor1.grad", "tensor1.grad * 1"]),
    (MEAN, "answer_expected_numbers", ["True", "false", "null"]),
    (MEAN, "answer_missing_comma", ["[[7/6, 4/3, 3/2] [5/3, 11/6, 2]]"]),
    (PAIR, "correct", ["[4, 2]", "4 2", " 4   2 ", "[4,2]", "[4, 2,]", "4, 2", "(4, 2)", "[4. 2.]", "[ 4\n, 2 ]",
                       "４ ２", "［４、２］", "（４，２）", "[4.0000e+00, 2.0000e+00]", "tensor([4, 2])", "[\u200b4,\u20602\ufeff]", "\ufeff[4,\u00a02]", ">>> print(x.grad)\ntensor([4., 2.])\n>>> ", "In [3]: x.grad\nOut[3]: tensor([4., 2.])", "【4, 2】", "〔４，２〕",
                       "tensor([4.0000e+00, 2.0000e+00])", "tensor([4., 2.], device='cpu')",
                       "tensor([4., 2.], device='cpu', dtype=torch.float64)", "array([4., 2.], dtype=float32)",
                       "[8/2, 2/1]", "[4, 2]\n", "\n\n[4, 2]", "[+4, +2.]", "[4, 2.000]", "[４.０, ２]",
                       *_printouts(torch.tensor([4., 2.]))]),
    (PAIR, "wrong", ["[2, 4]", "[-4, -2]", "-4 -2", "[5, 3]", "[3, 1]", "[2, 1]", "[4, 2.1]", "[0, 0]", "[nan, 2]",
                     "[inf, 2]", "None"]),
    (PAIR, "answer_wrong_shape", ["[4, 2, 0]", "[[4, 2]]", "[4]", "4 2 0", "4"]),
    (PAIR, "answer_missing_comma", ["[4, 2]\n[4, 2]"]),
    (PAIR, "answer_unclosed", ["[4, 2", "[4 2", "tensor([4., 2.]", "[[4, 2]"]),
    (PAIR, "answer_unmatched", ["4, 2]"]),
    (PAIR, "answer_caret", ["[2^2, 2]"]),
    (PAIR, "answer_syntax", ["[4; 2]", "[4, 2]!", "[4, 2] 3", "[4, 2,, 0]"]),
    (TALL, "correct", [*_printouts(torch.tensor([[5., 5.], [7., 7.], [9., 9.]])), "5 5\n7 7\n9 9"]),
    (TALL, "answer_transposed", ["[[5, 7, 9], [5, 7, 9]]", "5 7 9\n5 7 9"]),
    (SQUARE, "correct", _printouts(torch.tensor([[4., 2.], [6., 4.]]))),
    (EYE, "correct", [*_printouts(torch.eye(5) * 2 + 2), "\n".join(" ".join("4" if i == j else "2" for j in range(5))
                                                                  for i in range(5))]),
    (EYE, "wrong", [str(torch.eye(5) * 2), str(torch.ones(5, 5) * 2)]),
    (EYE, "answer_wrong_shape", [str((torch.eye(5) * 2 + 2)[:4])]),
    (SQUARE, "wrong", [str(torch.tensor([[4., 2.], [6., 4.]]).T), "[[4, 6], [2, 4]]"]),
    (LOSS, "correct", ["4", "4.", "4.0", "４", "8/2", "tensor(4.)", "tensor(4., grad_fn=<MseLossBackward0>)",
                       "4.0000e+00", "array(4.)", "+4", "2*2", "2**2", " 4 \n"]),
    (LOSS, "wrong", ["-4", "3", "0", "nan", "inf", "-inf", "None", "4.1"]),
    (LOSS, "answer_expected_number", ["[4, 4]", "[4]"]),
    (LOSS, "answer_needs_brackets", ["4 4"]),
    (LOSS, "answer_expected_numbers", ["True"]),
    (SCALAR, "correct", ["21", "21.", "tensor(21.)", "tensor(21., requires_grad=True)", "tensor(21., dtype=torch.float64)",
                         str(torch.nn.Parameter(torch.tensor(21.))), "２１"]),
    (SCALAR, "answer_wrong_shape", ["[21]", "[21, 21]"]),
    (ONE, "correct", ["3", "3.", "[[3]]", "tensor([[3.]])", "tensor([[3.]], grad_fn=<MmBackward0>)", "３"]),
    (ONE, "wrong", ["4", "[[0.]]", "-3"]),
    (ONE, "answer_wrong_shape", ["[3]", "[[3, 3]]"]),
    (WEIGHT, "answer_wrong_shape", ["-2 2\n", "[-2, 2]"]),
    (WEIGHT, "correct", ["[[-2, 2]]", "tensor([[-2.,  2.]])", "[[ー2, 2]]", "[[‐2, 2]]", "[[―2, 2]]", "［［ｰ２，２］］", "[[−２, ２]]", "[[-2., 2.]]",
                         str(torch.nn.Parameter(torch.tensor([[-2., 2.]]))), repr(torch.tensor([[-2., 2.]]).numpy())]),
    (WEIGHT, "wrong", ["[[2, -2]]", "[[-2, -2]]", "[[-1, 1]]"]),
    (NONE, "correct", ["None", "none", "NONE", " None\n", "\x1b[1mNone\x1b[0m"]),
    (NONE, "wrong", ["tensor([[0., 0.]])", "[[0, 0]]", "0", "tensor(0.)"]),
    (FLAG, "correct", ["False", "false", " FALSE \n", "tensor(False)"]),
    (FLAG, "wrong", ["True", "true", "tensor(True)"]),
    (FLAG, "answer_expected_bool", ["0", "no", "いいえ", "None", "[False]"]),
    (NAN, "correct", ["tensor([   nan,    nan, 0.2500])", "[nan, nan, 0.25]", "[nan, nan, 1/4]", "[NaN, NaN, 0.25]",
                      "[nan nan 0.25]", "nan nan 0.25", "[NAN, nan, 0.25]"]),
    (NAN, "wrong", ["[0, 0, 0.25]", "[inf, inf, 0.25]", "[-inf, nan, 0.25]", "[nan, nan, nan]"]),
    (SOFTMAX, "correct", ["tensor([ 0.0819, -0.0220, -0.0599])", "[8.1925e-02, -2.2033e-02, -5.9892e-02]"]),
    (SOFTMAX, "close", ["[0.082, -0.022, -0.06]"]),
    (SOFTMAX, "wrong", ["[0, 0, 0]", "[-0.0819, 0.0220, 0.0599]", "[0.08, -0.02, -0.05]"]),
    (ZEROS, "correct", ["[0, 0]", "[-0., -0.]", "tensor([0., 0.])", "[0 0]", "0 0", "[-0, 0]", "[0.0000, 0.0000]",
                        "[1e-9, 0]"]),
    (ZEROS, "wrong", ["[1, 0]", "[0.001, 0]", "None"]),
    (FLAGS_TEXT, "correct", ["(True, False, False)", "(True,False,False)", " ( True , False , False ) ",
                             "'(True, False, False)'", "(true, false, false)"]),
    (FLAGS_TEXT, "wrong", ["(True, True, False)", "(False, False, False)", "True"]),
    (THIRDS, "correct", ["tensor(20.6667)", "62/3", "20.6667", "20.66667"]),
    (THIRDS, "close", ["20.67", "20.7"]),
    (THIRDS, "wrong", ["20.6", "21", "20.66"]),
    (TINY, "correct", ["tensor([1.0000e-05, 1.0000e-05])", "[1e-5, 1e-5]", "[0.00001, 0.00001]", "[1E-05, 1e-05]",
                       "1e-5 1e-5", "[1/100000, 1/100000]", "[１ｅ－５, 1e-5]"]),
    (TINY, "wrong", ["[0, 0]", "[0., 0.]", "tensor([0., 0.])", "[1e-4, 1e-4]", "[1e-6, 1e-6]", "[-1e-5, -1e-5]",
                     "[2e-5, 1e-5]"]),
    (HUGE, "correct", ["tensor([123456., 123456.])", "[123456, 123456]", "[1.2346e+05, 1.2346e+05]", "[123_456, 123456]"]),
    (HUGE, "correct", ["[123457, 123456]", "[1.2345e+05, 1.2345e+05]"]),  # within 1e-4 of it
    (HUGE, "wrong", ["[12345.6, 12345.6]", "[123456, 0]", "[123480, 123456]"]),
    (DOUBLE, "correct", ["tensor([2., 4.], dtype=torch.float64)", "[2, 4]", str(torch.tensor([2., 4.], dtype=torch.float64)),
                         str(torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True) * 2)]),
    (EDGES, "correct", ["tensor([inf, -0., 1.])", "[inf, -0., 1]", "[inf, 0, 1]", "[Inf, -0, 1.]"]),
    (EDGES, "wrong", ["[-inf, 0, 1]", "[nan, 0, 1]", "[1e308, 0, 1]", "[0, 0, 1]"]),
    (MASK, "correct", ["tensor([False,  True])", "[False, True]", "False True", "[false, true]", "(False, True)",
                       "[ False  True]", "（False、True）", "m"]),
    (MASK, "wrong", ["[True, False]", "[False, False]", "~m", "None"]),
    (MASK, "answer_not_bools", ["[0, 1]", "tensor([0., 1.])", "1 0"]),
    (MASK, "answer_wrong_shape", ["[False, True, True]", "True"]),
]

PROBES: list[Probe] = [Probe(target, typed, verdict) for target, verdict, texts in _PROBES for typed in texts]


def probe_id(probe: Probe) -> str:
    """A short readable test id (pytest would print 100,000 characters)."""
    shown = probe.typed if len(probe.typed) <= 40 else f"{probe.typed[:30]}…({len(probe.typed)} chars)"
    return f"{probe.target.split(':')[1]}={shown!r}->{probe.verdict}"

