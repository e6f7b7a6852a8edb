"""The LaTeX reader of ``surge data fresh``: e-prints built by ``tests/support/tarballs.py`` -> section tree, cite keys,
bibliography titles and the official ``structure`` list, every expected value written out by hand."""

from __future__ import annotations

import gzip
import io
import tarfile

import pytest

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.vocabulary import (
    BBL,
    BIB,
    BROKEN_LATEX,
    MALFORMED_ARCHIVE,
    NO_BIBLIOGRAPHY,
    NO_SECTIONS,
    NO_TEX,
)
from surge_dataset.fresh.arxiv_ids import bib_fields_arxiv_id, find_arxiv_id, normalise_arxiv_id
from surge_dataset.fresh.bibliography import parse_bbl, parse_bib, parse_thebibliography
from surge_dataset.fresh.latex import (
    MAX_UNCOMPRESSED_BYTES,
    ROOT_PARENT_ID,
    LatexSource,
    SourceError,
    extract_citations,
    read_eprint,
    structure_nodes,
    unpack_eprint,
)
from surge_dataset.fresh.latex_text import latex_to_text, strip_comments
from tests.support.tarballs import (
    MINIMAL_PDF,
    Reference,
    Section,
    bbl_text,
    bib_text,
    biblatex_bbl_text,
    gzip_single,
    survey_tex,
    tar_gz,
    tar_gz_with_unsafe_members,
)

REFERENCES = [
    Reference("vaswani2017", "Attention Is {All} You Need"),
    Reference("devlin2019", r"{BERT}: Pre-training of Deep Bidirectional Transformers"),
    Reference("brown2020", r"Language Models are Few-Shot Learners"),
    Reference("m\\\"uller2021", r"Sch\"{o}n und gut: \emph{efficient} {NLP}"),
    Reference("untitled", ""),
]
TITLES = {
    "vaswani2017": "Attention Is All You Need",
    "devlin2019": "BERT: Pre-training of Deep Bidirectional Transformers",
    "brown2020": "Language Models are Few-Shot Learners",
    'm\\"uller2021': "Schön und gut: efficient NLP",
}

SECTIONS = [
    Section("Introduction", "Transformers~\\cite{vaswani2017} changed \\emph{NLP}.\n"
                            "% a comment with \\cite{commented}\n"
                            "Pretraining \\citep[see][p.~3]{devlin2019, vaswani2017} followed; 50\\% of it.\n"),
    Section("Models", "Two families exist.\\label{sec:models}"),
    Section("Encoders", "BERT \\citet{devlin2019} reads both sides.\n\n"
                        "\\begin{table}[t]\\caption{Systems \\cite{brown2020}}"
                        "\\begin{tabular}{c}x\\end{tabular}\\end{table}\n"
                        "See Table~\\ref{tab:x}.", level="subsection"),
    Section("Masked objectives", "Masking \\cite{devlin2019}\\nocite{hidden}.", level="subsubsection"),
    Section("Decoders", "GPT-3~\\cite{brown2020,m\\\"uller2021} is large; $k$-shot prompts work.",
            level="subsection"),
    Section("Conclusion", "We conclude \\footnote{Really.}."),
]


def _tex(**kwargs) -> str:
    return survey_tex(r"A Survey of \emph{Transformers}\thanks{Funded.}", r"We review \cite{vaswani2017} models.",
                      SECTIONS, appendix=[Section("Proofs", "Appendix text \\cite{hidden2}.")], **kwargs)


def _outline(source: LatexSource) -> list[tuple[int, str, str, str, list[str]]]:
    return [(n.depth, n.level, n.title, n.content, n.cite_keys) for n in source.all_nodes()]


