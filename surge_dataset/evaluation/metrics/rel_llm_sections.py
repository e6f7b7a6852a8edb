"""Rel_LLM per section (SurveyGen Appendix D.1): the share of the generated sections an LLM judge finds relevant.

SurveyGen's main text reports Rel_LLM as one 1-5 rating of outline alignment (``rel_llm``); its Appendix D.1
defines Relevance_LLM = (1/|S|) Σ_{s∈S} I_relevant(s, H) over the generated survey's sections S against the
human-written survey H. This is that definition: one yes/no question per section. Which sections count (the
top-level ones, without references and other non-content sections or empty headings) and why:
:func:`surge_dataset.scoring.judges.relevance_sections`. H is shown as its outline, as ``rel_llm`` renders it.
"""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, Requests, register
from surge_dataset.evaluation.metrics._judged import all_repeats, judged_output, repeated_scores
from surge_dataset.scoring import judges
from surge_dataset.scoring.injection import injection_diagnostics


def _inputs(survey):
    return survey.gt.survey_title, judges.render_gt_outline(survey.gt), judges.relevance_sections(survey.parsed)


@register
class RelLLMSections(Metric):
    name = "rel_llm_sections"
    keys = ("rel_llm_sections",)
    value_range = (0.0, 1.0)
    needs = frozenset({"judge"})
    groups = ("surveygen",)
    judged = True
    order = 105
    description = (
        "Share of the generated survey's sections that an LLM judge finds relevant to the human-written survey "
        "(SurveyGen Relevance_LLM, Appendix D)"
    )

    def requests(self, survey, config):
        """Every section's question at once, so the run prefetches them in one batch."""
        return Requests(judge=all_repeats(judges.rel_llm_section_requests(*_inputs(survey)), config))

    def score(self, survey, models, config):
        title, outline, sections = _inputs(survey)
        scores = repeated_scores(models.judge, config, lambda judge: judges.rel_llm_sections(title, outline, sections, judge))
        output = judged_output(self, scores, config)
        quoted = [text[:judges.REL_SECTION_MAX_CHARS] for _, text in sections]  # what the questions quote
        output.diagnostics += injection_diagnostics(self.name, [heading for heading, _ in sections] + quoted)
        return output
