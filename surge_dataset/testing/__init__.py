"""Test doubles for your own tests: stand-ins that run offline, on the CPU, the same way on every machine.

* :mod:`.models`: tiny randomly initialised models saved as real checkpoints (an NLI cross-encoder, a RoBERTa
  encoder, a NER tagger), and :func:`~.models.cache_as_hub_model` to serve a folder as a Hub model id offline;
* :mod:`.llm`: :class:`~.llm.ScriptedChat`, a chat model in process that answers from a script (wrap it in
  ``LLM`` and ``Judge`` like any backend);
* :mod:`.quiz`: a scripted quiz writer and a reader that answers from the quoted survey's words (responders
  for :class:`~.llm.ScriptedChat`; the sample's quiz set was written with the first).

No module of the package imports this one: it is for tests, examples and documentation. The repository's own
stand-ins for outside services (HTTP servers replaying recorded answers) live in ``tests/support/`` and are
not shipped.
"""

from __future__ import annotations

from surge_dataset.testing.llm import ScriptedChat, word_usage
from surge_dataset.testing.models import (
    build_tiny_ner_model,
    build_tiny_nli_cross_encoder,
    build_tiny_roberta,
    cache_as_hub_model,
)
from surge_dataset.testing.quiz import ClozeWriter, TextReader

__all__ = [
    "ClozeWriter",
    "ScriptedChat",
    "TextReader",
    "build_tiny_nli_cross_encoder",
    "build_tiny_ner_model",
    "build_tiny_roberta",
    "cache_as_hub_model",
    "word_usage",
]
