"""Survey generation: the generator interface, the evaluator-ready Markdown writer and the run driver.

A :class:`Generator` turns a :class:`Topic` (a survey of the dataset: id, title, date) and the papers
given to it into a :class:`Draft`: a title, nested sections, and text that cites papers by *label*
(``[P3]``, ``[P1, P4]``; the label of the i-th given paper is ``P<i>``). :func:`render_markdown`
writes the draft in the form ``surge evaluate`` reads (protocol.md §2), so every reference of a
generated survey resolves by construction. :func:`generate_surveys` drives a whole run.

The package, by job:

* :mod:`.draft`: the draft model (:class:`Topic`, :class:`Draft`, :class:`DraftSection`, :class:`GuideSection`);
* :mod:`.markdown`: the Markdown writer (:func:`render_markdown`, citation numbering, heading cleaning);
* :mod:`.llm_calls`: LLM plumbing for generators (:class:`RecordingLLM`, :class:`TokenCounter`,
  :class:`PromptFitter`, :class:`StageProgress`);
* :mod:`.generator`: the :class:`Generator` base class and the registry (:func:`get_generator`), which
  finds installed systems through the ``surge.generators`` entry-point group (the built-in baselines
  included) and in-process ones through :func:`register_generator`;
* :mod:`.inputs`: what a generator is given (a run's top-k papers, the GT outline);
* :mod:`.run`: the run driver (:func:`generate_surveys`, sidecars, resuming, :class:`RunReport`);
* :mod:`.dry_run`: ``surge generate --dry-run``, calls and tokens counted against a stand-in LLM.

The core never imports the baselines (``surge_baselines``, folder ``baselines/``): they are a plugin like any other.
"""

from __future__ import annotations

from surge_dataset.generation.draft import Draft, DraftSection, GuideSection, Topic, label_of
from surge_dataset.generation.generator import (
    ENTRY_POINT_GROUP,
    GenerationError,
    Generator,
    available_generators,
    get_generator,
    register_generator,
)
from surge_dataset.generation.inputs import guidance_of, read_run_topk, topic_of, usable_papers
from surge_dataset.generation.llm_calls import PromptFitter, RecordingLLM, StageProgress, TokenCounter
from surge_dataset.generation.markdown import RenderedSurvey, clean_heading, render_markdown
from surge_dataset.generation.run import (
    FAILURE_DIR,
    SIDECAR_NAME,
    SIDECAR_VERSION,
    SURVEY_FILE,
    RunReport,
    generate_one,
    generate_surveys,
    is_complete,
)
from surge_dataset.survey.headings import is_references_title  # for systems: the one references-heading rule

__all__ = [
    "ENTRY_POINT_GROUP",
    "FAILURE_DIR",
    "SIDECAR_NAME",
    "SIDECAR_VERSION",
    "SURVEY_FILE",
    "Draft",
    "DraftSection",
    "GenerationError",
    "Generator",
    "GuideSection",
    "PromptFitter",
    "RecordingLLM",
    "RenderedSurvey",
    "RunReport",
    "StageProgress",
    "TokenCounter",
    "Topic",
    "available_generators",
    "clean_heading",
    "generate_one",
    "generate_surveys",
    "get_generator",
    "guidance_of",
    "is_complete",
    "is_references_title",
    "label_of",
    "read_run_topk",
    "register_generator",
    "render_markdown",
    "topic_of",
    "usable_papers",
]
