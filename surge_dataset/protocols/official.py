"""``--protocol official``, function by function beside the authors' released evaluator (``oneal2000/SurGE``,
``src/``; the reference copy is ``../shared/reference/surge-released/src``).

Each function here mirrors ONE released function (named in its docstring) and is implemented by calling
this package's single definition of that rule; none of the released code is copied. The released
functions take a ``MarkdownNode`` (``parse_markdown``'s root) and a survey dict; ours take the parsed
survey (:class:`~surge_dataset.survey.GeneratedSurvey`, which carries the reference list and citation
instances too), a ground-truth :class:`~surge_dataset.core.records.Survey` and a
:class:`~surge_dataset.data.corpus.Corpus`. Where the released code crashes (an empty ``all_cites``, no
section of 100 characters), these mirrors return what ``--aggregate released`` scores: 0 (None for CQS).
``tests/test_official_module.py`` calls both sides on the same inputs and requires equal results.

Not mirrored here: the judge prompts (our wording, :mod:`surge_dataset.llm.prompts`) and ``chat_openai`` (the
released judge settings are ``Judge(style="released")``, :mod:`surge_dataset.llm.judge`); ``eval_all``'s
folder rules and mean (``surge_dataset.evaluation``).

Why it is kept with no caller in the package: it is the released evaluator's API, one to one, so the parity tests
(``tests/test_official_module.py``) can call both sides by the same names and a reader can find, for each released
function, the rule this package applies. ``surge evaluate --protocol official`` runs the same rules through the
metrics (``surge_dataset.evaluation.metrics``), not through this module.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from surge_dataset.core.interfaces import NLIBackend
from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.records import Paper, Survey, gt_content_sections
from surge_dataset.data.corpus import Corpus
from surge_dataset.scoring import citations as cite
from surge_dataset.scoring import judges
from surge_dataset.scoring import shr as shr_rules
from surge_dataset.survey import GeneratedSurvey, SurveyNode, parse_survey, read_survey_file
from surge_dataset.survey.official_parse import official_citations

PROTOCOL = "official"
Pair = tuple[str, str]

# ------------------------------------------------------------------------------------ markdownParser.py


def read_survey(path: str | os.PathLike[str]) -> GeneratedSurvey:
    """``parse_markdown`` and ``parse_refs`` of one file at once: the parsed survey the functions below take."""
    text, _diagnostics = read_survey_file(path)
    return parse_survey(text, protocol=PROTOCOL)


def parse_markdown(path: str | os.PathLike[str]) -> SurveyNode:
    """Mirrors ``markdownParser.parse_markdown``: the heading tree; the root (``root``, level 0) holds the
    text before the first heading; content = the node's lines joined with ``\\n``."""
    return read_survey(path).root


def parse_refs(path: str | os.PathLike[str]) -> dict[int, str]:
    """Mirrors ``markdownParser.parse_refs``: reference number -> title of every ``[n] ...`` line."""
    return {number: ref.title for number, ref in read_survey(path).references.items()}


# ---------------------------------------------------------------------------------------- evaluator.py


def normalise_string(text: str) -> str:
    """Mirrors ``evaluator.normalize_string``: the ASCII letters of ``text``, lower-cased."""
    return normalise_title(text)


def title2docid(titles: Sequence[str], corpus: Corpus) -> list[int | None]:
    """Mirrors ``SurGEvaluator.title2docid[normalize_string(title)]``: the doc id of each title (the last
    corpus paper of a normalised title wins; a letterless title finds the last letterless one), or None."""
    return corpus.resolve(list(titles), empty_matches=True)


def refid2docid(refs: Mapping[int, str], corpus: Corpus) -> dict[int, int | None]:
    """Mirrors ``single_eval``'s ``refid2docid``: reference number -> resolved doc id. The released dict
    keeps the title string of an unresolved reference; ours says None (every rule treats both alike)."""
    numbers = list(refs)
    return dict(zip(numbers, title2docid([refs[n] for n in numbers], corpus), strict=True))


def corpus_papers(corpus: Corpus, doc_ids: Iterable[int | None]) -> dict[int, Paper]:
    """``SurGEvaluator.corpus_map`` restricted to ``doc_ids`` (None entries ignored)."""
    wanted = sorted({d for d in doc_ids if d is not None})
    return {p.doc_id: p for p in corpus.get(wanted) if p is not None}


def relevance_paper_pairs(
    refid2docid: Mapping[int, int | None], corpus: Corpus, survey_title: str
) -> dict[int, Pair | None]:
    """Mirrors ``single_eval``'s ``refcontent`` (Relevance-Paper): per reference, the (premise, hypothesis)
    pair with the abstract quoted; None where the released code writes ``[NOTEXIST]`` (unresolved)."""
    papers = corpus_papers(corpus, refid2docid.values())
    return {
        number: None if doc_id is None else cite.nli_pair("doc", papers[doc_id], survey_title, PROTOCOL)
        for number, doc_id in refid2docid.items()
    }


