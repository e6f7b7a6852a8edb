"""The settings of ``surge data quiz`` (:class:`QuizOptions`), apart from the writer: the CLI reads its options off
these declarations at start-up, so ``surge --help`` does not load the writer, pydantic or the LLM layer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from surge_dataset.core.errors import SettingError
from surge_dataset.core.settings import setting
from surge_dataset.core.vocabulary import ALL_SPLITS, SPLITS, Split, check_choice

__all__ = ["QuizOptions"]


@dataclass
class QuizOptions:
    """How a quiz set is written (each one a CLI option of ``surge data quiz``, read off its declaration)."""

    judge: str = setting(
        help="The LLM that writes the questions: openai:<model> (key from $SURGE_LLM_API_KEY or $OPENAI_API_KEY), "
             "hf:<model id or folder> or gguf:<file>. Recorded in every question and in the manifest.")
    per_survey: int = setting(
        10, help="Questions per GT survey, spread over its sections with at least 100 characters of content (the "
                 "ones whose answer the quoted sentence does not carry are dropped, so a survey may get fewer).")
    split: Split = setting(ALL_SPLITS, choices=SPLITS, help="The GT surveys to write questions on.")
    survey_ids: str | None = setting(None, metavar="IDS", help="Only these GT surveys, e.g. '0-4,7' (overrides "
                                                                "--split).")
    max_tries: int = setting(3, help="Answers asked for before a section's questions are recorded as missing (an "
                                     "unreadable answer gets a follow-up turn).")
    base_url: str | None = setting(None, help="OpenAI-compatible server for openai: writers (vLLM, llama.cpp).")
    concurrency: int = setting(8, help="Requests in flight at once (openai: writers).")
    timeout: float = setting(120.0, help="Seconds per request before it is retried.")
    batch_size: int = setting(8, help="Prompts per batch for hf:/gguf: writers.")
    device: str | None = setting(None, help="Where an hf:/gguf: writer runs: cpu, cuda, mps (default: the best).")
    cache_dir: Path | None = setting(
        None, help="Answer cache folder (default $SURGE_CACHE or ~/.cache/surge): a rerun sends nothing answered.")

    def __post_init__(self) -> None:
        check_choice("split", self.split, SPLITS)
        if self.per_survey < 1:
            raise SettingError(f"--per-survey must be at least 1, not {self.per_survey}")
        if self.max_tries < 1:
            raise SettingError(f"--max-tries must be at least 1, not {self.max_tries}")
