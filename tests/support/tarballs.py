"""Small arXiv e-prints built in memory, for tests, benchmarks and the local e-print server.

arXiv serves an e-print as a gzipped tar of several files, a gzipped single ``.tex`` or (rarely) a plain
``.tex``; a PDF-only submission has no source. Each builder returns the bytes such a download would have,
byte-for-byte reproducible (gzip and tar timestamps are 0). Compose them::

    refs = [Reference("vaswani2017", "Attention Is All You Need")]
    tex = survey_tex("A Survey", "We review.", [Section("Intro", r"Transformers \\cite{vaswani2017}.")])
    eprint = tar_gz({"main.tex": tex, "main.bbl": bbl_text(refs)})      # compiled bibliography
    eprint = tar_gz({"main.tex": tex, "refs.bib": bib_text(refs)})      # BibTeX database
    eprint = gzip_single(survey_tex(..., inline_references=refs))        # one gzipped .tex

A reference may carry its arXiv id as a real bibliography does: ``eprint="1706.03762"`` writes the structured
form of each format (``eprint``/``archivePrefix`` fields in a ``.bib``, ``eprinttype``/``\\verb{eprint}`` in a
biber ``.bbl``, ``arXiv:<id>`` as natbib styles print it), ``note`` any free text (``\\url{https://arxiv.org/abs/
<id>}``, ``CoRR abs/<id>``, a DOI) after the venue.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "MINIMAL_PDF",
    "Reference",
    "Section",
    "bbl_text",
    "bib_text",
    "biblatex_bbl_text",
    "gzip_single",
    "survey_tex",
    "tar_gz",
    "tar_gz_with_unsafe_members",
    "thebibliography_text",
]

#: A one-page PDF's bytes: what arXiv serves for a submission without LaTeX source.
MINIMAL_PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
               b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
               b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\n"
               b"trailer<</Root 1 0 R>>\n%%EOF\n")


@dataclass(frozen=True)
class Section:
    """One heading of a built survey: ``body`` is LaTeX (``\\cite`` and all)."""

    title: str
    body: str = ""
    level: str = "section"  # a ``latex.LEVELS`` command
    starred: bool = False


@dataclass(frozen=True)
class Reference:
    """One bibliography entry of a built survey; ``title=""`` builds an entry without a title; ``eprint`` (an
    arXiv id) and ``note`` (free LaTeX) are written as the module docstring says."""

    key: str
    title: str
    authors: str = "A. Author and B. Author"
    year: int = 2024
    venue: str = "Journal of Examples"
    eprint: str | None = None
    note: str = ""


def _bytes(content: str | bytes) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else content


def tar_gz(files: Mapping[str, str | bytes]) -> bytes:
    """A gzipped tar of ``files`` (archive path -> text or bytes), in the given order."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for path, content in files.items():
            data = _bytes(content)
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            archive.addfile(info, io.BytesIO(data))
    return gzip.compress(buffer.getvalue(), mtime=0)


def tar_gz_with_unsafe_members(files: Mapping[str, str | bytes],
                               unsafe: Mapping[str, str | bytes], *, symlink: str | None = None) -> bytes:
    """Like :func:`tar_gz`, plus members a reader must not follow: ``unsafe`` paths such as
    ``../evil.tex`` or ``/etc/evil.tex`` (written as given), and a symbolic link named ``symlink``
    pointing to ``/etc/passwd``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for path, content in [*unsafe.items(), *files.items()]:
            data = _bytes(content)
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            archive.addfile(info, io.BytesIO(data))
        if symlink is not None:
            link = tarfile.TarInfo(symlink)
            link.type, link.linkname, link.mtime = tarfile.SYMTYPE, "/etc/passwd", 0
            archive.addfile(link)
    return gzip.compress(buffer.getvalue(), mtime=0)


def gzip_single(text: str | bytes, *, original_name: str | None = None) -> bytes:
    """One gzipped file, as arXiv serves a single-file submission; ``original_name`` goes into the gzip
    header (FNAME) the way ``gzip FILE`` writes it."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename=original_name or "", mode="wb", fileobj=buffer, mtime=0) as packed:
        packed.write(_bytes(text))
    return buffer.getvalue()


