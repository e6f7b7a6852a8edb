"""SurGE Content Quality Score (CQS): an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.metadata import SURGE_BIBTEX as _CITATION
from surge_dataset.scoring.batch import batch_cqs

_DESCRIPTION = """\
LLM-judged writing quality (0-5) of up to 20 sampled sections of a generated survey (SurGE CQS).
Sections (the text before the first heading included) with at least 100 characters; min(20, n) sampled with numpy's legacy generator seeded 42; each cut to 1,000 characters and back to its last '.'; the judge scores fluency and coherence, logical clarity, avoidance of redundancy, clarity of description and absence of errors; CQS = mean. A survey with no such section gets None and a diagnostic.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated surveys as Markdown.
    judge (str): the LLM judge: "openai:<model>" (OpenAI or any compatible server; key from
        $SURGE_LLM_API_KEY or $OPENAI_API_KEY), "hf:<model id or folder>" or "gguf:<file>".
    base_url (str): server URL for openai: judges (vLLM, llama.cpp); judge_concurrency (int, default 8).
    weighted (bool): also return the probability-weighted score (hf:/gguf: judges only).
    max_tries (int, default 3): answers asked for before a score is recorded as missing.
    protocol (str): how the Markdown is read, "official" (default) or "paper".
    cache_dir, device, batch_size, timeout: where answers are cached and how the judge runs.
Returns:
    cqs (float or None): mean over surveys; cqs_weighted; missing (int); per_survey, per_survey_weighted,
    diagnostics (a survey without a section of 100 characters is None with a "no_cqs_sections" note).
Examples:
>>> import evaluate
>>> from surge_dataset.llm.testing import ScriptedOpenAIServer  # a local OpenAI-compatible server that answers "5"
>>> cqs = evaluate.load("surge/cqs")
>>> survey = "# Introduction\\n\\n" + "Graph neural networks pass messages along the edges of a graph. " * 3
>>> with ScriptedOpenAIServer(["5"]) as server:  # for the published judge model: judge="openai:gpt-4o", no base_url
...     results = cqs.compute(predictions=[survey], judge="openai:my-judge", base_url=server.base_url, cache_dir=False)
>>> print(results["cqs"], results["missing"], len(server.requests))
5.0 0 1
"""



@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ContentQualityScore(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            homepage=PAPER_URL,
            codebase_urls=[CODEBASE_URL],
        )

    def _compute(
        self,
        predictions,
        judge=None,
        protocol="official",
        **kwargs,
    ):
        return batch_cqs(predictions, judge=judge, protocol=protocol, **kwargs)
