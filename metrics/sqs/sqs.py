"""SurGE Structure Quality Score (SQS): an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.metadata import SURGE_BIBTEX as _CITATION
from surge_dataset.scoring.batch import batch_sqs

_DESCRIPTION = """\
LLM-judged similarity (0-5) of the generated survey's heading tree to the ground truth's (SurGE SQS).
The judge sees both heading trees as Markdown heading lines and answers one integer 0-5 for similarity of structure, meaning and wording; 0 without asking when the generated headings have under 5 characters. The published numbers used GPT-4o (`judge="openai:gpt-4o"`).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated surveys as Markdown.
    references (list of str): the GT heading trees, rendered with
        surge_dataset.scoring.judges.render_gt_outline(survey).
    judge (str): the LLM judge: "openai:<model>" (OpenAI or any compatible server; key from
        $SURGE_LLM_API_KEY or $OPENAI_API_KEY), "hf:<model id or folder>" or "gguf:<file>".
    base_url (str): server URL for openai: judges (vLLM, llama.cpp); judge_concurrency (int, default 8).
    weighted (bool): also return the probability-weighted score (hf:/gguf: judges only).
    max_tries (int, default 3): answers asked for before a score is recorded as missing.
    protocol (str): how the Markdown is read, "official" (default) or "paper".
    cache_dir, device, batch_size, timeout: where answers are cached and how the judge runs.
Returns:
    sqs (float or None): mean over surveys; sqs_weighted: same for the weighted score (None unless weighted);
    missing (int): judge answers that could not be obtained; per_survey, per_survey_weighted, diagnostics.
Examples:
>>> import evaluate
>>> from surge_dataset.llm.testing import ScriptedOpenAIServer  # a local OpenAI-compatible server that answers "4"
>>> sqs = evaluate.load("surge/sqs")
>>> reference = "# Introduction\\n\\n# Message Passing\\n\\n"
>>> with ScriptedOpenAIServer(["4"]) as server:  # for the published judge model: judge="openai:gpt-4o", no base_url
...     results = sqs.compute(predictions=["# Introduction\\n\\n## Message passing\\n"], references=[reference],
...                           judge="openai:my-judge", base_url=server.base_url, cache_dir=False)
>>> print(results["sqs"], results["missing"], len(server.requests))
4.0 0 1
"""



@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class StructureQualityScore(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Value("string"),
                }
            ),
            homepage=PAPER_URL,
            codebase_urls=[CODEBASE_URL],
        )

    def _compute(
        self,
        predictions,
        references,
        judge=None,
        protocol="official",
        **kwargs,
    ):
        return batch_sqs(predictions, references, judge=judge, protocol=protocol, **kwargs)
