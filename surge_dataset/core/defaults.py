"""Default model names and the default dataset folder, in one place: every module, CLI option and metric declaration
imports them from here.

The defaults are the paper's choices (protocol.md §4 and §6), so results computed with them are comparable
with the published tables.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_DATA",
    "DEFAULT_EMBEDDING_MODEL",
    "DEFAULT_NER_MODEL",
    "DEFAULT_NLI_MODEL",
    "DEFAULT_RETRIEVER_BASE_MODEL",
    "PUBLISHED_GENERATOR_LLM",
    "PUBLISHED_JUDGE",
    "PUBLISHED_JUDGE_MODEL",
]

#: Where ``surge data build`` writes by default, and so what every ``--data`` reads by default (``./surge``).
DEFAULT_DATA = "surge"
#: Citation accuracy's cross-encoder (Doc/Sec/Sent-Acc); the released evaluator's ``nli_model_path``.
DEFAULT_NLI_MODEL = "cross-encoder/nli-deberta-v3-base"
#: SHR's sentence embedder (also structure_overlap, sim); the released evaluator's ``flag_model_path``.
DEFAULT_EMBEDDING_MODEL = "BAAI/bge-large-en-v1.5"
#: STORM's heading entity recall: a CoNLL-03 token classifier standing in for flair's English NER.
DEFAULT_NER_MODEL = "dslim/bert-base-NER"
#: The dense retriever's starting encoder (training/train_retriever.py ``--model``).
DEFAULT_RETRIEVER_BASE_MODEL = "roberta-base"
#: The judge model behind the published SQS/CQS (the released ``chat_openai``'s ``model=``).
PUBLISHED_JUDGE_MODEL = "gpt-4o"
#: ``--judge`` spec for the published judge.
PUBLISHED_JUDGE = f"openai:{PUBLISHED_JUDGE_MODEL}"
#: ``--llm`` spec of the paper's open generator (the RAG-Qwen baseline).
PUBLISHED_GENERATOR_LLM = "hf:Qwen/Qwen2.5-14B-Instruct"
