"""What the embedding model reads of a section (vault_engine/parsing/readable.py)."""

from vault_engine.parsing.readable import only_comments, readable_text, reading_view


def test_plain_prose_is_kept_as_it_is():
    text = "Tasks repeat every week.\n\n- a list item with **bold** and `code`\n> a quote, 3 < 4 and 5 > 2"
    assert readable_text(text) == text


def test_a_link_reads_as_its_text_and_an_image_as_its_alt_text():
    text = 'See [the issue #2571](https://github.com/o/t/issues/2571 "title") and ![a diagram](img/d.png).'
    assert readable_text(text) == "See the issue #2571 and a diagram."


def test_a_url_with_parentheses_is_one_link_target():
    assert readable_text("[Lambda](https://en.wikipedia.org/wiki/Lambda_(calculus)) here") == "Lambda here"


def test_bare_and_autolinked_urls_are_left_out():
    assert readable_text("docs at https://example.com/a/b?c=d and <https://x.org/y> too") == "docs at and too"


def test_attachment_embeds_go_and_links_to_notes_stay():
    text = "![[diagram.png]] ![[Other note]] [[Filters|the filters]] ![[Books.base#View]] [[a.md]]"
    assert readable_text(text) == " ![[Other note]] [[Filters|the filters]] [[a.md]]"


def test_html_tags_go_and_their_text_stays():
    assert readable_text('<img src="x.png"> hello <br/> <span class="a">world</span>') == " hello world "
    assert readable_text("<DETAILS><Summary>more</Summary></DETAILS>") == " more "


def test_a_word_in_angle_brackets_that_is_no_html_element_is_a_placeholder_and_stays():
    # "puppet.green.<internalroot>" and "data/<project>/<environment>/" lost theirs in snippets (qa118)
    assert reading_view("puppet.green.<internalroot>, alerts.green.<externalroot>") == \
        "puppet.green.<internalroot>, alerts.green.<externalroot>"
    assert reading_view("tfvars in data/<project>/<environment>/ <b>first</b>") == \
        "tfvars in data/<project>/<environment>/ first "
    # named like an element but no tag: unclosed, no attribute; or no tag at all (qa119)
    assert reading_view("cp <source> <dest>, the <title> of the page, <option 1>") == \
        "cp <source> <dest>, the <title> of the page, <option 1>"
    assert reading_view('<div align=center><img src="a.png">text<br></div>') == " text "
    assert reading_view('<div style={{display: "flex"}}>JSX</div>') == " JSX "  # any value but a bracket


def test_fence_lines_go_and_the_code_stays_as_written_after_its_language():
    text = "Before\n```ts\nconst a: Array<string> = fetch('https://api.example.com');\n```\nAfter"
    assert readable_text(text) == "Before\nts\nconst a: Array<string> = fetch('https://api.example.com');\nAfter"
    assert readable_text("~~~\n| a | b |\n|---|---|\n~~~\n```tasks\nnot done\n```") == "| a | b |\n|---|---|\ntasks\nnot done"


def test_code_spans_are_kept_as_written():
    text = "Call `Promise<void>` or `curl https://x.org/` then [go](https://y.org)"
    assert readable_text(text) == "Call `Promise<void>` or `curl https://x.org/` then go"


def test_table_rules_and_horizontal_rules_go_and_the_rows_stay():
    text = "| Field | Meaning |\n| :-- | --: |\n| due | the due date |\n\n---\n***\nEnd"
    assert readable_text(text) == "| Field | Meaning |\n| due | the due date |\n\nEnd"
    # rules without outer pipes or with spaces around them, and a deep list item, which is none
    rules = "a | b\n--- | :---:\n  |  -  |  -  |  \n" + " " * 1600 + "- deep item"
    assert readable_text(rules) == "a | b\n - deep item"  # (runs of spaces read as one)


def test_the_reading_view_hides_comments_draws_links_and_leaves_out_embeds_and_callout_marks():
    # data-engineering-wiki's snippets showed `![[Learning Resources#...]] %% wiki footer: ... %%`
    text = ("Use a [[Change Data Capture|CDC]] pipeline, see [[Kafka#Topics]].\n![[Learning Resources#Data]]\n"
            "%% wiki footer: Please don't edit\nanything below this line %%\n> [!info]- View Resources")
    assert reading_view(text) == "Use a CDC pipeline, see Kafka > Topics.\n \n\n> View Resources"
    code = "```\n%%time\nrun()\n```\nsay %% a comment in a note with code %% and `%% code %%`"
    assert reading_view(code) == "%%time\nrun()\nsay and `%% code %%`"  # %% in code is no comment