EXPECTED_OUTLINE = [
    (1, "section", "Introduction",
     "Transformers changed NLP. Pretraining followed; 50% of it.", ["vaswani2017", "devlin2019"]),
    (1, "section", "Models", "Two families exist.", []),
    (2, "subsection", "Encoders", "BERT reads both sides. See Table.", ["devlin2019", "brown2020"]),
    (3, "subsubsection", "Masked objectives", "Masking.", ["devlin2019"]),
    (2, "subsection", "Decoders", "GPT-3 is large; k-shot prompts work.", ["brown2020", 'm\\"uller2021']),
    (1, "section", "Conclusion", "We conclude.", []),
]


def test_nested_sections_content_and_citations_from_a_tar_with_a_bbl():
    source = read_eprint(tar_gz({"figures/a.png": b"\x89PNG", "main.tex": _tex(), "main.bbl": bbl_text(REFERENCES)}),
                         name="2401.00001")
    assert source.title == "A Survey of Transformers"
    assert source.abstract == "We review models."
    assert source.main_file == "main.tex"
    assert _outline(source) == EXPECTED_OUTLINE
    assert [len(n.children) for n in source.nodes] == [0, 2, 0]
    assert source.nodes[1].children[0].children[0].title == "Masked objectives"
    # the appendix and \nocite are not part of the survey; the commented \cite is gone
    assert source.all_cite_keys() == ["vaswani2017", "devlin2019", "brown2020", 'm\\"uller2021']
    assert source.bibliography == TITLES
    assert (source.bibliography_kind, source.bibliography_entries, source.bibliography_file) == (BBL, 5, "main.bbl")
    assert source.warnings == []


@pytest.mark.parametrize("files, kind, where", [
    ({"main.tex": _tex(), "refs.bib": bib_text(REFERENCES)}, BIB, "refs.bib"),
    ({"main.tex": _tex(), "main.bbl": biblatex_bbl_text(REFERENCES)}, BBL, "main.bbl"),
    ({"main.tex": _tex(bibliography=None, inline_references=REFERENCES)}, BBL, "main.tex"),
    # an empty .bbl falls through to the .bib the document names; an unnamed .bib is not read
    ({"main.tex": _tex(), "main.bbl": "", "refs.bib": bib_text(REFERENCES),
      "old.bib": bib_text([Reference("vaswani2017", "Wrong")])}, BIB, "refs.bib"),
])
def test_bib_biblatex_and_inline_bibliographies_give_the_same_titles(files, kind, where):
    source = read_eprint(tar_gz(files))
    assert source.bibliography == TITLES
    assert (source.bibliography_kind, source.bibliography_entries, source.bibliography_file) == (kind, 5, where)
    assert _outline(source) == EXPECTED_OUTLINE


def test_input_include_and_subfile_are_expanded_relative_to_the_main_file():
    main = ("\\documentclass{article}\n\\newcommand{\\method}{FooNet}\n\\begin{document}\n"
            "\\input{sections/intro}\n\\include{sections/body.tex}\n\\subfile{sections/sub}\n"
            "\\input{sections/missing}\n\\bibliography{refs}\n\\end{document}\n")
    files = {
        "paper/main.tex": main,
        "paper/sections/intro.tex": "\\section{Intro}\n\\method{} is ours \\cite{a}.\n\\input{sections/deeper}\n",
        "paper/sections/deeper.tex": "\\subsection{Deeper}\nNested \\cite{b}.\n\\input{sections/deeper}\n",
        "paper/sections/body.tex": "\\section{Body}\nBody text.\n",
        "paper/sections/sub.tex": ("\\documentclass[../main.tex]{subfiles}\n\\begin{document}\n"
                                   "\\section{Sub}\nSub text \\cite{a}.\n\\end{document}\n"),
        "paper/refs.bib": "@misc{a, title={Paper A}}\n@misc{b, title=\"Paper {B}\"}\n",
        "paper/draft.tex": "\\section{Not included}\n",
    }
    source = read_eprint(tar_gz(files), name="e")
    assert source.main_file == "paper/main.tex"
    assert _outline(source) == [
        (1, "section", "Intro", "FooNet is ours.", ["a"]),
        (2, "subsection", "Deeper", "Nested.", ["b"]),
        (1, "section", "Body", "Body text.", []),
        (1, "section", "Sub", "Sub text.", ["a"]),
    ]
    assert source.bibliography == {"a": "Paper A", "b": "Paper B"}
    assert source.warnings == [
        "e: \\input{sections/deeper} in paper/sections/deeper.tex: inputs itself or nests too deep, skipped",
        "e: \\input{sections/missing} in paper/main.tex: no such file in the archive, skipped",
    ]


