//! Article HTML to CommonMark (with GitHub tables): headings, paragraphs, nested lists,
//! block quotes, fenced code, emphasis, links, images, rules and tables.

use crate::dom::{Data, Dom, NodeId};
use crate::text::BLOCK;

/// Elements whose content is never shown.
const HIDDEN: &[&str] = &["script", "style", "noscript", "template", "head", "title", "iframe", "object", "embed"];
/// Deeper nesting is flattened into its text: bounded recursion.
const MAX_DEPTH: usize = 256;

pub fn markdown_of(dom: &Dom, root: NodeId) -> String {
    let md = Md { dom };
    let mut out = md.blocks(root, 0).join("\n\n");
    out.push('\n');
    out
}

struct Md<'a> {
    dom: &'a Dom,
}

fn is_block(dom: &Dom, n: NodeId) -> bool {
    dom.tag(n).is_some_and(|t| BLOCK.contains(&t))
}

/// Inline text collapsed into paragraphs: whitespace runs to one space, trimmed, and no
/// spaces around hard breaks.
fn finish_inline(s: &str) -> String {
    let lines: Vec<String> =
        s.split("  \n").map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|l| !l.is_empty()).collect();
    lines.join("  \n")
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Keeps a paragraph from starting with something Markdown reads as block syntax.
fn guard_block_start(s: String) -> String {
    let first = s.split_whitespace().next().unwrap_or("");
    let numbered =
        first.len() > 1 && first.ends_with(['.', ')']) && first[..first.len() - 1].chars().all(|c| c.is_ascii_digit());
    if first.starts_with('#') || matches!(first, "-" | "+" | "=" | "---") || numbered { format!("\\{s}") } else { s }
}

fn indent(s: &str, by: &str) -> String {
    s.lines().map(|l| if l.is_empty() { String::new() } else { format!("{by}{l}") }).collect::<Vec<_>>().join("\n")
}

impl Md<'_> {
    /// A container's children as blocks, with runs of inline content as paragraphs.
    fn blocks(&self, n: NodeId, depth: usize) -> Vec<String> {
        let dom = self.dom;
        let mut out = Vec::new();
        let mut inline = String::new();
        let flush = |inline: &mut String, out: &mut Vec<String>| {
            let p = finish_inline(inline);
            if !p.is_empty() {
                out.push(guard_block_start(p));
            }
            inline.clear();
        };
        for c in dom.children(n) {
            if is_block(dom, c) {
                flush(&mut inline, &mut out);
                out.extend(self.block(c, depth + 1));
            } else {
                inline.push_str(&self.inline(c, depth + 1));
            }
        }
        flush(&mut inline, &mut out);
        out
    }

    fn block(&self, n: NodeId, depth: usize) -> Vec<String> {
        let dom = self.dom;
        if depth > MAX_DEPTH {
            let t = finish_inline(&escape(&dom.text_content(n)));
            return if t.is_empty() { vec![] } else { vec![t] };
        }
        let tag = dom.tag(n).unwrap_or("");
        match tag {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = tag[1..].parse::<usize>().unwrap_or(1);
                let text = finish_inline(&self.inline_children(n, depth)).replace("  \n", " ");
                if text.is_empty() { vec![] } else { vec![format!("{} {text}", "#".repeat(level))] }
            }
            "hr" => vec!["---".to_string()],
            "pre" => {
                let code = dom.text_content(n);
                let lang = dom
                    .find(n, "code")
                    .and_then(|c| dom.attr(c, "class"))
                    .and_then(|c| c.split_whitespace().find_map(|w| w.strip_prefix("language-")))
                    .unwrap_or("");
                let fence = "`".repeat(longest_run(&code, '`').max(2) + 1);
                vec![format!("{fence}{lang}\n{}\n{fence}", code.trim_end_matches('\n'))]
            }
            "ul" | "ol" => self.list(n, tag == "ol", depth),
            "blockquote" => {
                let inner = self.blocks(n, depth).join("\n\n");
                if inner.is_empty() {
                    return vec![];
                }
                vec![
                    inner
                        .lines()
                        .map(|l| if l.is_empty() { ">".to_string() } else { format!("> {l}") })
                        .collect::<Vec<_>>()
                        .join("\n"),
                ]
            }
            "table" => self.table(n, depth),
            "li" => self.blocks(n, depth),
            _ if HIDDEN.contains(&tag) => vec![],
            _ => self.blocks(n, depth),
        }
    }

    fn list(&self, n: NodeId, ordered: bool, depth: usize) -> Vec<String> {
        let dom = self.dom;
        let start = dom.attr(n, "start").and_then(|s| s.trim().parse::<usize>().ok()).unwrap_or(1);
        let mut items = Vec::new();
        for (i, li) in dom.element_children(n).filter(|&c| dom.is(c, "li")).enumerate() {
            let marker = if ordered { format!("{}. ", start + i) } else { "- ".to_string() };
            let body = self.blocks(li, depth).join("\n\n");
            let pad = " ".repeat(marker.len());
            let body = indent(&body, &pad);
            items.push(format!("{marker}{}", body.get(pad.len()..).unwrap_or("")));
        }
        if items.is_empty() { vec![] } else { vec![items.join("\n")] }
    }

    fn table(&self, n: NodeId, depth: usize) -> Vec<String> {
        let dom = self.dom;
        let rows: Vec<Vec<String>> = dom
            .elements_by_tag(n, &["tr"])
            .into_iter()
            .map(|tr| {
                dom.element_children(tr)
                    .filter(|&c| matches!(dom.tag(c), Some("td" | "th")))
                    .map(|c| finish_inline(&self.inline_children(c, depth)).replace("  \n", " "))
                    .collect()
            })
            .filter(|r: &Vec<String>| !r.is_empty())
            .collect();
        let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return vec![];
        }
        let line = |r: &[String]| {
            let cells: Vec<&str> = (0..cols).map(|i| r.get(i).map_or("", String::as_str)).collect();
            format!("| {} |", cells.join(" | "))
        };
        let mut out = vec![line(&rows[0]), format!("|{}", " --- |".repeat(cols))];
        out.extend(rows[1..].iter().map(|r| line(r)));
        vec![out.join("\n")]
    }

    fn inline_children(&self, n: NodeId, depth: usize) -> String {
        self.dom.children(n).map(|c| self.inline(c, depth + 1)).collect()
    }

    fn inline(&self, n: NodeId, depth: usize) -> String {
        let dom = self.dom;
        let tag = match dom.data(n) {
            Data::Text(t) => return escape(t),
            Data::Element(e) => &*e.name.local,
            _ => return String::new(),
        };
        if depth > MAX_DEPTH {
            return escape(&dom.text_content(n));
        }
        let wrap = |mark: &str| {
            let inner = self.inline_children(n, depth);
            let t = inner.trim();
            if t.is_empty() {
                return inner;
            }
            let lead = if inner.starts_with(char::is_whitespace) { " " } else { "" };
            let trail = if inner.ends_with(char::is_whitespace) { " " } else { "" };
            format!("{lead}{mark}{t}{mark}{trail}")
        };
        match tag {
            "br" => "  \n".to_string(),
            "em" | "i" | "cite" | "dfn" | "var" => wrap("*"),
            "strong" | "b" => wrap("**"),
            "del" | "s" | "strike" => wrap("~~"),
            "code" | "kbd" | "samp" | "tt" => {
                let code = dom.text_content(n);
                if code.is_empty() {
                    return String::new();
                }
                let fence = "`".repeat(longest_run(&code, '`') + 1);
                let pad = if code.starts_with('`') || code.ends_with('`') { " " } else { "" };
                format!("{fence}{pad}{code}{pad}{fence}")
            }
            "a" => {
                let inner = finish_inline(&self.inline_children(n, depth));
                match dom.attr(n, "href").filter(|h| !h.is_empty()) {
                    Some(href) if !inner.is_empty() => format!("[{inner}]({})", link_target(href)),
                    _ => inner,
                }
            }
            "img" => match dom.attr(n, "src").filter(|s| !s.is_empty()) {
                Some(src) => format!("![{}]({})", escape(dom.attr(n, "alt").unwrap_or("")), link_target(src)),
                None => String::new(),
            },
            _ if HIDDEN.contains(&tag) => String::new(),
            // A block inside inline content: its text, set off by spaces.
            _ if is_block(dom, n) => format!(" {} ", self.inline_children(n, depth)),
            _ => self.inline_children(n, depth),
        }
    }
}