def test_the_reading_view_draws_code_as_written_and_escapes_as_their_character():
    """qa72: a comment holding a link was shown in a note with a code span, a link in a code span
    was drawn as a link, an escaped bracket kept its backslash, and a block link ending a line
    lost its block id."""
    text = "a %% hidden [[Comment Link]] %% b `[[Code Link]]` and \\[\\[Escaped\\]\\] end"
    assert reading_view(text) == "a b `[[Code Link]]` and [[Escaped]] end"
    assert reading_view("see [[Target#^item1]]\nnext ^id") == "see Target > ^item1\nnext"


def test_a_comment_block_is_not_read_and_inline_comments_and_code_are():
    """Excalidraw keeps each drawing's compressed data in a %% block: base64 the model read."""
    drawing = "## Text Elements\nhello ^abc\n\n%%\n## Drawing\n```compressed-json\nN4IgLgng\n```\n%%\nafter"
    assert readable_text(drawing) == "## Text Elements\nhello ^abc\n\nafter"
    assert readable_text("a %% inline %% b\n%% one line %%\nc") == "a %% inline %% b\n%% one line %%\nc"
    assert readable_text("```matlab\n%% a cell\nx = 1\n```") == "matlab\n%% a cell\nx = 1"  # code, not a comment


def test_the_reading_view_draws_what_obsidian_draws_of_ids_footnotes_and_marks():
    # qa27 F6: each of these was left in a snippet as written
    assert reading_view("see [angle form](<../books/The Pragmatic Programmer.md>) now") == "see angle form now"
    assert reading_view("with a <b>lame</b>.") == "with a lame."
    assert reading_view("mail <mailto:me@example.org> or <https://x.org> today") == "mail me@example.org or today"
    assert reading_view("abandonment. ^broken-windows\nnext") == "abandonment.\nnext"
    assert reading_view("budget[^budget] is ==tight== here") == "budget is tight here"
    assert reading_view("a = b == c and x ^y z") == "a = b == c and x ^y z"  # no mark, no id: as written


def test_html_comments_are_left_out_as_no_renderer_draws_them():
    text = ("Read this <!-- not this --> sentence.\n<!--\nA template's instructions\n-->\n"
            "Code `<!-- kept -->` stays; <!-- opened here\nstill hidden\n--> and this is read.")
    assert readable_text(text) == ("Read this sentence.\nCode `<!-- kept -->` stays; \n and this is read.")
    assert reading_view("<!-- only a comment -->\n") == ""


def test_reference_links_read_as_their_text_and_their_definitions_as_nothing():
    """KEPs write [text][label] (137 of them) and wrap links' text over two lines (199): the
    snippets kept "[the docs][]" and "scheduling]( )"."""
    text = ("See [the docs][] and [KEP 1880][kep-1880], or [topology-aware\nscheduling](https://x.io/t).\n\n"
            "[kep-1880]: https://example.org/kep \"title\"\n[^1]: a footnote stays\n"
            "```python\nm[i][j] = 1\n```\n[[Wiki note]] and `a[i][j]`")
    assert readable_text(text) == ("See the docs and KEP 1880, or topology-aware\nscheduling.\n\n[^1]: a footnote stays\n"
                                   "python\nm[i][j] = 1\n[[Wiki note]] and `a[i][j]`")


def test_a_text_of_comments_only_is_told_from_one_with_words():
    assert only_comments("<!--\nWhat are the risks?\n-->\n%% a note to self %%\n")
    assert only_comments("<!-- left open\nto the end")
    assert not only_comments("<!-- hidden --> Shown.")
    assert not only_comments("```\n<!-- in code -->\n```")


def test_a_link_or_image_whose_text_holds_a_code_span_reads_as_its_text_in_reading_view():
    """The code span was found first and split the image: its Markdown showed in a snippet (qa79)."""
    assert reading_view("![Results when using `show tree` or not](../images/a.png) below") == \
        "Results when using `show tree` or not below"
    assert reading_view("see [the `flag` doc](a.md), and `[x](y)` as code") == "see the `flag` doc, and `[x](y)` as code"


def test_a_wrapped_link_to_a_file_reads_as_its_text():
    """A KEP's image with a relative target and a title, its text over two lines, showed its
    Markdown in a snippet: "...configuration](./restarts-vs-elapsed-all.png "KEP-4603 ...")" (qa104)."""
    text = ('Intro ![A graph showing restarts with the\n  proposed minimum per node configuration]'
            '(./restarts-vs-elapsed-all.png "KEP-4603\ncomparison") Originally\n'
            'we did ([see\nbelow](#return-a-project-id-to-the-system)).\n\n[no link\n\nacross paragraphs](b.md)')
    assert reading_view(text) == ("Intro A graph showing restarts with the\n proposed minimum per node configuration "
                                  "Originally\nwe did (see\nbelow).\n\n[no link\n\nacross paragraphs](b.md)")
