"""An ``evaluate`` module computed batch after batch loads its local model once (the models built by one
``compute`` call serve the next with the same model, precision, device, batch size and cache); ``compute()``
itself keeps nothing between calls."""

from __future__ import annotations

from pathlib import Path

import pytest

import surge_dataset.models.nli as nli_module
from surge_dataset.evaluation import compute

TEXT = ("# Introduction\n\nGraph neural networks pass messages between the nodes of a graph [1].\n\n"
        "# References\n\n[1] Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity\n")


@pytest.fixture
def nli_builds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every NLI model the run builds: (model, batch size)."""
    built: list[tuple[str, int]] = []

    class CountingScorer(nli_module.NLIScorer):
        def __init__(self, model_name: str, *args, **kwargs) -> None:
            built.append((str(model_name), kwargs.get("batch_size")))
            super().__init__(model_name, *args, **kwargs)

    monkeypatch.setattr(nli_module, "NLIScorer", CountingScorer)
    return built


def test_an_evaluate_module_loads_its_nli_model_once_across_computes(installed_metrics, in_demo_folder,
                                                                      tiny_nli_path: Path, nli_builds):
    import evaluate

    module = evaluate.load("surge/citation_accuracy")
    settings = {"data": "surge", "nli_model": str(tiny_nli_path), "device": "cpu", "cache_dir": ""}
    first = module.compute(predictions=[TEXT], references=[0], **settings)
    second = module.compute(predictions=[TEXT], references=[0], **settings)
    assert len(nli_builds) == 1  # the second call scored with the model the first one built
    assert first["per_survey"] == second["per_survey"]
    module.compute(predictions=[TEXT], references=[0], batch_size=4, **settings)
    assert [size for _, size in nli_builds] == [32, 4]  # another batch size is another model


def test_compute_keeps_no_model_between_calls(in_demo_folder, tiny_nli_path: Path, nli_builds):
    settings = {"data": "surge", "nli_model": str(tiny_nli_path), "device": "cpu", "cache_dir": ""}
    compute("citation_accuracy", [TEXT], [0], **settings)
    compute("citation_accuracy", [TEXT], [0], **settings)
    assert len(nli_builds) == 2