def test_the_main_file_is_the_one_with_documentclass_and_begin_document():
    fragment = "\\documentclass{standalone}\n\\section{Figure}\n"
    other = "\\documentclass{article}\n\\begin{document}\n\\section{Other}\nx\n\\end{document}\n"
    files = {"a_fig.tex": fragment, "zz_other.tex": other, "ms.tex": _tex(), "ms.bbl": bbl_text(REFERENCES)}
    source = read_eprint(tar_gz(files))
    assert source.main_file == "ms.tex"  # over zz_other.tex: a main-file name
    assert [n.title for n in source.nodes] == ["Introduction", "Models", "Conclusion"]


def test_a_gzipped_single_tex_and_a_plain_tex():
    tex = _tex(bibliography=None, inline_references=REFERENCES)
    single = read_eprint(gzip_single(tex, original_name="2401.00002"))
    assert single.main_file == "2401.00002.tex"
    assert _outline(single) == EXPECTED_OUTLINE and single.bibliography == TITLES
    assert read_eprint(gzip_single(tex)).main_file == "main.tex"
    assert _outline(read_eprint(tex.encode("latin-1", "replace"))) == EXPECTED_OUTLINE


@pytest.mark.parametrize("data, reason", [
    (MINIMAL_PDF, MALFORMED_ARCHIVE),
    (gzip.compress(MINIMAL_PDF, mtime=0), MALFORMED_ARCHIVE),
    (b"\x00\x01garbage" * 50, MALFORMED_ARCHIVE),
    (gzip.compress(b"x" * 100, mtime=0)[:20], MALFORMED_ARCHIVE),  # truncated gzip
    (tar_gz({"README": "no source", "fig.pdf": MINIMAL_PDF}), NO_TEX),
    (tar_gz({"main.tex": _tex()}), NO_BIBLIOGRAPHY),
    (tar_gz({"main.tex": _tex(), "refs.bib": "% no entries\n"}), NO_BIBLIOGRAPHY),
    (tar_gz({"main.tex": "\\documentclass{article}\\begin{document}Just text \\cite{a}.\\end{document}",
             "main.bbl": bbl_text(REFERENCES)}), NO_SECTIONS),
    (tar_gz({"main.tex": "\\documentclass{article}\\begin{document}\\section\n\n\\end{document}",
             "main.bbl": bbl_text(REFERENCES)}), BROKEN_LATEX),
    (tar_gz({"a.tex": "\\section{A}", "b.tex": "\\section{B}"}), BROKEN_LATEX),  # no main file
], ids=["pdf", "gzipped-pdf", "garbage", "truncated-gzip", "no-tex", "no-bibliography", "empty-bib", "no-sections",
        "broken-section", "no-main-file"])
def test_unusable_eprints_raise_a_source_error_with_its_reason(data, reason):
    with pytest.raises(SourceError) as raised:
        read_eprint(data, name="2401.00003")
    assert raised.value.reason == reason
    assert isinstance(raised.value, SurgeError) and isinstance(raised.value, ValueError)
    assert str(raised.value).startswith("2401.00003: ") and str(raised.value).endswith(f"({reason})")


