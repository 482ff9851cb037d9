"""Optuna's own conformance tests for samplers (``optuna.testing.pytest_samplers``), run on ours.

The starchart sampler searches a finite space; a parameter outside it (every parameter these tests
suggest) is drawn by Optuna's random sampler, with a warning. What the tests check holds for it as for
Optuna's samplers: values inside each distribution, NaN objectives, conditional and dynamic parameters,
partial fixing, and a ``ValueError`` for a multi-objective study.
"""

from __future__ import annotations

import pytest

pytest.importorskip("optuna")
samplers_tests = pytest.importorskip("optuna.testing.pytest_samplers")  # Optuna >= 4.8

from starchart import StarchartSampler  # noqa: E402

# true of every trial here: its parameters are outside the space, and none is a configuration of it
pytestmark = [pytest.mark.filterwarnings("ignore:.*is not a parameter of the starchart sampler:UserWarning"),
              pytest.mark.filterwarnings("ignore:trial .* is not a configuration of the space:UserWarning")]


class TestStarchartSamplerConformance(samplers_tests.BasicSamplerTestCase, samplers_tests.SingleOnlySamplerTestCase):
    @pytest.fixture
    def sampler(self):
        return lambda: StarchartSampler({"p0": [0, 1, 2]}, seed=0)
