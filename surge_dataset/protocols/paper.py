"""``--protocol paper``: the paper's reading under the same function names as :mod:`.official`.

Only the functions whose paper reading differs are defined here; the others are the official ones (same
rule under both protocols). Undefined values are None here (``--aggregate defined`` leaves them out of
the mean), not 0.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from surge_dataset.core.interfaces import NLIBackend
from surge_dataset.core.records import Survey, gt_content_sections
from surge_dataset.data.corpus import Corpus
from surge_dataset.protocols.official import (
    calculate_average_rouge_bleu,
    citation_instances,
    corpus_papers,
    get_target_title_structure,
    normalise_string,
)
from surge_dataset.scoring import citations as cite
from surge_dataset.scoring import judges
from surge_dataset.scoring import shr as shr_rules
from surge_dataset.survey import GeneratedSurvey, SurveyNode, parse_survey, read_survey_file

__all__ = [
    "calculate_average_rouge_bleu",
    "eval_coverage",
    "eval_logic_client",
    "eval_relevance_paper",
    "eval_relevance_section",
    "eval_relevance_sentence",
    "eval_rouge_bleu",
    "eval_sh_recall",
    "eval_structure_quality_client",
    "extract_cites_with_subtitle_and_sentence",
    "get_content_list",
    "get_generate_title_structure",
    "get_target_title_structure",
    "get_title_list",
    "logic_sample",
    "normalise_string",
    "parse_markdown",
    "parse_refs",
    "read_survey",
    "refid2docid",
    "soft_heading_recall",
    "title2docid",
]

PROTOCOL = "paper"


def read_survey(path: str | os.PathLike[str]) -> GeneratedSurvey:
    """The survey under the paper's reading (BOM dropped, references section, all citation forms)."""
    text, _diagnostics = read_survey_file(path)
    return parse_survey(text, protocol=PROTOCOL)


def parse_markdown(path: str | os.PathLike[str]) -> SurveyNode:
    """The heading tree (CommonMark headings, none inside code fences)."""
    return read_survey(path).root


def parse_refs(path: str | os.PathLike[str]) -> dict[int, str]:
    """Reference number -> whole title, from the References section when there is one."""
    return {number: ref.title for number, ref in read_survey(path).references.items()}


def title2docid(titles: Sequence[str], corpus: Corpus) -> list[int | None]:
    """As the official lookup, but a title without letters resolves to nothing."""
    return corpus.resolve(list(titles), empty_matches=False)


def refid2docid(refs: Mapping[int, str], corpus: Corpus) -> dict[int, int | None]:
    numbers = list(refs)
    return dict(zip(numbers, title2docid([refs[n] for n in numbers], corpus), strict=True))


def eval_coverage(target_cites: Sequence[int], refid2docid: Mapping[int, int | None]) -> float | None:
    """Distinct GT papers found / distinct GT papers."""
    return cite.citation_recall(refid2docid.values(), list(target_cites), protocol=PROTOCOL)


def extract_cites_with_subtitle_and_sentence(survey: GeneratedSurvey) -> list[tuple[int, str, str]]:
    """Citation instances of every form (``[1, 2]``, ``[1-3]`` ...), sentence boundaries, no reference lines."""
    return [(c.number, c.node_title, c.sentence) for c in survey.citations]


def _accuracy(level: str, gt: Survey, refid2docid: Mapping[int, int | None], cites: Sequence[tuple[int, str, str]],
              corpus: Corpus, nli: NLIBackend) -> float | None:
    result = cite.citation_accuracy(
        refid2docid, citation_instances(cites), corpus_papers(corpus, refid2docid.values()), gt.survey_title,
        gt.all_cites, nli, protocol=PROTOCOL, levels=(level,),
    )
    return {"doc": result.doc_acc, "sec": result.sec_acc, "sent": result.sent_acc}[level]


def eval_relevance_paper(gt: Survey, refid2docid: Mapping[int, int | None], cites: Sequence[tuple[int, str, str]],
                         corpus: Corpus, nli: NLIBackend) -> float | None:
    """Doc-Acc over citation instances (not reference entries), premise unquoted, neutral always 0.5."""
    return _accuracy("doc", gt, refid2docid, cites, corpus, nli)


def eval_relevance_section(gt: Survey, refid2docid: Mapping[int, int | None], cites: Sequence[tuple[int, str, str]],
                           corpus: Corpus, nli: NLIBackend) -> float | None:
    """Sec-Acc with the pair in (premise, hypothesis) order."""
    return _accuracy("sec", gt, refid2docid, cites, corpus, nli)


def eval_relevance_sentence(gt: Survey, refid2docid: Mapping[int, int | None], cites: Sequence[tuple[int, str, str]],
                            corpus: Corpus, nli: NLIBackend) -> float | None:
    """Sent-Acc with the pair in (premise, hypothesis) order."""
    return _accuracy("sent", gt, refid2docid, cites, corpus, nli)


def get_content_list(survey: GeneratedSurvey) -> list[str]:
    """Sections with content, root included, the references section left out."""
    return [node.content for node in survey.content_sections()]


def logic_sample(survey: GeneratedSurvey) -> list[str]:
    """Every section with content, whole (cut only past what the judge's context takes): the paper samples nothing."""
    return judges.cqs_texts(get_content_list(survey), PROTOCOL)


def eval_logic_client(survey: GeneratedSurvey, judge: judges.ScoreJudge) -> float | None:
    return judges.content_quality(get_content_list(survey), judge, protocol=PROTOCOL).value


def soft_heading_recall(gt_titles: Sequence[str], generated_titles: Sequence[str], encoder: shr_rules.TextEncoder) -> float | None:
    """SHR with both heading lists cut to 512 characters; None when undefined."""
    return shr_rules.soft_heading_recall(gt_titles, generated_titles, encoder, protocol=PROTOCOL)


def get_title_list(survey: GeneratedSurvey) -> list[str]:
    """Generated headings without Abstract, empty and References headings, cut to 512 characters."""
    return shr_rules.cut_headings(survey.heading_titles())


def eval_sh_recall(gt: Survey, survey: GeneratedSurvey, encoder: shr_rules.TextEncoder) -> float | None:
    gt_titles = [title for title, _content in gt_content_sections(gt)]
    return soft_heading_recall(gt_titles, get_title_list(survey), encoder)


def get_generate_title_structure(survey: GeneratedSurvey) -> str:
    """The generated outline, lines joined with ``\\n``."""
    return survey.heading_markdown()


def eval_structure_quality_client(gt: Survey, survey: GeneratedSurvey, judge: judges.ScoreJudge) -> float | None:
    return judges.structure_quality(get_target_title_structure(gt), get_generate_title_structure(survey), judge).value


def eval_rouge_bleu(gt: Survey, survey: GeneratedSurvey) -> tuple[float, float, float, float] | None:
    """None when there is nothing to compare (no generated or no GT section with content)."""
    generated, references = get_content_list(survey), [content for _t, content in gt_content_sections(gt)]
    if not generated or not references:
        return None
    return calculate_average_rouge_bleu(generated, references)