def test_a_gzip_bomb_is_refused_before_it_is_unpacked(monkeypatch):
    monkeypatch.setattr("surge_dataset.fresh.eprint_files.MAX_UNCOMPRESSED_BYTES", 1000)
    with pytest.raises(SourceError, match="more than 1000 bytes") as raised:
        unpack_eprint(gzip.compress(b"%" * 5000), name="bomb")
    assert raised.value.reason == MALFORMED_ARCHIVE
    with pytest.raises(SourceError, match="more than 1000 bytes"):
        unpack_eprint(tar_gz({"a.tex": "x" * 600, "b.tex": "y" * 600}), name="bomb")
    assert MAX_UNCOMPRESSED_BYTES == 200 * 1024 * 1024


def test_path_traversal_absolute_members_and_links_are_ignored():
    evil = "\\documentclass{article}\\begin{document}\\section{Evil}\\end{document}"
    data = tar_gz_with_unsafe_members({"main.tex": _tex(), "main.bbl": bbl_text(REFERENCES)},
                                      {"../main.tex": evil, "/tmp/evil.tex": evil, "a/../../x.tex": evil},
                                      symlink="link.tex")
    files, warnings = unpack_eprint(data, name="t")
    assert sorted(files) == ["main.bbl", "main.tex"]
    assert warnings == [
        "t: member '../main.tex' skipped (absolute path or '..')",
        "t: member '/tmp/evil.tex' skipped (absolute path or '..')",
        "t: member 'a/../../x.tex' skipped (absolute path or '..')",
        "t: link 'link.tex' skipped",
    ]
    source = read_eprint(data, name="t")
    assert _outline(source) == EXPECTED_OUTLINE and source.warnings == warnings


def test_broken_latex_is_recovered_with_warnings():
    tex = ("\\documentclass{article}\n\\begin{document}\n"
           "\\section{Intro \\emph{open\nIntro text \\cite{a}.\n"
           "\\section{Methods}\nBefore \\begin{itemize}\\item one \\cite{b}\n"
           "\\subsection\n\n"
           "\\subsection[Short]{Long {nested} title}\nSub text.\\end{enumerate} After.\n"
           "\\bibliography{refs}\n")  # no \end{document}
    source = read_eprint(tar_gz({"main.tex": tex, "refs.bib": "@misc{a, title={A}}\n@misc{b, title={B}}"}), name="x")
    assert _outline(source) == [
        (1, "section", "Intro open", "Intro text.", ["a"]),
        (1, "section", "Methods", "Before one", ["b"]),
        (2, "subsection", "Long nested title", "Sub text. After.", []),
    ]
    assert source.warnings == [
        "x: main.tex has no \\end{document}; read to the end of the file",
        "x: \\section{Intro \\emph{open: braces never close; the rest of the line read as the title",
        "x: \\subsection without a title, followed by \"\\subsection[Short]\"; skipped",
        "x: section 'Methods': unmatched \\begin{itemize} dropped",
        "x: section 'Long nested title': unmatched \\end{enumerate} dropped",
    ]


def test_citation_commands_and_their_removal():
    latex = ("A~\\cite{a}. B \\citep[e.g.][]{b , c}; \\citeauthor*{d} \\parencite[3]{e} \\textcite{f} "
             "\\autocite{g} \\Citet{h} \\citealp{i,a} \\cites[see][]{j}[][4]{k} \\nocite{z} \\excite{no} \\citename.")
    keys, text = extract_citations(latex)
    assert keys == ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]
    assert text == "A. B; \\excite{no} \\citename."


