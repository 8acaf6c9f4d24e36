"""Files saved by earlier format versions keep loading and answering as they did."""

from pathlib import Path

import numpy as np
import pytest

from lucidml.io import inspect, load

FIXTURES = Path(__file__).parent / "fixtures"
FILES = sorted(FIXTURES.glob("format_*/*.lucid"))


def test_every_released_format_has_fixtures():
    from lucidml.io._encode import FORMAT_VERSION

    versions = {int(path.parent.name.split("_")[1]) for path in FILES}
    assert versions == set(range(1, FORMAT_VERSION + 1))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_an_old_file_loads_and_answers_as_it_did(path):
    expected = np.load(path.parent / "expected.npz", allow_pickle=False)
    X = expected["X"]
    model = load(path)
    assert inspect(path)["format_version"] == int(path.parent.name.split("_")[1])
    keys = [key for key in expected.files if key.startswith(path.stem + ".")]
    assert keys
    for key in keys:
        got = getattr(model, key.split(".", 1)[1])(X)
        want = expected[key]
        if want.dtype.kind in "fc":
            # Another machine's BLAS may round the last bits differently; the model is the same.
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_array_equal(got, want, strict=True)
