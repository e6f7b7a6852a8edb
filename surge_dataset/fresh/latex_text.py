"""LaTeX scanning and LaTeX -> plain text, shared by the survey reader (``latex.py``) and the bibliography
reader (``bibliography.py``).

Plain-text rules (what a node's ``content``, a heading and a bibliography title become), read by
``pylatexenc``'s ``LatexNodes2Text`` with these changes so that only the prose is left:

* inline math is kept as text (``$k$-NN`` -> ``k-NN``, ``$\\alpha$`` -> ``α``); display math (``\\[..\\]``,
  ``$$..$$``, ``equation``, ``align``, ... ) is removed;
* floats and non-prose blocks are removed with their captions: ``figure``, ``table``, ``algorithm``,
  ``tabular``, ``lstlisting``, ``tikzpicture``, ... (their ``\\cite`` keys still count, see ``latex.py``);
* ``\\label``, ``\\ref`` (and ``\\cref``, ``\\eqref``, ``\\autoref``, ...), ``\\footnote``, ``\\url``,
  ``\\includegraphics``, spacing and layout commands are dropped; ``\\emph{x}``, ``\\textbf{x}``,
  ``\\texttt{x}``, ``\\mbox{x}``, ``\\textcolor{c}{x}`` and ``\\href{url}{x}`` become ``x``; an unknown
  command is dropped and the text of its braces kept;
* accents and symbols become Unicode (``\\"o`` -> ``ö``, ``~`` -> a space, ``\\&`` -> ``&``, ``--`` -> ``–``);
* commands the document defines without arguments (``\\newcommand{\\method}{FooNet}``) are expanded;
* whitespace (line and paragraph breaks included) is collapsed to single spaces, and a space left before
  a closing ``.``, ``,``, ``;``, ``:``, ``!`` or ``?`` (by a dropped ``~\\ref{..}``) is removed.

If pylatexenc fails on a piece (it can on malformed input), a cruder regular-expression stripper is used
for that piece and the caller is told through ``warnings``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from pylatexenc import latexwalker
from pylatexenc import macrospec as ms
from pylatexenc.latex2text import EnvironmentTextSpec, LatexNodes2Text, MacroTextSpec
from pylatexenc.latex2text import get_default_latex_context_db as default_text_db

__all__ = [
    "DROPPED_ENVIRONMENTS",
    "collapse_whitespace",
    "document_macros",
    "find_closing_brace",
    "latex_to_text",
    "read_bracket_argument",
    "read_group_argument",
    "strip_comments",
]

#: Environments removed with everything in them (floats, code, pictures, tables): not the survey's prose.
DROPPED_ENVIRONMENTS: tuple[str, ...] = tuple(
    name + star
    for name in ("figure", "table", "wrapfigure", "wraptable", "subfigure", "subtable", "sidewaysfigure",
                 "sidewaystable", "algorithm", "algorithmic", "algorithm2e", "lstlisting", "minted", "verbatim",
                 "tikzpicture", "tabular", "tabularx", "tabulary", "longtable", "thebibliography", "comment",
                 "filecontents")
    for star in ("", "*")
)

#: Environments whose content is not LaTeX (dropped before comments are stripped: a ``%`` in them is text).
_VERBATIM_ENVIRONMENTS = ("verbatim", "verbatim*", "lstlisting", "minted", "comment", "filecontents",
                          "filecontents*")

# Commands dropped with their arguments: (name, pylatexenc argspec).
_DROPPED_MACROS: tuple[tuple[str, str], ...] = (
    ("label", "{"), ("ref", "{"), ("pageref", "{"), ("eqref", "{"), ("autoref", "*{"), ("cref", "*{"),
    ("Cref", "*{"), ("vref", "*{"), ("nameref", "*{"), ("footnote", "[{"), ("footnotetext", "[{"),
    ("footnotemark", "["), ("thanks", "{"), ("url", "{"), ("includegraphics", "*[{"), ("caption", "*[{"),
    ("vspace", "*{"), ("hspace", "*{"), ("vskip", ""), ("hskip", ""), ("setlength", "{{"),
    ("addtolength", "{{"), ("setcounter", "{{"), ("addtocounter", "{{"), ("newcommand", "*{[[{"),
    ("renewcommand", "*{[[{"), ("providecommand", "*{[[{"), ("definecolor", "{{{"), ("color", "{"),
    ("bibliographystyle", "{"), ("bibliography", "{"), ("addbibresource", "[{"), ("pagestyle", "{"),
    ("thispagestyle", "{"), ("index", "{"), ("todo", "[{"), ("hypersetup", "{"), ("maketitle", ""),
    ("tableofcontents", ""), ("newpage", ""), ("clearpage", ""), ("cleardoublepage", ""), ("noindent", ""),
    ("centering", ""), ("raggedright", ""), ("linebreak", "["), ("pagebreak", "["), ("newline", ""),
    ("nocite", "{"), ("appendix", ""), ("printbibliography", "["), ("usepackage", "[{"),
    ("documentclass", "[{"), ("resizebox", "{{"), ("scalebox", "{"), ("rule", "[{{"), ("phantom", "{"),
    ("input", "{"), ("include", "{"), ("acknowledgments", ""), ("xspace", ""), ("protect", ""),
)

# Commands replaced by one of their arguments: (name, argspec, index of the argument kept, 1-based).
_KEPT_ARGUMENT_MACROS: tuple[tuple[str, str, int], ...] = (
    ("href", "{{", 2), ("texttt", "{", 1), ("textsc", "{", 1), ("textsf", "{", 1), ("textrm", "{", 1),
    ("textup", "{", 1), ("textsl", "{", 1), ("textnormal", "{", 1), ("mbox", "{", 1), ("hbox", "{", 1),
    ("fbox", "{", 1), ("makebox", "[[{", 3), ("underline", "{", 1), ("uline", "{", 1), ("hl", "{", 1),
    ("textcolor", "{{", 2), ("colorbox", "{{", 2), ("text", "{", 1), ("enquote", "{", 1),
    ("textsuperscript", "{", 1), ("textsubscript", "{", 1), ("mathrm", "{", 1), ("mathbf", "{", 1),
    ("mathit", "{", 1), ("operatorname", "{", 1),
    # bibliography markup of ACM-Reference-Format and natbib styles: the field's value, not its name
    ("bibinfo", "{{", 2), ("bibfield", "{{", 2), ("showarticletitle", "{", 1), ("natexlab", "{", 1),
)

_SYMBOLS: Mapping[str, str] = {"S": "§", "LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX", "P": "¶",
                               "textbackslash": "\\", "item": " "}


class _ProseText(LatexNodes2Text):
    """``LatexNodes2Text`` that drops display math and keeps inline math as text."""

    def math_node_to_text(self, node: latexwalker.LatexNode) -> str:
        if node.isNodeType(latexwalker.LatexEnvironmentNode) or node.displaytype == "display":
            return ""
        return super().math_node_to_text(node)


def _arg_repl(index: int):
    def repl(node: latexwalker.LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
        args = node.nodeargd.argnlist if node.nodeargd is not None else []
        arg = args[index - 1] if len(args) >= index else None
        return l2tobj.nodelist_to_text([arg]) if arg is not None else ""
    return repl


def _defined_repl(value: str):
    """A document's own command: its text, and the space TeX would swallow after it kept (citations the
    reader removes often stood between ``\\etal`` and the next word)."""
    def repl(node: latexwalker.LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
        return value + (node.macro_post_space or "")
    return repl


def _item_repl(node: latexwalker.LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
    args = node.nodeargd.argnlist if node.nodeargd is not None else []
    label = l2tobj.nodelist_to_text([args[0]]) if args and args[0] is not None else ""
    return f" {label} " if label else " "


def _contexts(macros: Mapping[str, str]) -> tuple[ms.LatexContextDb, ms.LatexContextDb]:
    """The walker's and the converter's context: pylatexenc's defaults with the rules of this module."""
    walker_db = latexwalker.get_default_latex_context_db()
    walker_db.add_context_category(
        "surge-fresh", prepend=True,
        macros=[ms.MacroSpec(name, spec) for name, spec in _DROPPED_MACROS]
        + [ms.MacroSpec(name, spec) for name, spec, _ in _KEPT_ARGUMENT_MACROS]
        + [ms.MacroSpec(name, "") for name in macros],
        environments=[ms.EnvironmentSpec(name) for name in DROPPED_ENVIRONMENTS],
    )
    text_db = default_text_db()
    text_db.add_context_category(
        "surge-fresh", prepend=True,
        macros=[MacroTextSpec(name, discard=True) for name, _ in _DROPPED_MACROS]
        + [MacroTextSpec(name, simplify_repl=_arg_repl(index)) for name, _, index in _KEPT_ARGUMENT_MACROS]
        + [MacroTextSpec(name, simplify_repl=value.replace("%", "%%")) for name, value in _SYMBOLS.items()
           if name != "item"]
        + [MacroTextSpec("item", simplify_repl=_item_repl)]
        + [MacroTextSpec(name, simplify_repl=_defined_repl(value)) for name, value in macros.items()],
        environments=[EnvironmentTextSpec(name, discard=True) for name in DROPPED_ENVIRONMENTS],
    )
    return walker_db, text_db


