"""The bibliography shapes that real archives have and the readers got wrong, one test each (each failed
before the fix). The entries are written as the styles write them: the ``ieeetr`` ones are pybtex 0.26.1's output of
the unmodified ``ieeetr.bst`` for the .bib entries given beside them; the ACM one follows ``ACM-Reference-Format.bst``
(``format.a.title.with.edition``: a book's title is ``\\bibinfo{booktitle}{\\emph{..}}``). The real-source versions of
the ieeetr shapes are in tests/test_fresh_real_latex.py.
"""

from __future__ import annotations

from surge_dataset.core.cache import JsonStore
from surge_dataset.core.vocabulary import BBL, BIB
from surge_dataset.fresh.bibliography import parse_bbl, parse_thebibliography
from surge_dataset.fresh.candidates import ArxivApi
from surge_dataset.fresh.latex import read_latex_files
from surge_dataset.fresh.latex_text import strip_comments
from surge_dataset.fresh.resolve import BY_ID, KeyResolver, TitleResolver
from surge_dataset.fresh.sources import HostPool
from tests.support.replay import ReplayServer

#: ``pybtex`` + ``ieeetr.bst`` for BIBTEX below (the ``eprint`` and ``doi`` fields are dropped, the notes kept).
IEEETR_BBL = r"""\begin{thebibliography}{1}

\bibitem{book1}
I.~Goodfellow and Y.~Bengio, {\it Deep Learning}.
\newblock MIT Press, 2016.

\bibitem{note1}
C.~D, ``{``Quoted''}: a title,'' 2021.
\newblock Accepted to ICLR 2021.

\bibitem{art}
E.~F, ``An article,'' {\it J}, 2020.
\newblock arXiv:2001.00001.

\bibitem{quoted}
C.~D, ``{``Quoted''}: a title,'' 2021.

\end{thebibliography}
"""
BIBTEX = r"""@book{book1, author={Ian Goodfellow and Yoshua Bengio}, title={Deep Learning}, publisher={MIT Press}, year={2016}}
@misc{note1, author={C. D}, title={{``Quoted''}: a title}, note={Accepted to ICLR 2021}, year={2021},
      eprint={2101.00001}, archivePrefix={arXiv}, doi={10.48550/arXiv.2101.00001}}
@article{art, author={E. F}, title={An article}, journal={J}, year={2020}, note={arXiv:2001.00001}}
@misc{quoted, author={C. D}, title={{``Quoted''}: a title}, year={2021}}
"""
TEX = (r"\documentclass{article}\begin{document}\section{Intro} Books \cite{book1}, notes \cite{note1,art}."
       "\n\\bibliographystyle{ieeetr}\\bibliography{refs}\\end{document}\n")


def test_an_ieeetr_note_printed_as_a_trailing_newblock_is_not_the_title():
    parsed = parse_bbl(IEEETR_BBL)
    assert parsed.titles["art"] == "An article"  # before: "arXiv:2001.00001"
    assert parsed.ids == {"art": "2001.00001"}  # the note's id is the entry's


def test_a_quoted_title_that_opens_with_a_quoted_name_is_read_whole():
    titles = parse_bbl(IEEETR_BBL).titles
    assert titles["quoted"] == "“Quoted”: a title"  # before: "“Quoted"
    assert titles["note1"] == "“Quoted”: a title"  # before: "Accepted to ICLR 2021" (the note)


def test_an_ieeetr_book_title_is_the_emphasised_title_not_the_publisher():
    assert parse_bbl(IEEETR_BBL).titles["book1"] == "Deep Learning"  # before: "MIT Press, 2016"


