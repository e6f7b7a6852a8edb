"""SurveyGen Rel_LLM: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.scoring.batch import batch_rel_llm

_CITATION = """\
@article{surveygen2025,
  title   = {SurveyGen: Quality-Aware Scientific Survey Generation with Large Language Models},
  journal = {arXiv preprint arXiv:2508.17647},
  year    = {2025}
}
"""

_DESCRIPTION = """\
LLM-judged structural alignment (1-5) between a generated survey and the human-written one (SurveyGen Rel_LLM).
The judge sees the topic and both outlines (Markdown heading lines) and rates alignment from 1 (none) to 5 (full); 1 without asking when the generated headings have under 5 characters.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated surveys as Markdown.
    references (list of dict): {"title": survey title, "outline": GT heading tree (render_gt_outline)}.
    judge (str): the LLM judge: "openai:<model>" (OpenAI or any compatible server; key from
        $SURGE_LLM_API_KEY or $OPENAI_API_KEY), "hf:<model id or folder>" or "gguf:<file>".
    base_url (str): server URL for openai: judges (vLLM, llama.cpp); judge_concurrency (int, default 8).
    weighted (bool): also return the probability-weighted score (hf:/gguf: judges only).
    max_tries (int, default 3): answers asked for before a score is recorded as missing.
    protocol (str): how the Markdown is read, "official" (default) or "paper".
    cache_dir, device, batch_size, timeout: where answers are cached and how the judge runs.
Returns:
    rel_llm (float or None): mean over surveys; rel_llm_weighted; missing (int); per_survey, diagnostics.
Examples:
>>> import evaluate
>>> from surge_dataset.llm.testing import ScriptedOpenAIServer  # a local OpenAI-compatible server that answers "3"
>>> rel_llm = evaluate.load("surge/rel_llm")
>>> reference = {"title": "Graph Neural Networks", "outline": "# Introduction\\n\\n# Message Passing\\n\\n"}
>>> with ScriptedOpenAIServer(["3"]) as server:  # for a hosted judge: judge="openai:gpt-4o", no base_url
...     results = rel_llm.compute(predictions=["# Introduction\\n\\n## Methods\\n"], references=[reference],
...                               judge="openai:my-judge", base_url=server.base_url, cache_dir=False)
>>> print(results["rel_llm"], results["missing"], len(server.requests))
3.0 0 1
"""



@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RelLLM(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": {"title": datasets.Value("string"), "outline": datasets.Value("string")},
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
        return batch_rel_llm(predictions, references, judge=judge, protocol=protocol, **kwargs)