def survey_tex(title: str, abstract: str, sections: Sequence[Section], *, bibliography: str | None = "refs",
               inline_references: Sequence[Reference] | None = None, preamble: str = "",
               before_sections: str = "", appendix: Sequence[Section] = ()) -> str:
    """A survey's main ``.tex``: ``\\documentclass``, title, abstract, ``sections`` in order, then
    ``appendix`` sections after ``\\appendix``, and ``\\bibliography{bibliography}`` or, with
    ``inline_references``, an inline ``thebibliography`` list."""
    lines = ["\\documentclass{article}", "\\usepackage{natbib}", preamble, f"\\title{{{title}}}",
             "\\author{A. Author}", "\\begin{document}", "\\maketitle",
             f"\\begin{{abstract}}\n{abstract}\n\\end{{abstract}}", before_sections]
    for section in sections:
        star = "*" if section.starred else ""
        lines += [f"\\{section.level}{star}{{{section.title}}}", section.body, ""]
    if appendix:
        lines.append("\\appendix")
        for section in appendix:
            lines += [f"\\{section.level}{{{section.title}}}", section.body, ""]
    if inline_references is not None:
        lines.append(thebibliography_text(inline_references))
    elif bibliography:
        lines += ["\\bibliographystyle{plainnat}", f"\\bibliography{{{bibliography}}}"]
    lines.append("\\end{document}")
    return "\n".join(lines) + "\n"


def thebibliography_text(references: Iterable[Reference]) -> str:
    """A natbib ``thebibliography`` list as BibTeX's ``plainnat`` writes it: authors, ``\\newblock`` title,
    ``\\newblock`` venue (a reference without a title is one block: authors, venue, year)."""
    references = list(references)
    lines = [f"\\begin{{thebibliography}}{{{len(references)}}}",
             "\\providecommand{\\natexlab}[1]{#1}", ""]
    for ref in references:
        surname = ref.authors.split(" and ")[0].split()[-1]
        lines.append(f"\\bibitem[{{{surname} et~al.}}({ref.year})]{{{ref.key}}}")
        extra = [f"arXiv:{ref.eprint}."] if ref.eprint else []
        extra += [f"{ref.note}."] if ref.note else []
        if not ref.title:
            lines += [" ".join([f"{ref.authors}. \\emph{{{ref.venue}}}, {ref.year}.", *extra]), ""]
            continue
        lines += [f"{ref.authors}.", f"\\newblock {ref.title}."]
        lines.append(f"\\newblock \\emph{{{ref.venue}}}, {ref.year}.")
        lines += [f"\\newblock {text}" for text in extra]
        lines.append("")
    lines.append("\\end{thebibliography}")
    return "\n".join(lines) + "\n"


def bbl_text(references: Iterable[Reference]) -> str:
    """A ``.bbl`` file as BibTeX writes it for natbib styles (a ``thebibliography`` list)."""
    return thebibliography_text(references)


def biblatex_bbl_text(references: Iterable[Reference]) -> str:
    """A ``.bbl`` file as biber writes it for biblatex (``\\entry .. \\field{title}{..} .. \\endentry``)."""
    lines = ["% $ biblatex auxiliary file $", "\\begingroup", "\\makeatletter", "\\refsection{0}",
             "  \\datalist[entry]{nty/global//global/global}"]
    for ref in references:
        lines += [f"    \\entry{{{ref.key}}}{{article}}{{}}",
                  "      \\name{author}{1}{}{%",
                  f"        {{{{hash=0}}{{family={{{ref.authors.split()[-1]}}}}}}}%",
                  "      }",
                  f"      \\field{{journaltitle}}{{{ref.venue}}}"]
        if ref.title:
            lines.append(f"      \\field{{title}}{{{ref.title}}}")
        if ref.eprint:
            lines += ["      \\field{eprinttype}{arxiv}", "      \\verb{eprint}", f"      \\verb {ref.eprint}",
                      "      \\endverb"]
        if ref.note:
            lines.append(f"      \\field{{note}}{{{ref.note}}}")
        lines += [f"      \\field{{year}}{{{ref.year}}}", "    \\endentry"]
    lines += ["  \\enddatalist", "\\endrefsection", "\\endgroup"]
    return "\n".join(lines) + "\n"


def bib_text(references: Iterable[Reference]) -> str:
    """A BibTeX database of ``references`` (title in braces, venue and year)."""
    entries = []
    for ref in references:
        title = f"  title = {{{ref.title}}},\n" if ref.title else ""
        eprint = f"  eprint = {{{ref.eprint}}},\n  archivePrefix = {{arXiv}},\n" if ref.eprint else ""
        note = f"  note = {{{ref.note}}},\n" if ref.note else ""
        entries.append(f"@article{{{ref.key},\n  author = {{{ref.authors}}},\n{title}{eprint}{note}"
                       f"  journal = {{{ref.venue}}},\n  year = {ref.year}\n}}\n")
    return "\n".join(entries)
