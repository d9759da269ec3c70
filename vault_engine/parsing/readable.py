"""What the embedding model reads of a section: the text a reader reads, without what only
points elsewhere or draws the page. Pure.

Dropped: link targets (``[text](url)`` reads ``text``, an image reads its alt text), bare and
``<autolinked>`` URLs, embeds of attachments (``![[diagram.png]]``), HTML tags (their text
stays), and the lines that only draw the page: code fence lines (the code stays), table rules
(the rows stay) and horizontal rules; a fence keeps its language as a word ("tasks",
"python": what the code is). A comment block, from a line opening with ``%%`` to the next
``%%``, is hidden in Obsidian and dropped too: the Excalidraw plugin keeps each drawing's
compressed data there; so is an HTML comment (``<!-- ... -->``, on one line or over many),
drawn by no Markdown renderer: a KEP carries its template's instructions in them, under
every heading, and a section holding only those came back as a hit with nothing to read.
Code is kept as written: inside a fence or a code span nothing is dropped (``Promise<void>``
is no HTML tag).

Why: a window's tokens are the model's time, and on real vaults many of them were markup. On
data-engineering-wiki 39% of the embedded tokens were URLs; dropping what is listed above
embeds 54% fewer tokens there, 15% fewer on obsidian-tasks-docs, with search quality unchanged
on the blind evaluation (bench/RESULTS.md, "What the model reads"). Dropping more (emphasis,
list markers, backticks, table pipes) cost recall: the model reads some markup as meaning.
The lexical index keeps the raw text: words in a URL (``/wiki/Apache_Kafka``) help BM25.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vault_engine.parsing.fences import CODE, OPEN, TEXT, code_spans, comment_spans, fence_roles, info_word

_LANGUAGE = re.compile(r"[\w+#.-]+")  # an info string's word that names a language
# Possessive (`*+`): a list item 800 levels deep opens with 1,600 spaces, and `\s*\|?\s*` tried
# each way to share them out between the two: 14 s a search that showed it (qa60).
_TABLE_RULE = re.compile(r"^\s*+\|?\s*+:?-+:?\s*+(?:\|\s*+:?-+:?\s*+)*\|?\s*+$")
_HORIZONTAL_RULE = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$")
# [text](target "title"), the target also in angle brackets: [text](<My Note.md>)
# a link's text holds no bracket: `[^\]]*` had read on from every `[` of a line of them to its
# end, 6 s for a line of 10,000 (qa152)
_LINK_PATTERN = r"\[([^\[\]]*)\]\((?:<[^>\n]*>|(?:[^()\s]|\([^)]*\))*)(?:\s+\"[^\"]*\")?\)"
_IMAGE = re.compile("!" + _LINK_PATTERN)
_LINK = re.compile(_LINK_PATTERN)
_LINK_OR_IMAGE = re.compile("!?" + _LINK_PATTERN)
_AUTOLINK = re.compile(r"<(?:https?|ftp):[^>\s]*>")
_MAIL_AUTOLINK = re.compile(r"<mailto:([^>\s]*)>")  # reads as its address
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>)\]|]+")
_ATTACHMENT_EMBED = re.compile(r"!\[\[[^\]|#]+\.(?!md\])[A-Za-z0-9]{2,5}(?:[#|][^\]]*)?\]\]")
# A tag is markup when it is one of HTML's own elements; any other word in angle brackets is a
# placeholder its author wrote, and a reader reads it: "puppet.green.<internalroot>",
# "data/<project>/<env>/" (qa118). The elements that mean nothing without attributes or
# content, or live in a page's head or a form, are also common placeholders ("cp <source>
# <dest>", "<title>", "<option 1>", qa119): written bare, they are tags only where their
# element closes later.
_HTML_ELEMENTS = frozenset((
    "a abbr address article aside audio b bdi bdo blockquote body br button canvas caption center cite code col "
    "colgroup data dd del details dfn dialog div dl dt em embed fieldset figcaption figure font footer form h1 h2 "
    "h3 h4 h5 h6 head header hr html i iframe img input ins kbd label legend li link main mark meta meter nav "
    "noscript object ol optgroup option output p picture pre progress q rp rt ruby s samp script section select "
    "small source span strike strong style sub summary sup svg table tbody td template textarea tfoot th thead "
    "time title tr track tt u ul var video wbr").split())
_PLACEHOLDER_LIKE = frozenset((
    "audio base body button canvas data dialog embed form head html iframe img input label link meta meter object "
    "option output param picture progress script select source style template textarea time title track "
    "video").split())
# attributes open with a name ("<option 1>" is no tag); their values may be anything but a bracket
# (JSX's style={{...}} in data-engineering-wiki's Mage note)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\s+[A-Za-z_:][^<>]*?)?)\s*(/?)>")


def _without_tags(text: str) -> str:
    """``text`` with its HTML tags as spaces, its placeholders as written."""
    if "<" not in text:
        return text
    lowered = text.lower()

    def markup(m: re.Match[str]) -> str:
        closing, name, attributes, self_closing = m.groups()
        name = name.lower()
        if name not in _HTML_ELEMENTS:
            return m.group()
        tag = closing or attributes.strip() or self_closing or name not in _PLACEHOLDER_LIKE \
            or lowered.find(f"</{name}", m.end()) >= 0
        return " " if tag else m.group()
    return _TAG.sub(markup, text)
_SPACES = re.compile(r"[ \t]{2,}")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
EMBED = re.compile(r"!\[\[[^\]\n]*\]\]")  # an embed of another file: `![[Daily.base]]`
_CALLOUT_MARK = re.compile(r"^((?:[ \t]*>)+[ \t]*)\[![\w-]+\][+-]?", re.M)
_WIKILINK = re.compile(r"\[\[([^\[\]|\n]*)(?:\|([^\[\]\n]*))?\]\]")
_REFERENCE_LINK = re.compile(r"(?<!\[)\[([^\[\]\n]+)\]\[[^\[\]\n]*\](?!\])")  # [text][label], [text][]
# A reference's definition, drawn as nothing ("[kep-1]: https://..."); a footnote's ("[^1]: ...") is text
_LINK_DEFINITION = re.compile(r"^ {0,3}\[(?!\^)[^\]\n]+\]:[ \t]*\S*[ \t]*(?:\"[^\"]*\")?[ \t]*$")
# a link (or image) whose text wraps: its target with a title, or a URL already cut to "( )"
_WRAPPED_LINK = re.compile(r"!?\[([^\[\]]*\n[^\[\]]*)\]\(\s*(?:<[^>\n]*>|[^()\s]*)(?:\s+\"[^\"]*\")?\s*\)"
                           r"|\[([^\[\]]*)\]\( \)")


def readable_text(markdown: str) -> str:
    """``markdown`` with link targets, URLs, attachment embeds, HTML tags and the lines that
    only draw the page left out; every word a reader reads, and all code, kept."""
    out = []
    in_comment = in_html_comment = False
    lines = markdown.split("\n")
    for line, role in zip(lines, fence_roles(lines)):
        if in_html_comment or (role == TEXT and "<!--" in line):
            line, in_html_comment = _outside_html_comments(line, in_html_comment)
            if not line.strip():
                continue
        if in_comment or (role == TEXT and line.lstrip().startswith("%%") and line.count("%%") % 2):
            # a comment block opened by a line of its own: hidden in Obsidian, and where the
            # Excalidraw plugin keeps a drawing's compressed data (a blob of base64)
            in_comment = not in_comment if line.count("%%") % 2 else in_comment
            continue
        if role == OPEN and _LANGUAGE.fullmatch(info_word(line)):
            out.append(info_word(line))  # the code's language says what it is (a tasks query)
        elif role == CODE:
            out.append(line)
        elif role == TEXT and not (_TABLE_RULE.match(line) or _HORIZONTAL_RULE.match(line)
                                   or _LINK_DEFINITION.match(line)):
            out.append(_outside_code_spans(line))
    # A link whose text wraps onto the next line is cut line by line: its text's two halves
    # stay, and its target stays whole (a relative image with a title, qa104) or leaves "( )"
    # (199 such links in the KEPs)
    return _WRAPPED_LINK.sub(_link_text, "\n".join(out))


def _link_text(link: re.Match[str]) -> str:
    text = link.group(1)
    if text is None:
        return link.group(2)
    return link.group() if _BLANK_LINE.search(text) else text  # a blank line ends a paragraph, and a link



def reading_view(markdown: str) -> str:
    """What a reader sees of the section in Obsidian's reading view, as a hit's snippet shows
    it: the readable text without ``%% comments %%`` (hidden there; data-engineering-wiki's
    "wiki footer: Please don't edit anything below this line" closed a snippet), embeds (drawn
    as the note they embed; its link is listed under the hit) and a callout's ``[!info]-``
    marker (drawn as its icon), a wikilink as its display text, a backslash escape as its
    character. Code is drawn as written: ``[[Code Link]]`` in a code span is no link, and a
    comment holding a link had been shown because the note held a code span (qa72). The model
    still reads them all as written: a snippet is for reading."""
    lines = _without_comments(markdown).split("\n")
    drawn = [_outside_code_spans(_coded_links_as_text(_CALLOUT_MARK.sub(r"\1", _BLOCK_ID.sub("", line))), _drawn)
             if role == TEXT else line for line, role in zip(lines, fence_roles(lines))]
    text = readable_text("\n".join(drawn))
    return _SPACE_BEFORE_STOP.sub(r"\1", _SPACES.sub(" ", text))


def _coded_links_as_text(line: str) -> str:
    """A link or image whose text holds a code span, as its text: split at the code span first,
    its Markdown had shown in a snippet (qa79: "![Comparison ... using `show tree` ...](../images/...)")."""
    if "`" not in line or "](" not in line:
        return line
    return _LINK_OR_IMAGE.sub(lambda m: m.group(1) if "`" in m.group(1) else m.group(), line)


def _without_comments(markdown: str) -> str:
    """``markdown`` without its ``%% comments %%`` (``%%`` in code is none: MATLAB's cells,
    IPython's ``%%time``); HTML comments are left to :func:`readable_text`, line by line."""
    out, at = [], 0
    for start, end in comment_spans(markdown):
        if not markdown.startswith("%%", start):
            continue
        out.append(markdown[at:start])
        at = end
    return "".join([*out, markdown[at:]])


def _drawn(prose: str) -> str:
    """Prose outside code as reading view draws it (see :func:`reading_view`)."""
    prose = _WIKILINK.sub(_link_as_drawn, EMBED.sub(" ", prose))
    return unescaped(_HIGHLIGHT.sub(r"\1", _FOOTNOTE_REF.sub("", prose)))


def unescaped(text: str) -> str:
    """Backslash escapes as the characters they escape ("\\(see below\\)" reads "(see below)")."""
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text


# Drawn as nothing in reading view: a block id ending a line ("... abandonment. ^broken-windows"),
# a footnote's reference ("[^budget]"); a ==highlight== is drawn as its text, and a backslash
# escape as its character ("\[\[not a link\]\]"). A tag left out before a full stop ("with a
# <b>lame</b>.") left a space before it.
_BLOCK_ID = re.compile(r"[ \t]\^[A-Za-z0-9-]+[ \t]*$")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\](?!:)")
_HIGHLIGHT = re.compile(r"==(?=\S)([^=\n]+?)(?<=\S)==")
_ESCAPE = re.compile(r"\\([!-/:-@[-`{-~])")
_SPACE_BEFORE_STOP = re.compile(r"(?<=\w) ([.,;:!?])(?=\s|$)", re.M)


