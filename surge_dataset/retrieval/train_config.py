"""The settings of ``training/train_retriever.py``: :class:`TrainConfig`, its ``--flags`` and its YAML file.

Each setting is declared once, as a field made with :func:`surge_dataset.core.settings.setting`: its default,
its ``--help`` text and its choices live on the field, and :func:`build_parser` reads the flags off the
fields (``--flag`` = the name with dashes). Precedence: the dataclass defaults < ``--config YAML`` < flags.
An unknown YAML key or a word outside a setting's choices is a :class:`~surge_dataset.core.errors.SurgeError`
(the script prints it as one line and exits 2): a typo must not pass silently.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from surge_dataset.core.defaults import DEFAULT_RETRIEVER_BASE_MODEL
from surge_dataset.core.errors import SurgeError
from surge_dataset.core.settings import declared, field_default, flag_of, help_text, setting
from surge_dataset.core.vocabulary import ChoiceError, check_choice, closest_hint

__all__ = ["MIXED_PRECISIONS", "QUERY_KINDS", "MixedPrecision", "QueryKind", "TrainConfig", "build_parser",
           "load_config"]

#: ``--mixed-precision``: ``auto`` defers to ``accelerate launch --mixed_precision``, else fp16 on a GPU and
#: fp32 on a CPU (``training_run.resolve_mixed_precision``).
MixedPrecision = Literal["auto", "no", "fp16", "bf16"]
MIXED_PRECISIONS: tuple[MixedPrecision, ...] = get_args(MixedPrecision)

#: ``--train-on``: survey titles (-> ``all_cites``) and ``queries.json`` questions (-> ``cites``).
QueryKind = Literal["titles", "questions"]
QUERY_KINDS: tuple[QueryKind, ...] = get_args(QueryKind)


@dataclass
class TrainConfig:
    """Every field is a YAML key and a ``--flag`` (underscores become dashes); the help is on the field.

    ``key``: whether a setting changes the trained model or its reported Recall@k (``always``) or only how the
    run goes (``never``: folders, logging, checkpoints, batch sizes of evaluation).
    """

    model: str = setting(DEFAULT_RETRIEVER_BASE_MODEL,
                         help="encoder to start from: a Hub id or a local folder (the paper: roberta-base)")
    data: str = setting("surge", metavar="DIR", help="a folder built by `surge data build` (only its train split is read)")
    output_dir: str = setting("runs/retriever", key="never", metavar="DIR",
                              help="where log.jsonl, checkpoints/ and model/ are written")
    epochs: int = setting(10, help="passes over the training pairs")
    max_steps: int = setting(-1, help="stop after this many optimizer steps and size the schedule on them "
                                      "(-1: run the epochs)")
    batch_size: int = setting(32, help="queries per process per micro-batch, each with 1 cited paper + NEGATIVES "
                                       "random papers")
    gradient_accumulation_steps: int = setting(1, help="micro-batches per optimizer step")
    negatives: int = setting(7, help="random corpus papers per query, re-drawn every epoch (softmax over "
                                     "1 + NEGATIVES)")
    in_batch_negatives: bool = setting(False, help="also score the batch's other papers, masking those relevant "
                                                   "to the query")
    lr: float = setting(5e-6, help="AdamW learning rate")
    weight_decay: float = setting(0.01, help="AdamW weight decay")
    warmup_ratio: float = setting(0.1, help="fraction of the steps with a linear warm-up (then linear decay)")
    max_grad_norm: float = setting(1.0, help="gradient clipping norm (0: no clipping)")
    max_query_length: int = setting(64, help="tokens kept per query")
    max_doc_length: int = setting(256, help="tokens kept per paper (title + abstract)")
    train_on: list[str] = setting(default_factory=lambda: list(QUERY_KINDS), choices=QUERY_KINDS, metavar="KINDS",
                                  help="query kinds to train on, one or both, comma-separated")
    holdout_fraction: float = setting(0.1, help="fraction of the train surveys held out for Recall@k after "
                                                "every epoch")
    eval_ks: list[int] = setting(default_factory=lambda: [20, 100, 1000], metavar="KS",
                                 help="cut-offs k of the held-out Recall@k (comma-separated)")
    eval_corpus_size: int = setting(100_000, help="papers ranked at evaluation: held-out positives + random ones "
                                                  "(0: the whole corpus)")
    eval_batch_size: int = setting(128, key="never", help="papers encoded per batch at evaluation")
    eval_before_training: bool = setting(False, key="never", help="evaluate once before the first step")
    save_steps: int = setting(0, key="never", help="checkpoint every N optimizer steps (0: at the end of every "
                                                   "epoch only)")
    save_total_limit: int = setting(2, key="never", help="checkpoints kept (the oldest are deleted)")
    logging_steps: int = setting(10, key="never", help="log the mean loss every N optimizer steps (log.jsonl, "
                                                       "stdout, TensorBoard)")
    mixed_precision: str = setting("auto", choices=MIXED_PRECISIONS, metavar="MODE",
                                   help="auto: fp16 on a GPU unless `accelerate launch --mixed_precision` says "
                                        "otherwise, fp32 on CPU")
    seed: int = setting(42, help="seed of the split, the batches and the negatives")
    resume: str | None = setting(None, key="never", metavar="PATH",
                                 help="continue from a checkpoint: a folder, or 'latest' (a bare --resume means "
                                      "latest)")
    progress: bool = setting(True, key="never", help="show a progress bar with the loss on stderr (main process "
                                                     "only)")

    def __post_init__(self) -> None:
        """Comma lists (from a flag) become lists; a word outside ``train_on``'s or ``mixed_precision``'s
        choices is a :class:`~surge_dataset.core.vocabulary.ChoiceError` naming the closest one."""
        self.train_on = _parse_list(self.train_on, str)
        self.eval_ks = _parse_list(self.eval_ks, int)
        if not self.train_on:
            raise ChoiceError(f"train_on needs at least one of {', '.join(QUERY_KINDS)}")
        for kind in self.train_on:
            check_choice("train_on", kind, QUERY_KINDS)
        check_choice("mixed_precision", self.mixed_precision, MIXED_PRECISIONS)


def _parse_list(value: Any, kind: type) -> list[Any]:
    """``"5,10"`` or ``"5 10"`` (a flag) or ``[5, 10]`` (YAML) -> ``[kind(5), kind(10)]``."""
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    return [kind(v) for v in value]


def _shown(default: Any) -> Any:
    return ",".join(map(str, default)) if isinstance(default, list) else default


def build_parser(description: str = "") -> argparse.ArgumentParser:
    """``--config`` plus one flag per :class:`TrainConfig` field, each with its help and its default.

    ``description``: the text above the flags (the script passes how to run it and the recipe).
    """
    parser = argparse.ArgumentParser(
        prog="train_retriever.py", description=description, formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,
        epilog="Defaults are the dataclass's; training/configs/paper.yaml holds the paper's recipe. "
               "The script's docstring explains why it is a plain accelerate loop.",
    )
    parser.add_argument("--config", metavar="YAML", help="YAML file whose keys are the flags below (flags win; "
                                                         "default: none, the defaults below)")
    for f in declared(TrainConfig):
        flag = flag_of(f)
        text = f"{help_text(f)} (default: {_shown(field_default(f))})"
        metavar = f.metadata["metavar"]
        if f.type in ("bool", bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, help=text)
        elif f.type in ("int", int):
            parser.add_argument(flag, type=int, metavar=metavar or "N", help=text)
        elif f.type in ("float", float):
            parser.add_argument(flag, type=float, metavar=metavar or "X", help=text)
        elif f.name == "resume":  # a bare --resume means the latest checkpoint
            parser.add_argument(flag, nargs="?", const="latest", type=str, metavar=metavar, help=text)
        else:
            parser.add_argument(flag, type=str, metavar=metavar or f.name.upper(), help=text)
    return parser


def load_config(argv: list[str] | None = None, *, description: str = "") -> TrainConfig:
    """Parse ``--config`` and the flags (``--help`` and argparse's own usage errors exit as argparse does).

    An unknown YAML key is a :class:`~surge_dataset.core.errors.SurgeError` naming it and the closest setting.
    """
    args = vars(build_parser(description).parse_args(argv))
    values: dict[str, Any] = {}
    if "config" in args:
        path = Path(args.pop("config"))
        loaded = _yaml_settings(path)
        known = [f.name for f in declared(TrainConfig)]
        unknown = [key for key in loaded if key not in known]
        if unknown:
            hints = "; ".join(f"{key!r} ({closest_hint(str(key), known)})" for key in unknown)
            raise SurgeError(f"unknown key(s) in the config file {path}: {hints}")
        values.update(loaded)
    values.update(args)
    return TrainConfig(**values)


def _yaml_settings(path: Path) -> dict[str, Any]:
    """The mapping a ``--config`` file holds (empty file: none)."""
    import yaml

    loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(loaded, dict):
        raise SurgeError(f"{path}: a config file holds `key: value` lines, not a {type(loaded).__name__}")
    return loaded
