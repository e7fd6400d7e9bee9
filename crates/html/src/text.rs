//! HTML to the text a reader sees: block elements start lines, whitespace collapses
//! (except in `<pre>`), list items are bulleted, table cells are tab-separated, and
//! scripts, styles and other invisible elements are dropped.

use crate::dom::{DOCUMENT, Data, Dom, NodeId};

/// Elements whose content is never shown.
const HIDDEN: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object", "button", "select",
    "datalist",
];
/// Elements that start on a new line (blocks of their own, also for Markdown).
pub(crate) const BLOCK: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tr",
    "ul",
    "caption",
    "tbody",
    "thead",
    "tfoot",
    "center",
    "body",
    "html",
];
/// Elements followed by a blank line (paragraph-like).
const PARAGRAPH: &[&str] =
    &["p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol", "dl", "figure", "hr"];

struct Writer {
    out: String,
    /// A space is owed before the next visible character.
    space: bool,
}

impl Writer {
    fn newline(&mut self, blank: bool) {
        while self.out.ends_with(' ') {
            self.out.pop();
        }
        self.space = false;
        if self.out.is_empty() {
            return;
        }
        let want = if blank { "\n\n" } else { "\n" };
        let have = self.out.len() - self.out.trim_end_matches('\n').len();
        for _ in have..want.len() {
            self.out.push('\n');
        }
    }

    fn text(&mut self, s: &str, pre: bool) {
        if pre {
            self.out.push_str(s);
            self.space = false;
            return;
        }
        for c in s.chars() {
            if c.is_whitespace() {
                self.space = !self.out.is_empty() && !self.out.ends_with('\n') && !self.out.ends_with('\t');
            } else {
                if self.space {
                    self.out.push(' ');
                    self.space = false;
                }
                self.out.push(c);
            }
        }
    }
}

fn walk(dom: &Dom, node: NodeId, w: &mut Writer, pre: bool, depth: usize) {
    /// Deeper nesting is rendered flat: bounded recursion whatever built the tree.
    const MAX_DEPTH: usize = 1024;
    match dom.data(node) {
        Data::Text(t) => w.text(t, pre),
        Data::Element(e) => {
            let name = &*e.name.local;
            if HIDDEN.contains(&name) || dom.has_attr(node, "hidden") || dom.attr(node, "aria-hidden") == Some("true") {
                return;
            }
            match name {
                "br" => {
                    w.newline(false);
                    return;
                }
                "td" | "th" if !w.out.ends_with('\n') && !w.out.is_empty() => {
                    w.out.push('\t');
                    w.space = false;
                }
                "img" => {
                    if let Some(alt) = dom.attr(node, "alt").filter(|a| !a.trim().is_empty()) {
                        w.text(alt, false);
                    }
                    return;
                }
                _ => {}
            }
            let block = BLOCK.contains(&name);
            if block {
                w.newline(PARAGRAPH.contains(&name));
            }
            if name == "li" {
                w.out.push_str("- ");
            }
            let pre = pre || name == "pre" || name == "textarea";
            if depth < MAX_DEPTH {
                for child in dom.children(node) {
                    walk(dom, child, w, pre, depth + 1);
                }
            } else {
                for d in dom.descendants(node) {
                    if let Data::Text(t) = dom.data(d) {
                        w.text(t, pre);
                    }
                }
            }
            if block {
                w.newline(PARAGRAPH.contains(&name));
            }
        }
        Data::Document => {
            for child in dom.children(node) {
                walk(dom, child, w, pre, depth + 1);
            }
        }
        _ => {}
    }
}

/// The reader's text of a node's subtree (the whole document for [`DOCUMENT`]).
pub fn text_of_node(dom: &Dom, node: NodeId) -> String {
    let mut w = Writer { out: String::new(), space: false };
    walk(dom, node, &mut w, false, 0);
    w.out.trim().to_string()
}

pub fn text_of(dom: &Dom) -> String {
    text_of_node(dom, DOCUMENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(html: &str) -> String {
        text_of(&Dom::parse(html))
    }

    #[test]
    fn blocks_lines_and_whitespace() {
        assert_eq!(
            t("<h1>Title</h1><p>One   two\n three<br>four</p><div>five</div>"),
            "Title\n\nOne two three\nfour\n\nfive"
        );
        assert_eq!(t("<p>a <b>bold</b> word</p><script>var x=1</script><style>p{}</style>"), "a bold word");
    }

    #[test]
    fn lists_tables_and_pre() {
        assert_eq!(t("<ul><li>one</li><li>two</li></ul>"), "- one\n- two");
        assert_eq!(t("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"), "a\tb\nc\td");
        assert_eq!(t("<pre>x  = 1\n  y</pre>"), "x  = 1\n  y");
    }

    #[test]
    fn hidden_content_is_dropped() {
        assert_eq!(
            t("<p>shown</p><p hidden>gone</p><div aria-hidden=true>gone</div><img alt='a cat'>"),
            "shown\n\na cat"
        );
    }
}