def test_plain_text_rules():
    assert latex_to_text(r"\textbf{Bold} and \textit{it}~x \& y -- z \"o \S3") == "Bold and it x & y – z ö §3"
    assert latex_to_text(r"Math $\alpha$ and $x^2$, display \[ y=1 \] $$z$$ \begin{align}a\end{align} end") == (
        "Math α and x^2, display end")
    assert latex_to_text(r"\href{http://x.org}{link} \url{http://y} \texttt{code} \textcolor{red}{red}") == (
        "link code red")
    assert latex_to_text(r"\begin{itemize}\item one \item[b)] two\end{itemize}") == "one b) two"
    assert latex_to_text(r"\vspace{2mm}\includegraphics[width=3cm]{f.png} words \href{broken}") == "words broken"
    assert latex_to_text(r"\method{} works", macros={"method": "FooNet"}) == "FooNet works"
    assert latex_to_text(r"Smith \etal and", macros={"etal": "et al."}) == "Smith et al. and"


def test_comments_verbatim_and_iffalse_are_stripped():
    text = ("keep 50\\% here % drop\nnext\\\\% drop too\n  joined\n"
            "\\begin{verbatim}\n% not a comment \\section{No}\n\\end{verbatim}after\n"
            "\\iffalse\n\\section{Hidden}\\ifx a b\\fi\n\\fi shown\n")
    assert strip_comments(text) == "keep 50\\% here next\\\\joined\n\nafter\n shown\n"


def test_bbl_styles_acm_ieee_and_natbib_labels():
    acm = ("\\begin{thebibliography}{2}\n\\bibitem[Vaswani et~al\\mbox{.}(2017)]%\n{vaswani}\n"
           "\\bibfield{author}{\\bibinfo{person}{A. Vaswani}}. \\bibinfo{year}{2017}\\natexlab{}.\n"
           "\\newblock \\showarticletitle{Attention is all you need}. In \\bibinfo{booktitle}{NeurIPS}.\n"
           "\\bibitem[{Book(2020)}]{book} \\bibinfo{author}{B. Book}. \\newblock \\emph{\\bibinfo{title}{A Book}}.\n"
           "\\end{thebibliography}\n")
    parsed = parse_thebibliography(strip_comments(acm))
    assert (parsed.titles, parsed.keys) == ({"vaswani": "Attention is all you need", "book": "A Book"},
                                            ["vaswani", "book"])
    ieee = ("\\begin{thebibliography}{1}\n\\bibitem{k1}\nA.~Author, ``Deep {L}earning for graphs,'' "
            "\\emph{J. Graphs}, vol.~1, 2020.\n\\bibitem{k2} A.~Author, \\emph{No quotes}, 2019.\n"
            "\\end{thebibliography}")
    parsed = parse_bbl(ieee)
    assert (parsed.titles, parsed.entries) == ({"k1": "Deep Learning for graphs"}, 2)


def test_bib_reader_strings_concatenation_and_malformed_entries():
    bib = ("@string{conf = \"Proc. of X\"}\n@comment{ @article{fake, title={No}} }\n"
           "@inproceedings{a, title = \"The \" # conf # \" paper\", year = 2020}\n"
           "@ARTICLE(b, TITLE = {{Brace} {\\'E}tude}, author={X})\n"
           "@article{broken, title = {never closed, year = 2020\n"
           "@book{c, author = {Y}}\n@misc{a, title = {Duplicate}}\n")
    parsed = parse_bib(bib, file="r.bib")  # reading resumes at the @ after the unclosed brace
    assert parsed.titles == {"a": "The Proc. of X paper", "b": "Brace Étude"}
    assert (parsed.keys, parsed.kind, parsed.file) == (["a", "b", "broken", "c"], BIB, "r.bib")