def _link_as_drawn(link: re.Match[str]) -> str:
    """A wikilink as reading view draws it: its display text, else its target
    (``[[Note#Heading]]`` reads "Note > Heading")."""
    if link.group(2) is not None and link.group(2).strip():
        return link.group(2).strip()
    return " > ".join(part.strip() for part in link.group(1).split("#") if part.strip())


def only_comments(markdown: str) -> bool:
    """Whether the text holds nothing but ``%% comments %%`` and ``<!-- HTML comments -->``
    (and white space): one pass of one pattern, as a search asks it of every candidate (the
    whole reading view there doubled a search's time on obsidian-tasks-docs)."""
    return not _COMMENTS.sub("", markdown).strip()


_COMMENTS = re.compile(r"<!--.*?(?:-->|\Z)|%%.*?%%", re.DOTALL)  # an unclosed HTML comment runs to the end


def _outside_html_comments(line: str, inside: bool) -> tuple[str, bool]:
    """The line without its HTML comments, and whether one is still open at its end
    (``inside``: one was open at its start). ``<!--`` in a code span opens none."""
    if inside:
        end = line.find("-->")
        if end < 0:
            return "", True  # a fence inside the comment is no fence either: only --> ends it
        line = line[end + 3:]
    spans = code_spans(line)
    kept, at = [], 0
    for m in _HTML_COMMENT_OPEN.finditer(line):
        if m.start() < at or any(a <= m.start() < b for a, b in spans):
            continue
        kept.append(line[at:m.start()])
        end = line.find("-->", m.end())
        if end < 0:
            return " ".join(kept), True
        at = end + 3
    return " ".join(kept + [line[at:]]), False