def test_an_acm_book_title_set_as_bibinfo_booktitle_is_the_title():
    acm = (r"\begin{thebibliography}{1}" "\n"
           r"\bibitem[Goodfellow et~al\mbox{.}(2016)]%" "\n        {goodfellow2016}\n"
           r"\bibfield{author}{\bibinfo{person}{Ian Goodfellow}, \bibinfo{person}{Yoshua Bengio}, {and} "
           r"\bibinfo{person}{Aaron Courville}.} \bibinfo{year}{2016}\natexlab{}." "\n"
           r"\newblock \bibinfo{booktitle}{\emph{Deep Learning}}." "\n"
           r"\newblock \bibinfo{publisher}{MIT Press}, \bibinfo{address}{Cambridge, MA}." "\n"
           r"\bibitem[Vaswani et~al\mbox{.}(2017)]%" "\n        {vaswani}\n"
           r"\bibfield{author}{\bibinfo{person}{A. Vaswani}}. \bibinfo{year}{2017}\natexlab{}." "\n"
           r"\newblock \showarticletitle{Attention is all you need}. In \emph{\bibinfo{booktitle}{NeurIPS}}." "\n"
           r"\end{thebibliography}" "\n")
    parsed = parse_thebibliography(strip_comments(acm))  # the reader strips comments first (the % after ])
    assert parsed.titles == {"goodfellow2016": "Deep Learning",  # before: "booktitleDeep Learning"
                             "vaswani": "Attention is all you need"}


def test_a_bbl_without_eprint_takes_ids_and_dois_from_the_bib_by_key():
    source = read_latex_files({"main.tex": TEX.encode(), "main.bbl": IEEETR_BBL.encode(), "refs.bib": BIBTEX.encode()})
    assert (source.bibliography_kind, source.bibliography_file) == (BBL, "main.bbl")
    assert source.bibliography_ids == {"art": "2001.00001", "note1": "2101.00001"}  # before: {"art": ...} only
    assert source.bibliography_id_sources == {"art": BBL, "note1": BIB}
    assert source.bibliography_dois == {"note1": "10.48550/arXiv.2101.00001"}


def test_a_title_that_reads_like_a_note_is_warned_about_and_not_used():
    natbib = (r"\begin{thebibliography}{2}" "\n" r"\bibitem[D(2021)]{noted}" "\nC.~D.\n"
              r"\newblock Accepted to {ICLR} 2021." "\n" r"\newblock arXiv:2101.00001." "\n"
              r"\bibitem[F(2020)]{venue}" "\nE.~F.\n" r"\newblock Proceedings of the {X} Conference, 2020." "\n"
              r"\end{thebibliography}" "\n")
    source = read_latex_files({"main.tex": TEX.replace("\\bibliographystyle{ieeetr}\\bibliography{refs}", natbib)
                               .replace("book1", "noted").replace("note1,art", "venue").encode()})
    assert source.bibliography == {} and source.bibliography_ids == {"noted": "2101.00001"}
    assert source.bibliography_note_titles == {"noted": "Accepted to ICLR 2021",
                                               "venue": "Proceedings of the X Conference, 2020"}
    assert any("'noted': 'Accepted to ICLR 2021' reads like a note" in w for w in source.warnings)


def test_an_arxiv_id_in_an_ieeetr_note_resolves_the_entry_by_id(tmp_path):
    """With the title read from the quoted block, the id the note writes is trusted (the recorded arXiv answer for
    ``id_list=1605.08386``); before, the note was the title, the id was distrusted and the note searched as a title."""
    bbl = ("\\begin{thebibliography}{1}\n\n\\bibitem{stanley2016}\nC.~Stanley and T.~Windisch, ``Heat-bath random "
           "walks with {M}arkov bases,'' 2016.\n\\newblock arXiv:1605.08386.\n\n\\end{thebibliography}\n")
    tex = "\\documentclass{article}\\begin{document}\\section{Walks} Mixing \\cite{stanley2016}.\\end{document}\n"
    source = read_latex_files({"main.tex": tex.encode(), "main.bbl": bbl.encode()})
    assert source.bibliography == {"stanley2016": "Heat-bath random walks with Markov bases"}
    with ReplayServer() as server:
        hosts = HostPool(rate_seconds=0, timeout=5, max_retries=0, user_agent="surge-bench tests")
        api = ArxivApi(server.base_url("arxiv"), hosts, JsonStore(tmp_path, name="fresh"))
        titles = TitleResolver(server.base_url("arxiv"), hosts, tmp_path)
        found = KeyResolver(api, titles).resolve([source])
        assert server.unmatched == []
    resolution = found.keys[0]["stanley2016"]
    assert (resolution.arxiv_id, resolution.method) == ("1605.08386", BY_ID)
    assert found.metadata["1605.08386"].title == "Heat-bath random walks with Markov bases"
    assert found.stats["titles"] == 0  # no title search