def citation_instances(cites: Sequence[tuple[int, str, str]]) -> list[cite.CitationInstance]:
    """(number, heading, sentence) triples as the scoring functions take them."""
    return [cite.CitationInstance(number, heading, sentence) for number, heading, sentence in cites]


def _level_pairs(level: str, cites: Sequence[tuple[int, str, str]], refid2docid: Mapping[int, int | None],
                 corpus: Corpus) -> list[Pair | None]:
    papers = corpus_papers(corpus, refid2docid.values())
    pairs = []
    for number, heading, sentence in cites:
        doc_id = refid2docid.get(number)
        context = heading if level == "sec" else sentence
        pairs.append(None if doc_id is None else cite.nli_pair(level, papers[doc_id], context, PROTOCOL))
    return pairs


def relevance_section_pairs(
    cites: Sequence[tuple[int, str, str]], refid2docid: Mapping[int, int | None], corpus: Corpus
) -> list[Pair | None]:
    """Mirrors ``single_eval``'s ``nli_pairs_subtitle`` as ``eval_relevance_section`` feeds them to the
    model: (hypothesis, premise), abstract unquoted; None for ``[NOTEXIST]`` (unresolved or unlisted number)."""
    return _level_pairs("sec", cites, refid2docid, corpus)


def relevance_sentence_pairs(
    cites: Sequence[tuple[int, str, str]], refid2docid: Mapping[int, int | None], corpus: Corpus
) -> list[Pair | None]:
    """Mirrors ``single_eval``'s ``nli_pairs_sentence`` as ``eval_relevance_sentence`` feeds them to the model."""
    return _level_pairs("sent", cites, refid2docid, corpus)


# --------------------------------------------------------------------------------- informationFuncs.py


def _zero_if_undefined(value: float | None) -> float:
    """The released code's ``else 0`` (and what ``--aggregate released`` scores where it would crash)."""
    return 0.0 if value is None else float(value)


def eval_coverage(target_cites: Sequence[int], refid2docid: Mapping[int, int | None]) -> float:
    """Mirrors ``informationFuncs.eval_coverage``: the share of ``all_cites`` entries (a repeated doc id
    counts twice) among the resolved doc ids."""
    return _zero_if_undefined(cite.citation_recall(refid2docid.values(), list(target_cites), protocol=PROTOCOL))


def _accuracy(level: str, gt: Survey | None, refid2docid: Mapping[int, int | None],
              cites: Sequence[tuple[int, str, str]], corpus: Corpus, nli: NLIBackend) -> float | None:
    result = cite.citation_accuracy(
        refid2docid, citation_instances(cites), corpus_papers(corpus, refid2docid.values()),
        gt.survey_title if gt else "", gt.all_cites if gt else (), nli, protocol=PROTOCOL, levels=(level,),
    )
    return {"doc": result.doc_acc, "sec": result.sec_acc, "sent": result.sent_acc}[level]


def eval_relevance_paper(
    gt: Survey, refid2docid: Mapping[int, int | None], corpus: Corpus, nli: NLIBackend
) -> float:
    """Mirrors ``informationFuncs.eval_relevance_paper``: mean over reference entries; 1 for a doc id in
    ``all_cites`` (no model), the NLI score (:func:`~surge_dataset.scoring.citations.nli_item_score`) for
    another resolved one, 0 for an unresolved one; 0 without references."""
    return _zero_if_undefined(_accuracy("doc", gt, refid2docid, (), corpus, nli))


def eval_relevance_section(
    cites: Sequence[tuple[int, str, str]], refid2docid: Mapping[int, int | None], corpus: Corpus,
    nli: NLIBackend,
) -> float:
    """Mirrors ``informationFuncs.eval_relevance_section``: mean NLI score over citation instances (0 for
    ``[NOTEXIST]``); 0 without citations."""
    return _zero_if_undefined(_accuracy("sec", None, refid2docid, cites, corpus, nli))


def eval_relevance_sentence(
    cites: Sequence[tuple[int, str, str]], refid2docid: Mapping[int, int | None], corpus: Corpus,
    nli: NLIBackend,
) -> float:
    """Mirrors ``informationFuncs.eval_relevance_sentence`` (as :func:`eval_relevance_section`, sentence level)."""
    return _zero_if_undefined(_accuracy("sent", None, refid2docid, cites, corpus, nli))


def nli_label_score(logits: Sequence[float]) -> float:
    """Mirrors the scoring loop of ``eval_relevance_paper/section/sentence`` for one (c, e, n) logit row."""
    return cite.nli_item_score(logits, PROTOCOL)


def extract_references(text: str) -> list[tuple[int, str]]:
    """Mirrors ``informationFuncs.extract_references``: (number, sentence) of every ``[n]`` in ``text``."""
    return [(number, sentence) for number, sentence, _at in official_citations(text)]