@functools.lru_cache(maxsize=32)
def _contexts_of(macros: tuple[tuple[str, str], ...]) -> tuple[ms.LatexContextDb, ms.LatexContextDb]:
    """:func:`_contexts`, built once per set of document macros (thread-safe: e-prints are read in threads)."""
    return _contexts(dict(macros))


def _cached_contexts(macros: Mapping[str, str]) -> tuple[ms.LatexContextDb, ms.LatexContextDb]:
    return _contexts_of(tuple(sorted(macros.items())))


_WHITESPACE = re.compile(r"\s+")
_SPACE_BEFORE_PUNCTUATION = re.compile(r" ([.,;:!?])(?= |$)")


def collapse_whitespace(text: str) -> str:
    """Runs of whitespace (non-breaking spaces and newlines included) -> one space, ends stripped, and no
    space left before a ``.,;:!?`` that ends a word (what a dropped ``~\\ref{..}`` or footnote leaves)."""
    return _SPACE_BEFORE_PUNCTUATION.sub(r"\1", _WHITESPACE.sub(" ", text).strip())


_CRUDE_ENV = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}")
_CRUDE_MACRO = re.compile(r"\\[A-Za-z@]+\*?|\\.")


def _crude_text(latex: str) -> str:
    """The fallback when pylatexenc fails: drop commands and braces, keep the rest."""
    text = _CRUDE_ENV.sub(" ", latex)
    text = _CRUDE_MACRO.sub(lambda m: m.group(0)[1] if len(m.group(0)) == 2 and not m.group(0)[1].isalpha()
                            else " ", text)
    return text.replace("~", " ").replace("{", "").replace("}", "").replace("$", "")


