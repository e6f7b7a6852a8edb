"""The settings of a generation run (``surge generate``), each declared once with :func:`~surge_dataset.core.settings.setting`.

:class:`GenerationConfig` holds what changes the generated text, and which surveys are generated;
:class:`GenerationRunOptions` holds how a run goes, which never changes a word of it. The CLI options are
read off these fields (flag, default, help, choices: ``cli.options.option``), and every check lives in the
``__post_init__`` methods, so ``surge generate``, ``python -m surge_dataset.cli.generate`` and a library
caller are checked alike. A wrong setting is a :class:`~surge_dataset.core.errors.SettingError` (a
``ValueError``; in the CLI one line and exit 2, as every ``SurgeError``).

Key rules (``key=``) say what enters a run's resume key (``generation/run.py``: the system, its options and
decoding settings, the LLM, ``top_k`` and the run's digest, besides the dataset's fingerprint): ``always``
for those, ``never`` for the rest. A survey folder made under another key is generated again.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import InitVar, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from surge_dataset.core.errors import SettingError
from surge_dataset.core.settings import setting
from surge_dataset.core.vocabulary import (
    ALL_SPLITS,
    GGUF,
    HF,
    OPENAI,
    SPLITS,
    Split,
    check_choice,
    parse_assignments,
    parse_ids,
)

if TYPE_CHECKING:
    from surge_dataset.generation.generator import Generator

__all__ = ["GenerationConfig", "GenerationRunOptions", "parse_system_options"]

#: Backends that run the model in this process (``--threads``, ``--batch-size``, ``--dtype`` apply).
LOCAL_BACKENDS = (HF, GGUF)


def parse_system_options(items: Mapping[str, Any] | Sequence[str] | None) -> dict[str, Any]:
    """``['max_sections=6', 'signals = s.json']`` (``-o``, repeatable) -> ``{'max_sections': '6', 'signals': 's.json'}``.

    Dashes in a key become underscores; a mapping is taken as it is. The values stay text: the system
    converts each to the type of its default.
    """
    if isinstance(items, Mapping):
        return dict(items)
    options = parse_assignments(list(items or []), "--option", shape="KEY=VALUE", empty_value=True)
    return {key.replace("-", "_"): value for key, value in options.items()}




@dataclass
class GenerationConfig:
    """What changes the generated surveys (and which are generated), checked in ``__post_init__``, which
    also builds :attr:`generator` (that is what checks the system's name and options)."""

    system: str = setting(
        help="rag, autosurvey, stepsurvey, surveyforge, naive_rag, qualsg, llm_only, guided, any generator an installed "
             "package declares in the surge.generators entry-point group, or module:Class.")
    llm: str = setting(help="openai:<model>, hf:<model id or folder> or gguf:<file>.")
    run: Path | None = setting(
        None, help="TREC run of survey-title queries (surge retrieve); needed by retrieval-based systems.")
    split: Split = setting("test", key="never", choices=SPLITS, help="The surveys of this split.")
    survey_ids: list[int] | None = setting(
        None, key="never", help="Only these surveys, e.g. '10,11' or '0-40'.")
    top_k: int = setting(100, help="Papers of the run given to the system per survey.")
    limit: int | None = setting(None, key="never", help="Only the first N surveys (after --split/--survey-ids).")
    max_new_tokens: int = setting(1024, help="Token budget of each LLM answer.")
    temperature: float = setting(0.0, help="0 = greedy (reproducible).")
    # Changes the text (a longer context keeps more of each paper in a prompt), but the resume key leaves it
    # out, as it always did: surveys finished under another context are kept.
    context_length: int | None = setting(
        None, key="never",
        help="Tokens the model reads at most (prompt + answer); longer prompts get fewer/shorter papers. Default: "
             "from the model's config (hf:/gguf:), none for openai: (0 = never shorten).")
    # A config setting, not a run option: the precision of a local model changes its logits, so a greedy answer
    # can differ (the LLM answer cache keys on the resolved dtype for that reason). The resume key leaves it out,
    # as it always did; each survey.json records it. No choices checked: the backend also takes the long names
    # (bfloat16, float16, float32) and says what it takes when the model loads.
    dtype: str | None = setting(
        None, key="never", help="bf16, fp16 or fp32 for hf:/gguf: (default bf16 on GPU, fp32 on CPU).")
    system_options: dict[str, Any] = setting(
        default_factory=dict, flag="--option", short="-o", metavar="KEY=VALUE", cli_type=list[str],
        help="System option KEY=VALUE (repeatable), e.g. -o max_sections=6 -o signals=surveygen_signals.json.")

    def __post_init__(self) -> None:
        from surge_dataset.llm.base import BackendSpec

        BackendSpec.parse(self.llm)  # an LLMConfigurationError names the three forms
        self.system_options = parse_system_options(self.system_options)
        if self.generator.inputs == "retrieval":  # building the system checks its name and options
            if self.run is None:
                raise SettingError(
                    f"--system {self.system} writes from retrieved papers: give a run with --run (surge retrieve)")
            if not Path(self.run).is_file():  # make demo writes no run: say which commands write one
                raise SettingError(
                    f"--run {self.run}: no such file; a run of the survey titles is written by `surge index bm25 "
                    "--data surge --out indexes/bm25` then `surge retrieve --index indexes/bm25 --data surge --queries "
                    f"test --query-type titles --k 100 --out {self.run}` (docs: Retrieval and training)")
        check_choice("--split", self.split, SPLITS)
        if self.survey_ids is not None:
            try:  # '' (or ',') selects nothing, so the split decides, as it always did
                self.survey_ids = parse_ids(self.survey_ids) or None
            except ValueError as exc:
                raise SettingError(f"--survey-ids {self.survey_ids!r}: {exc}") from None

    @functools.cached_property
    def generator(self) -> Generator:
        """The system, built from ``system``, ``system_options``, ``max_new_tokens`` and ``temperature``."""
        from surge_dataset.generation.generator import (
            get_generator,  # an unknown name or option is a SurgeError (one line, exit 2)
        )

        return get_generator(self.system, max_new_tokens=self.max_new_tokens, temperature=self.temperature,
                               **self.system_options)

    def select_surveys(self, data: Any) -> list[int]:
        """The ids to generate, in order: ``survey_ids`` (each must be in ``data``) or the split's, then ``limit``."""
        if self.survey_ids:
            unknown = [i for i in self.survey_ids if not data.has_survey(i)]
            if unknown:
                raise SettingError(
                    f"--survey-ids: no survey {', '.join(map(str, unknown))} in {getattr(data, 'path', data)}")
            ids = list(self.survey_ids)
        else:
            ids = [s.survey_id for s in data.surveys(None if self.split == ALL_SPLITS else self.split)]
        return ids if self.limit is None else ids[: max(0, self.limit)]

    @property
    def local(self) -> bool:
        """The LLM runs in this process (hf:/gguf:), not on a server."""
        from surge_dataset.llm.base import backend_kind

        return backend_kind(self.llm) in LOCAL_BACKENDS


@dataclass
class GenerationRunOptions:
    """How a generation run goes: where it writes, how the LLM is reached and fed, whether it is a dry run.

    None of these changes a generated word (parallel surveys write what one survey at a time writes;
    ``tests/test_generation.py`` checks it), so none is in the resume key. ``llm`` (the config's) is only
    read by the checks: some options are for one kind of backend.
    """

    out: Path | None = setting(
        None, key="never",
        help="Output folder: <out>/<survey_id>/survey.md + survey.json (required unless --dry-run).")
    base_url: str | None = setting(
        None, key="never", help="OpenAI-compatible server for openai: (vLLM, llama.cpp).")
    cache_dir: Path | None = setting(
        None, key="never", help="LLM answer cache (default $SURGE_CACHE or ~/.cache/surge).")
    concurrency: int = setting(8, key="never", help="Requests in flight at once per survey (openai:).")
    parallel_surveys: int = setting(
        1, key="never",
        help="Surveys generated at once (openai: only; up to this x --concurrency requests in flight).")
    # A run option as the LLM answer cache treats it: answers are cached per prompt, whatever batch they came in.
    batch_size: int = setting(8, key="never", help="Prompts per forward batch (hf:/gguf:).")
    threads: int | None = setting(
        None, key="never",
        help="CPU threads of torch for hf:/gguf: (default: $SURGE_NUM_THREADS, else $OMP_NUM_THREADS, else half "
             "the usable cores; 0 = leave torch's own choice, one per core, which busy-waits on a loaded machine).")
    timeout: float = setting(600.0, key="never", help="Seconds per openai: request before it is retried.")
    dry_run: bool = setting(
        False, key="never",
        help="Estimate LLM calls and tokens per survey with a stand-in LLM; send nothing, write nothing.")
    price_per_1k: tuple[float, float] | None = setting(
        None, key="never", metavar="IN,OUT", help="With --dry-run: IN,OUT price per 1,000 tokens.")
    llm: InitVar[str | None] = None

    def __post_init__(self, llm: str | None) -> None:
        from surge_dataset.llm.base import backend_kind
        from surge_dataset.llm.usage import parse_price

        if self.parallel_surveys > 1 and llm is not None and backend_kind(llm) != OPENAI:
            raise SettingError(
                "--parallel-surveys is for openai: servers; local hf:/gguf: models batch within a survey (use "
                "accelerate launch for several GPUs)")
        if self.price_per_1k and not self.dry_run:
            raise SettingError(
                "--price-per-1k goes with --dry-run (real runs record tokens in each survey.json)")
        if self.price_per_1k is None or isinstance(self.price_per_1k, str):
            try:
                self.price_per_1k = parse_price(self.price_per_1k)
            except ValueError as exc:
                raise SettingError(str(exc)) from None
        else:
            self.price_per_1k = (float(self.price_per_1k[0]), float(self.price_per_1k[1]))
        if self.out is None and not self.dry_run:
            raise SettingError("--out is required (a folder for the generated surveys)")

    def thread_count(self, config: GenerationConfig) -> int | None:
        """The torch threads a local model will run on (recorded in each survey.json); None for a server or
        ``threads=0``. Checked before the run: a bad ``$SURGE_NUM_THREADS`` is the user's to fix."""
        if not config.local or self.threads == 0:
            return None
        from surge_dataset.models.threads import resolve_threads

        try:
            return resolve_threads(self.threads).threads
        except ValueError as exc:
            raise SettingError(str(exc)) from None