_HTML_COMMENT_OPEN = re.compile("<!--")


def _outside_code_spans(line: str, clean: Callable[[str], str] | None = None) -> str:
    """The line with its prose parts cleaned (by ``clean``, else as the model reads them) and
    its code spans as written."""
    clean = clean or _clean
    parts, end = [], 0
    for start, stop in code_spans(line):
        parts += [clean(line[end:start]), line[start:stop]]
        end = stop
    parts.append(clean(line[end:]))
    return "".join(parts)


def wikilinks_as_text(text: str) -> str:
    """Wikilinks as reading view draws them, an embed by its name: "[[billing-spec#Refund
    window|refund window]]" reads "refund window" (a dead end's target had been words its
    restatement must repeat, and stayed raw in the sentence to say, qa132), "see ![[billing-spec
    #Refund window]] for why" reads "see billing-spec > Refund window for why"."""
    return _WIKILINK.sub(_link_as_drawn, text.replace("![[", "[[")) if "[[" in text else text


def links_as_text(text: str, *, wikilinks: bool = False) -> str:
    """Markdown links and images as their text: "[31. Use Redis](0031-use-redis.md)" reads
    "31. Use Redis", and so does a reference-style link ("[31. Use Redis][adr-31]"); with
    ``wikilinks``, wikilinks too (:func:`wikilinks_as_text`: what a dead end shows; a search
    snippet keeps them to be followed)."""
    if wikilinks:
        text = wikilinks_as_text(text)
    if "[" not in text:  # most lines: three patterns saved on each
        return text
    text = _LINK.sub(r"\1", _IMAGE.sub(r"\1", text))
    return _REFERENCE_LINK.sub(r"\1", text) if "][" in text else text


def _clean(text: str) -> str:
    text = links_as_text(_ATTACHMENT_EMBED.sub(" ", text))
    text = _MAIL_AUTOLINK.sub(r"\1", _AUTOLINK.sub(" ", text))
    text = _URL.sub(" ", text)
    text = _without_tags(text)
    return _SPACES.sub(" ", text)
