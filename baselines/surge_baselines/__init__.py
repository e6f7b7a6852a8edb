"""The baseline survey generators of the SurGE and SurveyGen papers, on our LLM layer.

The systems (``rag``, ``autosurvey``, ``stepsurvey``, ``surveyforge``, ``naive_rag``, ``qualsg``,
``llm_only``, ``guided``) are declared in the ``surge.generators`` entry-point group of ``pyproject.toml``, which is
how :mod:`surge_dataset.generation` finds them (the core never imports this package by name). Importing
any of them registers their prompt templates with :mod:`surge_dataset.llm.prompts`. Run them with
``surge generate --system NAME``.
"""

from __future__ import annotations

from . import prompts  # noqa: F401 - registers the generation templates
from .autosurvey import AutoSurvey
from .guided import Guided
from .llm_only import LLMOnly
from .naive_rag import NaiveRAG
from .qualsg import QualSG
from .rag import RAG
from .stepsurvey import StepSurvey
from .surveyforge import SurveyForge

__all__ = ["RAG", "AutoSurvey", "Guided", "LLMOnly", "NaiveRAG", "QualSG", "StepSurvey", "SurveyForge"]