/// A link destination, in angle brackets when it has spaces or parentheses.
fn link_target(url: &str) -> String {
    if url.contains([' ', '(', ')']) { format!("<{}>", url.replace('>', "%3E")) } else { url.to_string() }
}

fn longest_run(s: &str, ch: char) -> usize {
    let mut best = 0;
    let mut cur = 0;
    for c in s.chars() {
        cur = if c == ch { cur + 1 } else { 0 };
        best = best.max(cur);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(html: &str) -> String {
        let dom = Dom::parse(html);
        markdown_of(&dom, dom.body().unwrap())
    }

    #[test]
    fn blocks_and_inlines() {
        assert_eq!(
            md("<h1>Title</h1><p>Some <b>bold</b> and <i>it</i> with <a href='/x'>a link</a>.</p><hr>"),
            "# Title\n\nSome **bold** and *it* with [a link](/x).\n\n---\n"
        );
        assert_eq!(md("<p>a<br>b</p><p>1. not a list * star</p>"), "a  \nb\n\n\\1. not a list \\* star\n");
    }

    #[test]
    fn lists_quotes_code_tables() {
        assert_eq!(md("<ul><li>one<ul><li>inner</li></ul></li><li>two</li></ul>"), "- one\n\n  - inner\n- two\n");
        assert_eq!(md("<ol start=3><li>c</li><li>d</li></ol>"), "3. c\n4. d\n");
        assert_eq!(md("<blockquote><p>q1</p><p>q2</p></blockquote>"), "> q1\n>\n> q2\n");
        assert_eq!(
            md("<pre><code class='language-rust'>fn x() {}\n</code></pre><p>use <code>x</code></p>"),
            "```rust\nfn x() {}\n```\n\nuse `x`\n"
        );
        assert_eq!(
            md("<table><tr><th>h1</th><th>h2</th></tr><tr><td>a</td><td>b|c</td></tr></table>"),
            "| h1 | h2 |\n| --- | --- |\n| a | b\\|c |\n"
        );
    }
}
