"""SurveyGen Key Point Recall (KPR): an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.scoring.batch import batch_kpr

_CITATION = """\
@article{surveygen2025,
  title   = {SurveyGen: Quality-Aware Scientific Survey Generation with Large Language Models},
  journal = {arXiv preprint arXiv:2508.17647},
  year    = {2025}
}
"""

_DESCRIPTION = """\
Share of the human survey's key points (extracted by an LLM) that an LLM finds in the generated survey (SurveyGen KPR).
Step 1: the judge lists up to 20 key points of the GT survey (the request depends only on the GT, so it is cached once for every system). Step 2: for each point the judge answers 1 if the generated survey covers it, else 0. KPR = mean. Surveys longer than 30,000 characters are cut (noted in diagnostics).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated surveys as Markdown.
    references (list of dict): {"title": survey title, "text": the GT survey as Markdown
        (surge_dataset.scoring.judges.gt_text(survey))}.
    judge (str): the LLM judge: "openai:<model>" (OpenAI or any compatible server; key from
        $SURGE_LLM_API_KEY or $OPENAI_API_KEY), "hf:<model id or folder>" or "gguf:<file>".
    base_url (str): server URL for openai: judges (vLLM, llama.cpp); judge_concurrency (int, default 8).
    weighted (bool): also return the probability-weighted score (hf:/gguf: judges only).
    max_tries (int, default 3): answers asked for before a score is recorded as missing.
    protocol (str): how the Markdown is read, "official" (default) or "paper".
    cache_dir, device, batch_size, timeout: where answers are cached and how the judge runs.
Returns:
    kpr (float or None): mean over surveys; missing (int); per_survey, diagnostics.
Examples:
>>> import evaluate
>>> from surge_dataset.llm.testing import ScriptedOpenAIServer  # a local OpenAI-compatible server
>>> kpr = evaluate.load("surge/kpr")
>>> reference = {"title": "Graph Neural Networks", "text": "# Introduction\\n\\nGNNs pass messages along edges."}
>>> answers = ["- GNNs pass messages along edges.\\n- GNNs pool node states.", "Yes", "No"]  # points, then checks
>>> with ScriptedOpenAIServer(answers) as server:  # for a hosted judge: judge="openai:gpt-4o", no base_url
...     results = kpr.compute(predictions=["# Intro\\n\\nMessage passing."], references=[reference],
...                           judge="openai:my-judge", base_url=server.base_url, cache_dir=False, judge_concurrency=1)
>>> print(results["kpr"], results["missing"], len(server.requests))
0.5 0 3
"""



@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class KeyPointRecall(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": {"title": datasets.Value("string"), "text": datasets.Value("string")},
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
        return batch_kpr(predictions, references, judge=judge, protocol=protocol, **kwargs)
