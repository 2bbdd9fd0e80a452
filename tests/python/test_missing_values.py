# SPDX-License-Identifier: BSD-3-Clause
# Inputs whose meaning numpy.asarray would drop are refused with a TypeError that says what to pass: NumPy masked
# arrays (whatever their mask holds) and pandas objects with missing values (docs/bindings.md, "Masked arrays and
# missing values"). What asarray keeps whole (ndarray subclasses without a mask, pandas objects without missing
# values) is reduced as before.
import numpy as np
import pytest

import detred

OPERATIONS = ["sum", "asum", "nrm2", "min", "max", "argmin", "argmax", "stats"]
MASKED_HINT = r"pass x\.compressed\(\) \(the unmasked elements\) or x\.filled\(v\)"


@pytest.mark.parametrize("operation", OPERATIONS)
def test_masked_arrays_are_refused_with_what_to_pass(operation):
    x = np.ma.array([1.0, 2.0, 1e20], mask=[0, 0, 1])
    with pytest.raises(TypeError, match=rf"detred\.{operation} does not take numpy\.ma masked arrays: .*{MASKED_HINT}"):
        getattr(detred, operation)(x)
    # Every mask, even one that hides nothing: the type decides, not the data.
    with pytest.raises(TypeError, match="masked arrays"):
        getattr(detred, operation)(np.ma.array([1.0, 2.0, 3.0]))


def test_masked_arrays_in_dot_axis_and_every_dtype():
    x = np.ma.array(np.arange(6.0).reshape(2, 3), mask=[[0, 1, 0], [0, 0, 0]])
    with pytest.raises(TypeError, match=r"detred\.dot does not take numpy\.ma masked arrays"):
        detred.dot(np.arange(6.0).reshape(2, 3), x)
    with pytest.raises(TypeError, match="masked arrays"):
        detred.sum(x, axis=0)
    for dtype in (np.float32, np.int64, np.uint32):
        with pytest.raises(TypeError, match="masked arrays"):
            detred.sum(np.ma.array(np.ones(4, dtype=dtype), mask=[1, 0, 0, 0]))


def test_what_the_message_says_to_pass_gives_numpys_masked_results():
    x = np.ma.array([1.0, 2.0, 1e20], mask=[0, 0, 1])
    assert detred.sum(x.filled(0)) == np.ma.sum(x) == 3.0
    assert detred.sum(x.compressed()) == 3.0
    assert detred.max(x.compressed()) == np.ma.max(x) == 2.0
    assert detred.stats(x.compressed()).mean == np.ma.mean(x) == 1.5


def test_other_ndarray_subclasses_still_reduce():
    class Tagged(np.ndarray):
        pass

    x = np.arange(10.0).view(Tagged)
    assert detred.sum(x) == 45.0
    assert detred.sum(x.reshape(2, 5), axis=1).tolist() == [10.0, 35.0]


class _StandIn:
    """The duck type the pandas rule reads (a pandas type's module name and isna()), for machines without pandas."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.float64)

    def isna(self):
        return np.isnan(self.values)

    def __array__(self, dtype=None):
        return self.values if dtype is None else self.values.astype(dtype)


_StandIn.__module__ = "pandas.core.series"


def test_the_pandas_rule_on_a_stand_in():
    with pytest.raises(TypeError, match=r"detred\.sum does not take pandas objects with missing values .*"
                                        r"pass s\.dropna\(\)\.to_numpy\(\) .* or s\.fillna\(v\)\.to_numpy\(\)"):
        detred.sum(_StandIn([1.0, np.nan, 2.0]))
    assert detred.sum(_StandIn([1.0, 2.0])) == 3.0


def test_pandas_objects_with_missing_values_are_refused():
    pd = pytest.importorskip("pandas", reason="pandas is not installed: its real objects are not tested here")
    with_missing = [pd.Series([1.0, None, 2.0]), pd.Series([1.0, pd.NA, 2.0], dtype="Float64"),
                    pd.DataFrame({"a": [1.0, np.nan], "b": [2.0, 3.0]})]
    for s in with_missing:
        with pytest.raises(TypeError, match=r"does not take pandas objects with missing values"):
            detred.sum(s)
    s = pd.Series([1.0, None, 2.0])
    assert detred.sum(s.dropna().to_numpy()) == s.sum() == 3.0
    assert detred.sum(s.fillna(0).to_numpy()) == 3.0
    # Without missing values: the values, as numpy.asarray gives them.
    assert detred.sum(pd.Series([1.0, 2.0, 3.0])) == 6.0
    assert detred.sum(pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})) == 10.0
