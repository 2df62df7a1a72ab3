"""engine.printing must print tensors exactly like PyTorch 2.13 does."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from engine.printing import format_tensor, get_printoptions, printoptions, set_printoptions

FLOAT_DTYPES = [np.float32, np.float64, np.float16]
DTYPES = [*FLOAT_DTYPES, np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_]


@pytest.fixture(autouse=True)
def _default_options():
    """Every test starts and ends with the default options, in both libraries."""
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")
    torch = _torch_if_installed()
    if torch is not None:
        torch.set_printoptions(profile="default")


def _torch_if_installed():
    try:
        import torch
    except ImportError:
        return None
    return torch


# --- hand examples (from the course's seed articles) -------------------------------------------


def test_integral_floats_print_with_a_trailing_dot_and_requires_grad():
    data = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    assert format_tensor(data, requires_grad=True) == (
        "tensor([[1., 2., 3.],\n        [4., 5., 6.]], requires_grad=True)"
    )


def test_float32_values_print_four_decimals_from_their_double_value():
    data = (np.arange(1, 7, dtype=np.float32).reshape(2, 3) + 6) / np.float32(6)
    assert format_tensor(data) == "tensor([[1.1667, 1.3333, 1.5000],\n        [1.6667, 1.8333, 2.0000]])"
    assert format_tensor(np.float32(7) / np.float32(6)) == "tensor(1.1667)"


def test_vector_zero_dim_and_bool():
    assert format_tensor(np.array([4.0, 2.0], dtype=np.float32)) == "tensor([4., 2.])"
    assert format_tensor(np.array(3.0, dtype=np.float32)) == "tensor(3.)"
    assert format_tensor(np.array(True)) == "tensor(True)"
    assert format_tensor(np.array([True, False])) == "tensor([ True, False])"


def test_grad_fn_replaces_requires_grad():
    data = np.array([2.0, 4.0], dtype=np.float32)
    text = format_tensor(data, requires_grad=True, grad_fn="MulBackward0")
    assert text == "tensor([2., 4.], grad_fn=<MulBackward0>)"


def test_scientific_notation_when_magnitudes_spread():
    data = np.array([0.18108, 2.5e-5], dtype=np.float32)
    assert format_tensor(data) == "tensor([1.8108e-01, 2.5000e-05])"


def test_dtype_suffix_and_empty_tensors():
    assert format_tensor(np.array([1.5, 2.0])) == "tensor([1.5000, 2.0000], dtype=torch.float64)"
    assert format_tensor(np.array([1, 2], dtype=np.int32)) == "tensor([1, 2], dtype=torch.int32)"
    assert format_tensor(np.array([1, 2])) == "tensor([1, 2])"
    assert format_tensor(np.zeros((0, 3), dtype=np.float32)) == "tensor([], size=(0, 3))"
    assert format_tensor(np.zeros(0, dtype=np.int64)) == "tensor([], dtype=torch.int64)"


def test_nonfinite_values_and_negative_zero():
    data = np.array([math.nan, -0.0, math.inf, -math.inf, 2.0], dtype=np.float32)
    assert format_tensor(data) == "tensor([nan, -0., inf, -inf, 2.])"


def test_summary_keeps_three_items_at_each_edge():
    assert format_tensor(np.arange(2000)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"


def test_set_printoptions_precision_and_profile():
    data = np.array([1.12345], dtype=np.float32)
    set_printoptions(precision=2)
    assert format_tensor(data) == "tensor([1.12])"
    set_printoptions(threshold=5)
    assert format_tensor(np.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    assert get_printoptions()["precision"] == 2
    set_printoptions(profile="default")
    assert format_tensor(data) == "tensor([1.1235])"
    with printoptions(sci_mode=True):
        assert format_tensor(data) == "tensor([1.1235e+00])"
    assert format_tensor(data) == "tensor([1.1235])"


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"precision": "2"}, TypeError, "precision must be a non-negative integer"),
        ({"edgeitems": -1}, ValueError, "edgeitems must be a non-negative integer"),
        ({"threshold": None, "linewidth": 2.5}, TypeError, "linewidth"),
        ({"profile": "long"}, ValueError, "unknown profile 'long'"),
        ({"sci_mode": "yes"}, TypeError, "sci_mode must be True, False or None"),
    ],
)
def test_bad_print_options_are_refused_and_leave_options_unchanged(kwargs, error, words):
    before = get_printoptions()
    with pytest.raises(error, match=words):
        set_printoptions(**kwargs)
    assert get_printoptions() == before


def test_bad_data_is_refused_with_a_clear_message():
    with pytest.raises(TypeError, match="expected a numpy array, got list"):
        format_tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="cannot print dtype complex128"):
        format_tensor(np.array([1j]))


# --- cross-checks against real PyTorch ---------------------------------------------------------

small_arrays = hnp.arrays(
    dtype=st.sampled_from(DTYPES),
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
)


@st.composite
def large_arrays(draw, min_size=1001):
    """Arrays past the summary threshold, built from a seed (drawing elements one by one is slow)."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    ndim = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 40), min_size=ndim, max_size=ndim).filter(
        lambda s: min_size <= math.prod(s) <= 20_000
    ))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    size = math.prod(shape)
    if dtype.kind == "b":
        values = rng.random(size) < draw(st.floats(0, 1))
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, size=size, endpoint=True, dtype=dtype)
    else:
        exponent = draw(st.integers(-12, 12) if dtype != np.float16 else st.integers(-6, 4))
        values = rng.standard_normal(size) * 10.0**exponent
        if draw(st.booleans()):
            values = np.round(values)
        specials = np.array([math.nan, math.inf, -math.inf, -0.0, 0.0])
        mask = rng.random(size) < draw(st.sampled_from([0.0, 0.01, 0.3]))
        values[mask] = rng.choice(specials, size=int(mask.sum()))
    return values.astype(dtype).reshape(shape)


