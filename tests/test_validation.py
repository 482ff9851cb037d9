"""The one parameter-constraints module: what each constraint accepts, and the estimators built on it."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from starchart import StarchartForest, StarchartTree
from starchart._util.validation import SEED, Instances, Interval, Options, check, check_seed, describe
from starchart.errors import InputError
from starchart.xapp.model import SpeedupRangeModel
from starchart.xapp.regression import SpeedupRegressionEnsemble

ESTIMATORS = [StarchartTree, StarchartForest, SpeedupRangeModel, SpeedupRegressionEnsemble]


@given(st.one_of(st.integers(-10, 10), st.floats(-10, 10), st.sampled_from([math.nan, math.inf, -math.inf]),
                 st.booleans()))
def test_an_integer_interval_takes_whole_numbers_in_range_and_nothing_else(value):
    inside = (not isinstance(value, bool) and math.isfinite(value) and float(value).is_integer()
              and 2 <= value <= 5)
    assert Interval(int, 2, 5).accepts(value) == inside
    if inside:
        assert check("n", value, Interval(int, 2, 5)) == int(value)
        assert type(check("n", value, Interval(int, 2, 5))) is int


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_float_interval_is_finite_and_honours_its_open_ends(value):
    assert Interval(float, 0, 1, closed="left").accepts(value) == (math.isfinite(value) and 0 <= value < 1)
    assert Interval(float, 0, None, closed="neither").accepts(value) == (math.isfinite(value) and value > 0)


def test_numpy_numbers_count_as_numbers_and_bools_do_not():
    assert check("n", np.int64(3), Interval(int, 1, None)) == 3
    assert check("x", np.float32(0.5), Interval(float, 0, 1)) == 0.5
    for bad in (True, "3", None, [3]):
        with pytest.raises(InputError, match="n: must be an integer ≥ 1"):
            check("n", bad, Interval(int, 1, None))


def test_options_do_not_confuse_one_with_true():
    assert Options(1, 2).accepts(1) and not Options(1, 2).accepts(True)
    assert Options(True, "auto").accepts(True) and not Options(True, "auto").accepts(1)


def test_descriptions_read_as_words():
    assert describe((None, Interval(int, 0, None))) == "None or an integer ≥ 0"
    assert describe((Options("a", "b", "c"),)) == "'a', 'b' or 'c'"
    assert describe((Interval(float, 0, 100),)) == "a number from 0 to 100"
    assert describe((Instances(str, "a name"), None)) == "a name or None"


def test_one_seed_rule():
    assert check_seed(None) is None and check_seed(2**32 - 1) == 2**32 - 1 and check_seed(np.uint32(7)) == 7
    for bad in (-1, 2**32, 1.5, True, "1"):
        with pytest.raises(InputError, match="seed: must be None or an integer from 0 to 4294967295"):
            check_seed(bad)
    assert SEED.accepts(0)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_estimators_declare_constraints_for_their_constructor_arguments(cls):
    """Each constrained name is a constructor argument, and get_params/set_params round-trip them."""
    estimator = cls()
    params = estimator.get_params()
    assert set(cls._parameter_constraints) <= set(params)
    again = cls(**params)
    assert again.get_params() == params
    with pytest.raises(InputError, match="unknown hyper-parameter 'nope'"):
        estimator.set_params(nope=1)
    assert repr(estimator).startswith(cls.__name__ + "(")


@pytest.mark.parametrize("cls, name, bad", [(StarchartTree, "min_samples_split", 1),
                                            (StarchartForest, "n_estimators", 0),
                                            (StarchartForest, "random_state", -1),
                                            (SpeedupRangeModel, "n_trees", 0),
                                            (SpeedupRegressionEnsemble, "keep_fraction", 2.0)])
def test_estimators_store_arguments_as_given_and_refuse_them_in_fit(cls, name, bad):
    estimator = cls(**{name: bad})  # scikit-learn's rule: the constructor only stores
    assert getattr(estimator, name) == bad
    with pytest.raises(InputError, match=f"^{name}: must be"):
        estimator._validate_params()


def test_scikit_learn_clones_our_estimators():
    base = pytest.importorskip("sklearn.base")
    forest = StarchartForest(n_estimators=3, random_state=1)
    assert base.clone(forest).get_params() == forest.get_params()