def latex_to_text(latex: str, *, macros: Mapping[str, str] | None = None, warnings: list[str] | None = None,
                  where: str = "") -> str:
    """Plain text of a LaTeX fragment by the rules of this module's docstring, whitespace collapsed.

    ``macros`` maps argument-less commands the document defines to their text; ``warnings`` (if given)
    receives one line, naming ``where``, when the fragment had to be read by the fallback stripper.
    """
    if not latex.strip():
        return ""
    walker_db, text_db = _cached_contexts(macros or {})
    try:
        walker = latexwalker.LatexWalker(latex, latex_context=walker_db, tolerant_parsing=True)
        nodes, _, _ = walker.get_latex_nodes()
        text = _ProseText(latex_context=text_db, math_mode="text").nodelist_to_text(nodes)
    except Exception as exc:  # pylatexenc raises assorted errors on malformed input: keep the words anyway
        if warnings is not None:
            warnings.append(f"{where or 'text'}: LaTeX read by the fallback stripper ({type(exc).__name__})")
        text = _crude_text(latex)
    return collapse_whitespace(text)


# ---------------------------------------------------------------------------------------------------------
# Scanning
# ---------------------------------------------------------------------------------------------------------


def find_closing_brace(text: str, open_at: int, *, opening: str = "{", closing: str = "}") -> int | None:
    """Index of the bracket closing the one at ``open_at`` (escaped ``\\{`` and ``\\}`` skipped; for ``[``,
    brackets inside braces do not count); ``None`` if it never closes."""
    depth = 0
    braces = 0
    i = open_at
    n = len(text)
    while i < n:
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if opening == "{":
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return i
        else:
            if char == "{":
                braces += 1
            elif char == "}":
                braces -= 1
                if braces < 0:
                    return None
            elif braces == 0 and char == opening:
                depth += 1
            elif braces == 0 and char == closing:
                depth -= 1
                if depth == 0:
                    return i
        i += 1
    return None


def _skip_spaces(text: str, at: int) -> int:
    """Past spaces and at most one line break (a blank line ends a command's arguments, as in TeX)."""
    newlines = 0
    while at < len(text) and text[at] in " \t\r\n":
        if text[at] == "\n":
            newlines += 1
            if newlines > 1:
                break
        at += 1
    return at


def read_bracket_argument(text: str, at: int) -> tuple[str, int] | None:
    """``[...]`` starting at ``at`` (after spaces): (content, index after it); ``None`` if there is none."""
    start = _skip_spaces(text, at)
    if start >= len(text) or text[start] != "[":
        return None
    end = find_closing_brace(text, start, opening="[", closing="]")
    if end is None:
        return None
    return text[start + 1:end], end + 1


def read_group_argument(text: str, at: int) -> tuple[str, int] | None:
    """``{...}`` starting at ``at`` (after spaces): (content, index after it); ``None`` if there is none or
    it never closes."""
    start = _skip_spaces(text, at)
    if start >= len(text) or text[start] != "{":
        return None
    end = find_closing_brace(text, start)
    if end is None:
        return None
    return text[start + 1:end], end + 1


