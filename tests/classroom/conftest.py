"""The class folder fixture (data: class_data.py)."""
import pytest
from class_data import make_class


@pytest.fixture
def class_dir(tmp_path):
    return make_class(tmp_path / "class")
