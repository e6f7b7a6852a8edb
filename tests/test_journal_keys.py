"""Journal keys pinned before the settings were declared once: every journal written by an
earlier version must still resume, so the key of each of these configurations may never change -- except
where a metric's scoring was fixed (its ``version`` > 1): its old journals must NOT be reused."""

from __future__ import annotations

import pytest

from surge_dataset.evaluation import EvaluationConfig

PINNED = {
    "default": ({}, "4463f378b305e144"),
    "paper": ({'protocol': 'paper'}, "7954a5c90c027b0e"),
    "recall_only": ({'metrics': ['recall']}, "74b7e70cf4aa4af7"),
    "recall_device": ({'metrics': ['recall'], 'device': 'cuda', 'dtype': 'fp16'}, "74b7e70cf4aa4af7"),
    "shr_cuda": ({'metrics': ['shr'], 'device': 'cuda'}, "df29e595ecca81e6"),
    "all_cpu_fp32": ({'metrics': ['recall', 'citation_accuracy', 'shr'], 'device': 'cpu', 'dtype': 'fp32'}, "35b6e635dd5f4621"),
    "defined": ({'aggregate': 'defined'}, "2a8e7c1ae3a63525"),
    "filters": ({'min_cites': 5, 'exclude_empty': True}, "4463f378b305e144"),
    "judge": ({'metrics': ['recall', 'sqs', 'cqs'], 'judge': 'openai:gpt-4o', 'prompts_version': 'p1'}, "fa95df28e974bb38"),
    "judge_repeats": ({'metrics': ['sqs'], 'judge': 'openai:gpt-4o', 'judge_repeats': 3, 'prompts_version': 'p1'}, "9cd3630d516b485d"),
    "judge_weighted_hf": ({'metrics': ['sqs'], 'judge': 'hf:Qwen/Qwen2.5-14B-Instruct', 'judge_weighted': True, 'judge_max_tries': 5, 'prompts_version': 'p1'}, "66533e996194a70b"),
    # was ca8e96da1f2f00cb until ALCE checked every citation before the cut to three (alce version 2)
    "alce_judge": ({'metrics': ['alce'], 'judge': 'openai:gpt-4o', 'alce_backend': 'judge', 'prompts_version': 'p1'}, "fa75f15ef44a97dc"),
    "ner": ({'metrics': ['heading_entity_recall'], 'ner_model': 'dslim/bert-base-NER', 'device': 'cpu'}, "86c0cbe598119192"),
    "models": ({'nli_model': '/models/nli', 'embedding_model': '/models/emb', 'device': 'cpu'}, "a8f926f61d319b54"),
}


@pytest.mark.parametrize("name", list(PINNED))
def test_journal_keys_of_existing_runs_never_change(name: str) -> None:
    settings, key = PINNED[name]
    assert EvaluationConfig(**settings).key("fp") == key


def test_a_fixed_metric_changes_the_key_of_runs_that_select_it_only():
    from surge_dataset.evaluation import get_metric

    alce = get_metric("alce")
    assert alce.version == 2
    before = EvaluationConfig(metrics=["recall", "alce"]).key("fp")
    type(alce).version = 3
    try:
        assert EvaluationConfig(metrics=["recall", "alce"]).key("fp") != before
        assert EvaluationConfig(metrics=["recall"]).key("fp") == PINNED["recall_only"][1]
    finally:
        type(alce).version = 2