_VERBATIM_BEGIN = re.compile(r"\\begin\s*\{(" + "|".join(re.escape(n) for n in _VERBATIM_ENVIRONMENTS) + r")\}")
_IF_TOKEN = re.compile(r"\\(iffalse|if[A-Za-z@]*|fi)(?![A-Za-z@])")


_VERBATIM_ARGUMENT = re.compile(r"\\(?:url|path|nolinkurl|href)\s*\{")


def _verbatim_spans(line: str) -> list[tuple[int, int]]:
    """Spans of the line's ``\\url{..}`` (``\\href``'s first argument...): read verbatim by LaTeX, so a ``%`` in
    them (``https://doi.org/10.1088%2F...``) is no comment."""
    spans = []
    for match in _VERBATIM_ARGUMENT.finditer(line):
        end = find_closing_brace(line, match.end() - 1)
        if end is not None:
            spans.append((match.end(), end))
    return spans


def _strip_line_comment(line: str) -> tuple[str, bool]:
    """(the line up to an unescaped ``%`` outside ``\\url{..}``, whether it had one)."""
    i = 0
    spans = _verbatim_spans(line) if "%" in line else []
    while True:
        i = line.find("%", i)
        if i < 0:
            return line, False
        if any(start <= i < end for start, end in spans):
            i += 1
            continue
        backslashes = 0
        j = i - 1
        while j >= 0 and line[j] == "\\":
            backslashes += 1
            j -= 1
        if backslashes % 2 == 0:
            return line[:i], True
        i += 1


def strip_comments(text: str) -> str:
    """Comments, verbatim-like environments and ``\\iffalse ... \\fi`` blocks removed.

    A ``%`` not escaped as ``\\%`` (and not inside a ``\\url{..}``, read verbatim) ends the line and, as in TeX,
    joins it to the next one (whose leading spaces go too); a line that was only a comment leaves nothing. ``verbatim``, ``lstlisting``, ``minted``,
    ``comment`` and ``filecontents`` are removed whole first, so a ``%`` inside them is not a comment.
    """
    out: list[str] = []
    verbatim_end: str | None = None
    join_next = False
    for raw_line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw_line
        if verbatim_end is not None:
            at = line.find(verbatim_end)
            if at < 0:
                continue
            line = line[at + len(verbatim_end):]
            verbatim_end = None
        while True:
            code, had_comment = _strip_line_comment(line)
            match = _VERBATIM_BEGIN.search(code)
            if match is None:
                break
            end_marker = f"\\end{{{match.group(1)}}}"
            end_at = line.find(end_marker, match.end())
            if end_at < 0:
                code, had_comment, verbatim_end = code[:match.start()], False, end_marker
                break
            line = line[:match.start()] + line[end_at + len(end_marker):]
        if join_next:
            code = code.lstrip(" \t")
            if out:
                out[-1] += code
            else:
                out.append(code)
        else:
            out.append(code)
        join_next = had_comment and verbatim_end is None
    return _drop_iffalse("\n".join(out))


def _drop_iffalse(text: str) -> str:
    """Text without ``\\iffalse ... \\fi`` blocks (nested ``\\if..`` counted); an unclosed one runs to the end."""
    if "\\iffalse" not in text:
        return text
    pieces: list[str] = []
    at = 0
    depth = 0
    for match in _IF_TOKEN.finditer(text):
        token = match.group(1)
        if depth == 0:
            if token == "iffalse":
                pieces.append(text[at:match.start()])
                depth = 1
            continue
        if token == "fi":
            depth -= 1
            if depth == 0:
                at = match.end()
        else:
            depth += 1
    if depth == 0:
        pieces.append(text[at:])
    return "".join(pieces)


_DEFINITION = re.compile(
    r"\\(?:newcommand|renewcommand|providecommand|DeclareRobustCommand)\*?\s*(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))"
    r"|\\[egx]?def\s*\\([A-Za-z@]+)")


def document_macros(preamble: str) -> dict[str, str]:
    """Commands defined without arguments (``\\newcommand{\\name}{body}``, ``\\def\\name{body}``) -> their
    text, so that ``\\name`` in the prose reads as the body; commands with arguments are left out."""
    definitions: dict[str, str] = {}
    for match in _DEFINITION.finditer(preamble):
        name = match.group(1) or match.group(2) or match.group(3)
        at = match.end()
        if read_bracket_argument(preamble, at) is not None or (match.group(3) and preamble[at:at + 1] == "#"):
            continue
        body = read_group_argument(preamble, at)
        if body is None:
            continue
        definitions[name] = body[0]
    reserved = {name for name, _ in _DROPPED_MACROS} | {name for name, _, _ in _KEPT_ARGUMENT_MACROS}
    texts: dict[str, str] = {}
    for name, body in definitions.items():
        if name in reserved or "#" in body or "\\" + name in body:
            continue
        texts[name] = latex_to_text(body)
    return texts