def test_structure_nodes_field_by_field():
    source = read_eprint(tar_gz({"main.tex": _tex(), "main.bbl": bbl_text(REFERENCES)}))
    cite_ids = {"vaswani2017": "1706.03762", "devlin2019": "1810.04805", "brown2020": None}
    structure = structure_nodes(source, cite_ids)
    assert structure[0] == {"id": "0", "parent_id": ROOT_PARENT_ID, "title": "root", "content": ""}
    assert ROOT_PARENT_ID == -1
    rows = [(n["id"], n["parent_id"], n["title"], n["level"], n["cites"], n["origin_cites_number"],
             n["cite_extract_rate"]) for n in structure[1:]]
    assert rows == [
        ("1", "0", "Introduction", "section", ["1706.03762", "1810.04805"], 2, 1.0),
        ("2", "0", "Models", "section", [], 0, None),
        ("3", "2", "Encoders", "subsection", ["1810.04805"], 2, 0.5),
        ("4", "3", "Masked objectives", "subsubsection", ["1810.04805"], 1, 1.0),
        ("5", "2", "Decoders", "subsection", [], 2, 0.0),
        ("6", "0", "Conclusion", "section", [], 0, None),
    ]
    assert [n["content"] for n in structure[1:]] == [row[3] for row in EXPECTED_OUTLINE]
    assert all(set(n) == {"id", "parent_id", "title", "content", "level", "cites", "origin_cites_number",
                          "cite_extract_rate"} for n in structure[1:])


def test_headings_below_section_only_are_normalised_to_depth_one():
    tex = ("\\documentclass{article}\\begin{document}\\subsection*{First}a\\paragraph{Inner}b"
           "\\paragraph{\\label{p}} d \\cite{k}\\subsection{Second}c\\end{document}")
    source = read_eprint(tar_gz({"main.tex": tex, "main.bbl": bbl_text(REFERENCES)}))
    # an empty heading is no node: its text and citations stay with the node before it
    assert [(n.depth, n.level, n.title, n.content, n.cite_keys) for n in source.all_nodes()] == [
        (1, "subsection", "First", "a", []), (2, "paragraph", "Inner", "b d", ["k"]),
        (1, "subsection", "Second", "c", [])]


def test_tar_gz_is_reproducible_and_readable_by_tarfile():
    files = {"main.tex": _tex(), "main.bbl": bbl_text(REFERENCES)}
    assert tar_gz(files) == tar_gz(files)
    with tarfile.open(fileobj=io.BytesIO(tar_gz(files)), mode="r:gz") as archive:
        assert archive.getnames() == ["main.tex", "main.bbl"]


# -- arXiv ids in bibliography entries ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("arXiv:2101.12345", "2101.12345"),
    ("arXiv preprint arXiv:1706.03762v5, 2017", "1706.03762"),
    ("arXiv~preprint~arXiv: 1412.6980", "1412.6980"),  # 4 digits before 2015
    ("arXiv 0704.0001", "0704.0001"),  # the first new-style id
    ("\\url{https://arxiv.org/abs/2101.12345}", "2101.12345"),
    ("http://arxiv.org/pdf/2101.12345v2.pdf", "2101.12345"),
    ("export.arxiv.org/abs/2101.12345", "2101.12345"),
    ("doi: 10.48550/arXiv.2101.12345", "2101.12345"),
    ("https://doi.org/10.48550/ARXIV.2101.12345", "2101.12345"),
    ("CoRR, abs/1706.03762, 2017", "1706.03762"),
    ("\\eprint[arXiv]{2101.12345}", "2101.12345"),
    ("Tech. rep. cs/0112017", "cs/0112017"),
    ("Nucl. Phys. B, hep-th/9901001v3", "hep-th/9901001"),
    ("arXiv:math.GT/0309136", "math/0309136"),  # the subject class is dropped
    ("arxiv.org/abs/cond-mat.stat-mech/0101001", "cond-mat/0101001"),
    # near misses: no arXiv context, impossible dates, another publisher's DOI, page ranges, years
    ("pages 1701.1712, 2017", None),
    ("doi: 10.1145/3292500.3330701", None),
    ("10.1007/978-3-030-58452-8_13", None),
    ("arXiv preprint, 2017", None),
    ("abs/1706.03762 without the venue", None),  # a CoRR volume only where CoRR is named
    ("arXiv:2101.1234", None),  # 4 digits after 2014
    ("arXiv:1412.69801", None),  # 5 digits before 2015
    ("arXiv:1706.037625", None),  # a sixth digit: not cut to an id
    ("arXiv:1713.01234", None),  # month 13
    ("arXiv:0612.1234", None),  # before April 2007
    ("arXiv:9912.12345", None),  # a year in the future of the new scheme
    ("see docs/0112017 and xyz/0112017", None),  # not an archive
    ("hep-th/0801001", None),  # old style after March 2007
])
def test_arxiv_ids_in_entry_text(text, expected):
    assert find_arxiv_id(text) == expected