def extract_cites_with_subtitle_and_sentence(survey: GeneratedSurvey) -> list[tuple[int, str, str]]:
    """Mirrors ``informationFuncs.extract_cites_with_subtitle_and_sentence``: (number, heading, sentence)
    of every citation instance, nodes skipped by the ``root``/``Abstract:`` rule left out."""
    return [(c.number, c.node_title, c.sentence) for c in survey.citations]


def get_content_list(survey: GeneratedSurvey) -> list[str]:
    """Mirrors ``get_content_list`` (``informationFuncs`` and ``rougeBleuFuncs``, identical): the content of
    every node, root included, with at least 100 characters."""
    return [node.content for node in survey.content_sections()]


def logic_sample(survey: GeneratedSurvey) -> list[str]:
    """Mirrors ``informationFuncs.eval_logic_client``'s sampling and cutting: what the CQS judge reads."""
    return judges.cqs_sample(get_content_list(survey))


def eval_logic_client(survey: GeneratedSurvey, judge: judges.ScoreJudge) -> float | None:
    """Mirrors ``informationFuncs.eval_logic_client``: mean judge score over :func:`logic_sample`
    (None where the released code divides by zero, or when every answer is missing)."""
    return judges.content_quality(get_content_list(survey), judge).value


# ----------------------------------------------------------------------------------- structureFuncs.py


def soft_heading_recall(gt_titles: Sequence[str], generated_titles: Sequence[str], encoder: shr_rules.TextEncoder) -> float:
    """Mirrors ``structureFuncs.soft_heading_recall`` (with ``calc_sim``, ``soft_cardinality``): SHR of
    two heading lists; 0 when the GT's soft cardinality is 0. Generated titles are cut to 512 characters
    here too (the released code cuts them in ``get_title_list``; cutting twice changes nothing)."""
    return _zero_if_undefined(shr_rules.soft_heading_recall(gt_titles, generated_titles, encoder, protocol=PROTOCOL))


def get_title_list(survey: GeneratedSurvey) -> list[str]:
    """Mirrors ``structureFuncs.get_title_list``: generated headings (skip rule applied), each cut to 512."""
    return shr_rules.cut_headings(survey.heading_titles())


def eval_sh_recall(gt: Survey, survey: GeneratedSurvey, encoder: shr_rules.TextEncoder) -> float:
    """Mirrors ``structureFuncs.eval_SHRecall``: SHR of the GT sections with content against
    :func:`get_title_list`; 0 without generated headings."""
    gt_titles = [title for title, _content in gt_content_sections(gt)]
    return soft_heading_recall(gt_titles, get_title_list(survey), encoder)


def get_target_title_structure(gt: Survey) -> str:
    """Mirrors ``structureFuncs.get_target_title_structure(target, root_id, 1)``: the GT outline the SQS
    judge sees."""
    return judges.render_gt_outline(gt)


def get_generate_title_structure(survey: GeneratedSurvey) -> str:
    """Mirrors ``structureFuncs.get_generate_title_structure(root, 1)``: the generated outline, every line
    ending with ``\\n``."""
    return survey.heading_markdown()


def is_short_outline(generated_outline: str) -> bool:
    """Mirrors ``eval_structure_quality_client``'s ``if len(gen_titles) < 5: return 0``."""
    return judges.is_short_outline(generated_outline)


def eval_structure_quality_client(gt: Survey, survey: GeneratedSurvey, judge: judges.ScoreJudge) -> float | None:
    """Mirrors ``structureFuncs.eval_structure_quality_client``: the judge's 0-5 for the two outlines;
    0 without asking for an outline under 5 characters (None when every answer is missing)."""
    outline = get_generate_title_structure(survey)
    return judges.structure_quality(get_target_title_structure(gt), outline, judge).value


# ----------------------------------------------------------------------------------- rougeBleuFuncs.py


def calculate_average_rouge_bleu(
    generated: Sequence[str], gt_sections: Sequence[str]
) -> tuple[float, float, float, float]:
    """Mirrors ``rougeBleuFuncs.calculate_average_rouge_bleu``: mean over generated sections of the best
    ROUGE-1/2/L F against any GT section, and of sentence BLEU against all of them; 0s when undefined."""
    from surge_dataset.scoring.rouge_bleu import rouge_bleu  # rouge_score, sacrebleu: imported only when used

    values = rouge_bleu(list(generated), list(gt_sections))
    r1, r2, rl, bleu = (_zero_if_undefined(values[key]) for key in ("rouge1", "rouge2", "rougeL", "bleu"))
    return r1, r2, rl, bleu


def eval_rouge_bleu(gt: Survey, survey: GeneratedSurvey) -> tuple[float, float, float, float]:
    """Mirrors ``rougeBleuFuncs.eval_rougeBleu``: :func:`calculate_average_rouge_bleu` of the generated
    sections with content against the GT sections with content."""
    return calculate_average_rouge_bleu(get_content_list(survey), [content for _t, content in gt_content_sections(gt)])
