"""What the report's parts share: the published Table 4, column names, decimals, the errors, formatting."""

from __future__ import annotations

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.stats import CI_LEVEL as CI_LEVEL  # one definition, re-exported for the report

#: Table 4 of the SurGE paper (arXiv 2508.15658), copied from protocol.md §5 -- the only copy in the
#: package. Means over the paper's 41 test surveys; BLEU on sacreBLEU's 0-100 scale; SQS and CQS are
#: LLM-judge scores. Published numbers, never recomputed: shown only for reference (``--with-paper``).
PAPER_TABLE4: dict[str, dict[str, float]] = {
    "RAG-Qwen": {"recall": 0.0214, "doc_acc": 0.2857, "sec_acc": 0.2502, "sent_acc": 0.2500, "sqs": 0.6829,
                 "shr": 0.7900, "rougeL": 0.1519, "bleu": 10.38, "cqs": 4.6723},
    "RAG-GPT": {"recall": 0.0419, "doc_acc": 0.4525, "sec_acc": 0.3166, "sent_acc": 0.3226, "sqs": 0.7561,
                "shr": 0.6659, "rougeL": 0.1409, "bleu": 8.36, "cqs": 4.9250},
    "RAG-Gemini": {"recall": 0.0784, "doc_acc": 0.4680, "sec_acc": 0.4056, "sent_acc": 0.4124, "sqs": 1.2927,
                   "shr": 0.7591, "rougeL": 0.1442, "bleu": 8.37, "cqs": 4.5619},
    "AutoSurvey": {"recall": 0.0351, "doc_acc": 0.3617, "sec_acc": 0.4935, "sent_acc": 0.4870, "sqs": 1.3902,
                   "shr": 0.9697, "rougeL": 0.1578, "bleu": 10.44, "cqs": 4.7390},
    "StepSurvey": {"recall": 0.0630, "doc_acc": 0.4576, "sec_acc": 0.4571, "sent_acc": 0.4636, "sqs": 1.1951,
                   "shr": 0.9763, "rougeL": 0.1590, "bleu": 12.02, "cqs": 4.8451},
    "SurveyForge": {"recall": 0.0868, "doc_acc": 0.4719, "sec_acc": 0.4651, "sent_acc": 0.4772, "sqs": 1.0537,
                    "shr": 0.9493, "rougeL": 0.1443, "bleu": 8.99, "cqs": 4.8070},
}
PAPER_SOURCE = "SurGE paper, arXiv 2508.15658, Table 4; protocol.md §5"

#: Result key -> column header, in the order of the paper's Table 4.
TABLE4_COLUMNS: dict[str, str] = {
    "recall": "Recall", "doc_acc": "Doc-Acc", "sec_acc": "Sec-Acc", "sent_acc": "Sent-Acc", "sqs": "SQS",
    "shr": "SHR", "rougeL": "ROUGE-L", "bleu": "BLEU", "cqs": "CQS",
}
#: Other keys ``surge evaluate`` writes; in the table only when asked for (``--metrics``).
EXTRA_COLUMNS: dict[str, str] = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2"}
#: Metrics produced by an LLM judge: the drill-down lists surveys where they are missing.
#: Decimals shown per metric (BLEU is on a 0-100 scale, like the paper's).
DECIMALS: dict[str, int] = {"bleu": 2}
DEFAULT_DECIMALS = 4
PUBLISHED_MARK = "†"
SIGNIFICANCE_METHOD = (
    "p_value: two-sided paired permutation test (sign flips of per-survey differences, "
    "scipy.stats.permutation_test's test and p-value, surge_dataset.core.stats.paired_tests; exact when 2**n <= "
    "resamples); ci_low/ci_high: 95% paired percentile bootstrap of the mean difference; pairs = surveys where "
    "both systems' metric is defined"
)


class ReportError(SurgeError, ValueError):
    """Inputs that cannot make a trustworthy report (message says what to do)."""


class SurveySetMismatchError(ReportError):
    """Systems evaluated on different survey ids: paired statistics would compare different things."""


def metric_label(metric: str) -> str:
    return TABLE4_COLUMNS.get(metric) or EXTRA_COLUMNS.get(metric) or metric


def format_value(metric: str, value: float | None) -> str:
    return "–" if value is None else f"{value:.{DECIMALS.get(metric, DEFAULT_DECIMALS)}f}"