def _torch_repr(torch, data, *, grad=None):
    tensor = torch.from_numpy(data.astype(data.dtype.newbyteorder("=")))  # a native-order copy
    if grad == "requires_grad":
        tensor.requires_grad_()
    elif grad == "grad_fn":
        tensor = tensor.requires_grad_() * 1
    return repr(tensor)


def _check_against_torch(data, grad=None):
    torch = pytest.importorskip("torch")
    expected = _torch_repr(torch, data, grad=grad)
    actual = format_tensor(
        data, requires_grad=grad == "requires_grad", grad_fn="MulBackward0" if grad == "grad_fn" else None
    )
    assert actual == expected


BOUNDARY_CASES = [
    np.array([1e-4]),  # exactly the 1e-4 limit: fixed notation
    np.array([1e-4], dtype=np.float32),  # just below it once rounded to float32: scientific
    np.array([1.0, 1000.0], dtype=np.float32),  # ratio exactly 1000: fixed
    np.array([1.0, 1000.5], dtype=np.float32),
    np.array([1e8, 2e5], dtype=np.float64),  # exactly 1e8: fixed
    np.array([1.5e8], dtype=np.float64),
    np.array([9.99995, -0.5], dtype=np.float64),  # rounds up to a wider "10.0000"
    np.array([-0.0, 0.0, math.nan], dtype=np.float16),
    np.array([65504.0, -65504.0, 6e-8], dtype=np.float16),
    np.array([1e-320, 1e300]),  # subnormal: the magnitude ratio overflows
    np.array([[math.inf, -math.inf]], dtype=np.float32),
    np.array(-0.0, dtype=np.float32),
    np.array(math.nan),
    np.array([np.iinfo(np.int64).min, 7]),
    np.zeros((2, 0, 3), dtype=np.bool_),
    np.arange(12.0).reshape(3, 4).T[::-1],  # a strided view
    np.array([1.5, -2.0], dtype=">f4"),  # big-endian
]


@pytest.mark.parametrize("data", BOUNDARY_CASES, ids=repr)
def test_boundary_cases_match_torch(data):
    _check_against_torch(data)


@pytest.mark.parametrize("linewidth", range(10, 100))
def test_suffixes_wrap_at_the_same_column_as_torch(linewidth):
    torch = pytest.importorskip("torch")
    torch.set_printoptions(linewidth=linewidth)
    set_printoptions(linewidth=linewidth)
    for data in (np.linspace(-1, 1, 11), np.arange(6, dtype=np.float16).reshape(2, 3) / 3):
        _check_against_torch(data, "requires_grad")
        _check_against_torch(data, "grad_fn")


@settings(max_examples=300, deadline=None)
@given(small_arrays)
def test_small_arrays_match_torch(data):
    _check_against_torch(data)


@settings(max_examples=40, deadline=None)
@given(large_arrays())
def test_summarized_arrays_match_torch(data):
    _check_against_torch(data)


@settings(max_examples=100, deadline=None)
@given(
    hnp.arrays(
        dtype=st.sampled_from(FLOAT_DTYPES),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=12),
    ),
    st.sampled_from(["requires_grad", "grad_fn"]),
)
def test_autograd_suffixes_match_torch(data, grad):
    _check_against_torch(data, grad)


print_options = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 8),
        "threshold": st.sampled_from([0, 5, 100, 1000, math.inf]),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(10, 150),
        "profile": st.sampled_from(["default", "short", "full"]),
        "sci_mode": st.sampled_from([None, True, False]),
    },
)


@settings(max_examples=120, deadline=None)
@given(print_options, st.one_of(small_arrays, large_arrays(min_size=1)), st.booleans())
def test_print_options_match_torch(options, data, requires_grad):
    torch = pytest.importorskip("torch")
    grad = "requires_grad" if requires_grad and data.dtype.kind == "f" else None
    try:
        torch.set_printoptions(**options)
        set_printoptions(**options)
        _check_against_torch(data, grad)
    finally:
        torch.set_printoptions(profile="default")
        set_printoptions(profile="default")
