"""The CUDA example of the docs (examples/cuda): its study file builds, and its kernel is right on the CPU.

No GPU is needed: the kernel's own source runs through ``examples/gpu/cpu_check.py`` (g++ and
``cuda_on_cpu.h``, every GPU thread a CPU thread) for every configuration of its space, and is checked
against the answer its inputs file makes, as the GPU run checks it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

from starchart import Space
from starchart.measure import evaluator_from_dict
from starchart.measure.cuda import CudaEvaluator

HERE = Path(__file__).resolve().parent
SPEC = importlib.util.spec_from_file_location("cpu_check", HERE.parent / "gpu" / "cpu_check.py")
cpu_check = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(cpu_check)


@pytest.fixture
def small_study(tmp_path: Path) -> tuple[Space, CudaEvaluator]:
    """The example's space and evaluator, through the evaluator file's route, on 3,000 elements."""
    (tmp_path / "small.py").write_text("from vector_add_inputs import make as full\n\n\ndef make():\n"
                                       "    return full(3000)\n")
    study = yaml.safe_load((HERE / "vector_add.yaml").read_text())
    section = {**study["evaluator"], "problem_size": 3000, "inputs": "small.py:make"}
    section = CudaEvaluator.resolve_paths(section, HERE)
    section["inputs"] = f"{tmp_path / 'small.py'}:make"
    return Space(study["parameters"]), evaluator_from_dict(section, where="vector_add.yaml")


def test_the_study_file_builds_its_evaluator_with_inputs_and_answer(small_study) -> None:
    space, evaluator = small_study
    assert space.size() == 60
    assert [a.shape for a in evaluator.arguments[:3]] == [(3000,)] * 3 and evaluator.answer is not None
    rebuilt = CudaEvaluator.from_description(evaluator.describe())  # what resume does: make() again
    assert rebuilt.describe() == evaluator.describe() and rebuilt.answer is not None


@pytest.mark.skipif(cpu_check.compiler() is None, reason="needs g++")
def test_every_configuration_adds_right_on_the_cpu(small_study) -> None:
    space, evaluator = small_study
    wrong = {}
    for config in space.sample(10, seed=0).to_dict("records"):  # each one a g++ build: a sample, not all 60
        problem = cpu_check.check_on_cpu(evaluator, config)
        if problem is not None:
            wrong[str(config)] = problem
    assert wrong == {}