def test_arxiv_id_normalisation_and_bibtex_eprint_fields():
    assert [normalise_arxiv_id(t) for t in ("1706.03762v5", "hep-th/9901001", "cs.AI/0112017v2", "1706.3762")] == [
        "1706.03762", "hep-th/9901001", "cs/0112017", None]
    assert bib_fields_arxiv_id({"eprint": "2101.12345", "archiveprefix": "arXiv"}) == "2101.12345"
    assert bib_fields_arxiv_id({"eprint": "arXiv:2101.12345v3"}) == "2101.12345"  # no archivePrefix: read
    assert bib_fields_arxiv_id({"eprint": "hep-th/9901001", "eprinttype": "arxiv"}) == "hep-th/9901001"
    assert bib_fields_arxiv_id({"eprint": "2101.12345", "archiveprefix": "PubMed"}) is None
    assert bib_fields_arxiv_id({"journal": "CoRR", "volume": "abs/1706.03762"}) == "1706.03762"
    assert bib_fields_arxiv_id({"title": "On arXiv:2101.12345", "pages": "1701.1712"}) is None  # titles not read


ID_REFERENCES = [
    Reference("vaswani2017", "Attention Is {All} You Need", eprint="1706.03762v5"),
    Reference("devlin2019", r"{BERT}: Pre-training of Deep Bidirectional Transformers",
              note=r"\url{https://arxiv.org/abs/1810.04805}"),
    Reference("brown2020", r"Language Models are Few-Shot Learners", note="doi: 10.48550/arXiv.2005.14165"),
    Reference("m\\\"uller2021", r"Sch\"{o}n und gut: \emph{efficient} {NLP}", venue="ACM KDD",
              note="doi: 10.1145/3292500.3330701, pages 1701.1712"),  # no arXiv id
    Reference("untitled", "", note="hep-th/9901001"),  # an id and no title: kept
]
IDS = {"vaswani2017": "1706.03762", "devlin2019": "1810.04805", "brown2020": "2005.14165",
       "untitled": "hep-th/9901001"}


@pytest.mark.parametrize("files", [
    {"main.tex": _tex(), "main.bbl": bbl_text(ID_REFERENCES)},
    {"main.tex": _tex(), "main.bbl": biblatex_bbl_text(ID_REFERENCES)},
    {"main.tex": _tex(), "refs.bib": bib_text(ID_REFERENCES)},
    {"main.tex": _tex(bibliography=None, inline_references=ID_REFERENCES)},
])
def test_bibliography_ids_from_bbl_biblatex_bib_and_inline_lists(files):
    source = read_eprint(tar_gz(files))
    assert source.bibliography_ids == IDS
    assert source.bibliography == TITLES  # the ids do not change the titles
    assert source.bibliography_entries == 5


def test_bib_ids_of_merged_files_first_definition_wins():
    files = {"main.tex": _tex(bibliography="a,b"),
             "a.bib": bib_text([Reference("vaswani2017", "Attention", eprint="1706.03762")]),
             "b.bib": bib_text([Reference("vaswani2017", "Other", eprint="2101.12345"),
                                Reference("corr", "", venue="CoRR", note="abs/1810.04805")])}
    source = read_eprint(tar_gz(files))
    assert source.bibliography_ids == {"vaswani2017": "1706.03762", "corr": "1810.04805"}
    assert source.bibliography == {"vaswani2017": "Attention"}
