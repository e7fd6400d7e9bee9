//! Main content: the Readability algorithm (Mozilla's reader view) over the arena DOM.
//!
//! Paragraph-like elements score by length and commas; scores flow to the parent and,
//! halved, to the grandparent (a third per level above); class and id names weigh in; link
//! density scales candidates down. The best candidate and its qualifying siblings become the
//! article, which is then cleaned (conditionally dropping tables, lists, forms and divs that
//! look like navigation or ads). When too little text survives, the page is restored and
//! the pass repeats with relaxed rules.

use crate::dom::{DOCUMENT, Dom, NodeId};
use crate::meta::{self, Metadata};
use crate::patterns::{self, js_len, normalize_spaces, normalized_len};

const FLAG_STRIP_UNLIKELYS: u8 = 1;
const FLAG_WEIGHT_CLASSES: u8 = 2;
const FLAG_CLEAN_CONDITIONALLY: u8 = 4;

/// Article text a pass must keep before it is accepted (Readability's default).
pub const CHAR_THRESHOLD: usize = 500;
/// Candidates compared when deciding whether the top one is one of several siblings.
const N_TOP_CANDIDATES: usize = 5;
/// Near-top candidates sharing an ancestor that make the ancestor the article.
const MIN_TOP_CANDIDATES: usize = 3;
/// Scored text shorter than this is navigation or a caption, not a paragraph.
const MIN_PARAGRAPH_CHARS: usize = 25;
/// Similarity above which a heading repeats the title.
const TITLE_SIMILARITY: f64 = 0.75;
/// Elements scored as paragraphs.
const TAGS_TO_SCORE: &[&str] = &["section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre"];
/// Children that keep a `<div>` from being a paragraph.
const DIV_TO_P_ELEMS: &[&str] = &["blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul"];
/// Siblings kept under their own tag when merged into the article.
const ALTER_TO_DIV_EXCEPTIONS: &[&str] = &["div", "article", "section", "p", "ol", "ul"];
const PRESENTATIONAL_ATTRIBUTES: &[&str] = &[
    "align",
    "background",
    "bgcolor",
    "border",
    "cellpadding",
    "cellspacing",
    "frame",
    "hspace",
    "rules",
    "style",
    "valign",
    "vspace",
];
const DEPRECATED_SIZE_ATTRIBUTE_ELEMS: &[&str] = &["table", "th", "td", "hr", "pre"];
const UNLIKELY_ROLES: &[&str] = &["menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog"];
/// Inline (phrasing) elements: runs of these inside a `<div>` are wrapped into paragraphs.
const PHRASING_ELEMS: &[&str] = &[
    "abbr", "audio", "b", "bdo", "br", "button", "cite", "code", "data", "datalist", "dfn", "em", "embed", "i", "img",
    "input", "kbd", "label", "mark", "math", "meter", "noscript", "object", "output", "progress", "q", "ruby", "samp",
    "script", "select", "small", "span", "strong", "sub", "sup", "textarea", "time", "var", "wbr",
];

#[derive(Debug, Clone)]
pub struct Options {
    /// Text the article must have before a pass is accepted.
    pub char_threshold: usize,
    /// Class names kept on the article's elements (all others are stripped).
    pub classes_to_preserve: Vec<String>,
    pub keep_classes: bool,
    /// The page's address, for resolving relative links and images.
    pub url: Option<String>,
    pub disable_json_ld: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            char_threshold: CHAR_THRESHOLD,
            classes_to_preserve: Vec::new(),
            keep_classes: false,
            url: None,
            disable_json_ld: false,
        }
    }
}

/// The main content of a page and its metadata.
#[derive(Debug, Clone)]
pub struct Article {
    pub meta: Metadata,
    /// The tree holding the article; `root` is the article's container element.
    pub dom: Dom,
    pub root: NodeId,
}

impl Article {
    /// The cleaned article HTML (the container's inner HTML).
    pub fn html(&self) -> String {
        self.dom.html(self.root, false)
    }

    /// The article as a reader sees it.
    pub fn text(&self) -> String {
        crate::text::text_of_node(&self.dom, self.root)
    }

    pub fn markdown(&self) -> String {
        crate::markdown::markdown_of(&self.dom, self.root)
    }
}

/// Per-node state of one extraction: content scores and the data-table marks.
struct Reader<'o> {
    dom: Dom,
    opts: &'o Options,
    flags: u8,
    score: Vec<Option<f64>>,
    data_table: Vec<bool>,
    title: String,
    byline: Option<String>,
    lang: Option<String>,
    dir: Option<String>,
}

/// Extracts the main content; None when the page has no text to speak of.
pub fn extract(mut dom: Dom, opts: &Options) -> Option<Article> {
    let readerable = is_probably_readerable(&dom);
    unwrap_noscript_images(&mut dom);
    let json_ld = if opts.disable_json_ld { Default::default() } else { meta::json_ld(&dom) };
    remove_all(&mut dom, &["script", "noscript"]);
    prep_document(&mut dom);
    let mut metadata = meta::metadata(&dom, json_ld);
    metadata.readerable = readerable;
    let mut r = Reader {
        dom,
        opts,
        flags: FLAG_STRIP_UNLIKELYS | FLAG_WEIGHT_CLASSES | FLAG_CLEAN_CONDITIONALLY,
        score: Vec::new(),
        data_table: Vec::new(),
        title: metadata.title.clone().unwrap_or_default(),
        byline: None,
        lang: None,
        dir: None,
    };
    let root = r.grab_article()?;
    r.post_process(root);
    if metadata.excerpt.is_none()
        && let Some(p) = r.dom.find(root, "p")
    {
        metadata.excerpt = Some(trim(&r.dom.text_content(p)).to_string());
    }
    if metadata.byline.is_none() {
        metadata.byline = r.byline.take();
    }
    metadata.lang = r.lang.take();
    metadata.dir = r.dir.take();
    Some(Article { meta: metadata, dom: r.dom, root })
}

/// Whether the page probably has an article worth a reader view: enough visible
/// paragraph text outside unlikely containers.
pub fn is_probably_readerable(dom: &Dom) -> bool {
    /// Paragraphs shorter than this add nothing.
    const MIN_CONTENT_LENGTH: usize = 140;
    /// Sum of sqrt(length - MIN_CONTENT_LENGTH) a page needs.
    const MIN_SCORE: f64 = 20.0;
    let mut nodes: Vec<NodeId> = dom.elements_by_tag(DOCUMENT, &["p", "pre", "article"]);
    for br in dom.elements_by_tag(DOCUMENT, &["br"]) {
        if let Some(p) = dom.parent(br).filter(|&p| dom.is(p, "div"))
            && !nodes.contains(&p)
        {
            nodes.push(p);
        }
    }
    let mut score = 0.0;
    nodes.into_iter().any(|n| {
        if !is_node_visible(dom, n) {
            return false;
        }
        let m = match_string(dom, n);
        if patterns::unlikely_candidate(&m) && !patterns::ok_maybe_candidate(&m) {
            return false;
        }
        if dom.is(n, "p") && dom.ancestors(n).any(|a| dom.is(a, "li")) {
            return false;
        }
        let len = js_len(trim(&dom.text_content(n)));
        if len < MIN_CONTENT_LENGTH {
            return false;
        }
        score += ((len - MIN_CONTENT_LENGTH) as f64).sqrt();
        score > MIN_SCORE
    })
}

impl Reader<'_> {
    fn flag(&self, f: u8) -> bool {
        self.flags & f != 0
    }

    fn score_of(&self, n: NodeId) -> Option<f64> {
        self.score.get(n).copied().flatten()
    }

    fn set_score(&mut self, n: NodeId, s: f64) {
        if self.score.len() <= n {
            self.score.resize(self.dom.len().max(n + 1), None);
        }
        self.score[n] = Some(s);
    }

    fn is_data_table(&self, n: NodeId) -> bool {
        self.data_table.get(n).copied().unwrap_or(false)
    }

    fn class_weight(&self, n: NodeId) -> f64 {
        if !self.flag(FLAG_WEIGHT_CLASSES) {
            return 0.0;
        }
        let mut weight = 0.0;
        for name in ["class", "id"] {
            if let Some(v) = self.dom.attr(n, name).filter(|v| !v.is_empty()) {
                if patterns::negative(v) {
                    weight -= 25.0;
                }
                if patterns::positive(v) {
                    weight += 25.0;
                }
            }
        }
        weight
    }

    fn initialize(&mut self, n: NodeId) {
        let base = match self.dom.tag(n).unwrap_or("") {
            "div" => 5.0,
            "pre" | "td" | "blockquote" => 3.0,
            "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
            _ => 0.0,
        };
        let s = base + self.class_weight(n);
        self.set_score(n, s);
    }

    /// Stores the node's text as the byline when it is one; the caller removes it.
    fn check_byline(&mut self, n: NodeId, m: &str) -> bool {
        if self.byline.is_some() {
            return false;
        }
        let dom = &self.dom;
        let rel = dom.attr(n, "rel");
        let itemprop = dom.attr(n, "itemprop");
        let looks = rel == Some("author") || itemprop.is_some_and(|i| i.contains("author")) || patterns::byline(m);
        if !looks || !is_valid_byline(&dom.text_content(n)) {
            return false;
        }
        // A nested itemprop="name" is the author's name without the decoration.
        let end = next_element(dom, n, true);
        let mut next = next_element(dom, n, false);
        let mut name_node = None;
        while let Some(x) = next
            && Some(x) != end
        {
            if dom.attr(x, "itemprop").is_some_and(|i| i.contains("name")) {
                name_node = Some(x);
                break;
            }
            next = next_element(dom, x, false);
        }
        self.byline = Some(trim(&dom.text_content(name_node.unwrap_or(n))).to_string());
        true
    }

    fn header_duplicates_title(&self, n: NodeId) -> bool {
        if !matches!(self.dom.tag(n), Some("h1" | "h2")) {
            return false;
        }
        let heading = inner_text(&self.dom, n, false);
        text_similarity(&self.title, &heading) > TITLE_SIMILARITY
    }

    /// The DOM walk of one pass: drops hidden and unlikely nodes and bylines, turns divs
    /// into paragraphs where they hold only phrasing content, and lists what to score.
    fn collect_elements_to_score(&mut self) -> Vec<NodeId> {
        let mut to_score = Vec::new();
        let strip_unlikely = self.flag(FLAG_STRIP_UNLIKELYS);
        let mut remove_title_header = true;
        let mut node = self.dom.document_element();
        while let Some(n) = node {
            let tag = self.dom.tag(n).unwrap_or("").to_string();
            if tag == "html" {
                self.lang = self.dom.attr(n, "lang").map(str::to_string);
            }
            let m = match_string(&self.dom, n);
            if !is_probably_visible(&self.dom, n) {
                node = self.remove_and_next(n);
                continue;
            }
            if self.dom.attr(n, "aria-modal") == Some("true") && self.dom.attr(n, "role") == Some("dialog") {
                node = self.remove_and_next(n);
                continue;
            }
            if self.check_byline(n, &m) {
                node = self.remove_and_next(n);
                continue;
            }
            if remove_title_header && self.header_duplicates_title(n) {
                remove_title_header = false;
                node = self.remove_and_next(n);
                continue;
            }
            if strip_unlikely {
                if patterns::unlikely_candidate(&m)
                    && !patterns::ok_maybe_candidate(&m)
                    && !has_ancestor_tag(&self.dom, n, "table", 3)
                    && !has_ancestor_tag(&self.dom, n, "code", 3)
                    && tag != "body"
                    && tag != "a"
                {
                    node = self.remove_and_next(n);
                    continue;
                }
                if self.dom.attr(n, "role").is_some_and(|r| UNLIKELY_ROLES.contains(&r)) {
                    node = self.remove_and_next(n);
                    continue;
                }
            }
            if matches!(&*tag, "div" | "section" | "header" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
                && is_element_without_content(&self.dom, n)
            {
                node = self.remove_and_next(n);
                continue;
            }
            if TAGS_TO_SCORE.contains(&&*tag) {
                to_score.push(n);
            }
            let mut n = n;
            if tag == "div" {
                self.wrap_phrasing_runs(n);
                if has_single_tag_inside(&self.dom, n, "p")
                    && link_density(&self.dom, n) < 0.25
                    && let Some(child) = self.dom.first_element_child(n)
                {
                    self.dom.replace(n, child);
                    n = child;
                    to_score.push(n);
                } else if !has_child_block_element(&self.dom, n) {
                    self.dom.rename(n, "p");
                    to_score.push(n);
                }
            }
            node = next_element(&self.dom, n, false);
        }
        to_score
    }

    /// Puts each run of phrasing content directly inside a div into its own `<p>`.
    fn wrap_phrasing_runs(&mut self, div: NodeId) {
        let mut p: Option<NodeId> = None;
        let mut child = self.dom.first_child(div);
        while let Some(c) = child {
            let next = self.dom.next_sibling(c);
            if is_phrasing_content(&self.dom, c) {
                if let Some(p) = p {
                    self.dom.append(p, c);
                } else if !is_whitespace(&self.dom, c) {
                    let np = self.dom.create_element("p");
                    self.dom.replace(c, np);
                    self.dom.append(np, c);
                    p = Some(np);
                }
            } else if let Some(pp) = p.take() {
                while let Some(last) = self.dom.last_child(pp)
                    && is_whitespace(&self.dom, last)
                {
                    self.dom.detach(last);
                }
            }
            child = next;
        }
    }

    fn remove_and_next(&mut self, n: NodeId) -> Option<NodeId> {
        let next = next_element(&self.dom, n, true);
        self.dom.detach(n);
        next
    }

    /// Scores paragraphs into their ancestors; returns the candidates in discovery order.
    fn score_candidates(&mut self, to_score: &[NodeId]) -> Vec<NodeId> {
        let mut candidates = Vec::new();
        for &el in to_score {
            let Some(parent) = self.dom.parent(el) else { continue };
            if !self.dom.is_element(parent) {
                continue;
            }
            let text = inner_text(&self.dom, el, true);
            let len = js_len(&text);
            if len < MIN_PARAGRAPH_CHARS {
                continue;
            }
            let ancestors: Vec<NodeId> = self.dom.ancestors(el).take(5).collect();
            if ancestors.is_empty() {
                continue;
            }
            let content_score = 1.0 + patterns::comma_count(&text) as f64 + 1.0 + (len / 100).min(3) as f64;
            for (level, &a) in ancestors.iter().enumerate() {
                let has_element_parent = self.dom.parent(a).is_some_and(|p| self.dom.is_element(p));
                if !self.dom.is_element(a) || !has_element_parent {
                    continue;
                }
                if self.score_of(a).is_none() {
                    self.initialize(a);
                    candidates.push(a);
                }
                let divider = match level {
                    0 => 1.0,
                    1 => 2.0,
                    l => l as f64 * 3.0,
                };
                let s = self.score_of(a).unwrap_or(0.0) + content_score / divider;
                self.set_score(a, s);
            }
        }
        candidates
    }

    fn grab_article(&mut self) -> Option<NodeId> {
        let body = self.dom.body()?;
        let cache = self.dom.deep_clone(body);
        let mut attempts: Vec<(NodeId, usize)> = Vec::new();
        loop {
            let to_score = self.collect_elements_to_score();
            let candidates = self.score_candidates(&to_score);
            let (top, parent_of_top, created) = self.pick_top_candidate(body, &candidates);
            let article = self.merge_siblings(top, parent_of_top);
            self.prep_article(article);
            if created {
                self.dom.set_attr(top, "id", "readability-page-1");
                self.dom.set_attr(top, "class", "page");
            } else {
                let div = self.dom.create_element("div");
                self.dom.set_attr(div, "id", "readability-page-1");
                self.dom.set_attr(div, "class", "page");
                self.dom.move_children(article, div);
                self.dom.append(article, div);
            }
            let text_len = inner_len(&self.dom, article);
            let mut result = None;
            if text_len < self.opts.char_threshold {
                // Restore the page and try again with one rule relaxed.
                while let Some(c) = self.dom.first_child(body) {
                    self.dom.detach(c);
                }
                let fresh = self.dom.deep_clone(cache);
                self.dom.move_children(fresh, body);
                attempts.push((article, text_len));
                if self.flag(FLAG_STRIP_UNLIKELYS) {
                    self.flags &= !FLAG_STRIP_UNLIKELYS;
                } else if self.flag(FLAG_WEIGHT_CLASSES) {
                    self.flags &= !FLAG_WEIGHT_CLASSES;
                } else if self.flag(FLAG_CLEAN_CONDITIONALLY) {
                    self.flags &= !FLAG_CLEAN_CONDITIONALLY;
                } else {
                    // Every pass came up short: keep the longest (the first among equals).
                    let best = attempts.iter().enumerate().max_by_key(|(i, a)| (a.1, usize::MAX - i)).map(|(_, a)| *a);
                    match best {
                        Some((article, len)) if len > 0 => result = Some(article),
                        _ => return None,
                    }
                }
            } else {
                result = Some(article);
            }
            if let Some(article) = result {
                let mut chain = vec![parent_of_top, top];
                chain.extend(self.dom.ancestors(parent_of_top));
                self.dir = chain
                    .into_iter()
                    .filter(|&a| self.dom.is_element(a))
                    .find_map(|a| self.dom.attr(a, "dir").map(str::to_string));
                return Some(article);
            }
        }
    }

    /// The best candidate, moved up to a shared ancestor when several near-top candidates
    /// sit under it, or up through parents that score better; a new div holding the whole
    /// body when nothing scored.
    fn pick_top_candidate(&mut self, body: NodeId, candidates: &[NodeId]) -> (NodeId, NodeId, bool) {
        let mut top: Vec<NodeId> = Vec::new();
        for &c in candidates {
            let s = self.score_of(c).unwrap_or(0.0) * (1.0 - link_density(&self.dom, c));
            self.set_score(c, s);
            let at = top.iter().position(|&t| s > self.score_of(t).unwrap_or(0.0)).unwrap_or(top.len());
            if at < N_TOP_CANDIDATES {
                top.insert(at, c);
                top.truncate(N_TOP_CANDIDATES);
            }
        }
        let Some(&first) = top.first().filter(|&&t| !self.dom.is(t, "body")) else {
            let div = self.dom.create_element("div");
            self.dom.move_children(body, div);
            self.dom.append(body, div);
            self.initialize(div);
            return (div, body, true);
        };
        let mut top_candidate = first;
        let top_score = self.score_of(first).unwrap_or(0.0);
        let alternatives: Vec<Vec<NodeId>> = top[1..]
            .iter()
            .filter(|&&t| self.score_of(t).unwrap_or(0.0) / top_score >= 0.75)
            .map(|&t| self.dom.ancestors(t).collect())
            .collect();
        if alternatives.len() >= MIN_TOP_CANDIDATES {
            let mut p = self.dom.parent(top_candidate);
            while let Some(a) = p.filter(|&a| !self.dom.is(a, "body") && a != DOCUMENT) {
                let lists = alternatives.iter().filter(|l| l.contains(&a)).count();
                if lists >= MIN_TOP_CANDIDATES {
                    top_candidate = a;
                    break;
                }
                p = self.dom.parent(a);
            }
        }
        if self.score_of(top_candidate).is_none() {
            self.initialize(top_candidate);
        }
        // A parent scoring higher than the candidate is likely the real container.
        let mut last_score = self.score_of(top_candidate).unwrap_or(0.0);
        let threshold = last_score / 3.0;
        let mut p = self.dom.parent(top_candidate);
        while let Some(a) = p.filter(|&a| !self.dom.is(a, "body") && a != DOCUMENT) {
            let Some(parent_score) = self.score_of(a) else {
                p = self.dom.parent(a);
                continue;
            };
            if parent_score < threshold {
                break;
            }
            if parent_score > last_score {
                top_candidate = a;
                break;
            }
            last_score = parent_score;
            p = self.dom.parent(a);
        }
        // An only child says nothing its parent does not: climb through them.
        let mut parent = self.dom.parent(top_candidate).unwrap_or(body);
        while !self.dom.is(parent, "body")
            && parent != DOCUMENT
            && self.dom.element_children(parent).count() == 1
            && let Some(pp) = self.dom.parent(parent)
        {
            top_candidate = parent;
            parent = pp;
        }
        if self.score_of(top_candidate).is_none() {
            self.initialize(top_candidate);
        }
        (top_candidate, parent, false)
    }

    /// The article container: the top candidate plus siblings that score near it, share
    /// its class, or read as prose paragraphs.
    fn merge_siblings(&mut self, top: NodeId, parent: NodeId) -> NodeId {
        let article = self.dom.create_element("div");
        let top_score = self.score_of(top).unwrap_or(0.0);
        let threshold = (top_score * 0.2).max(10.0);
        let top_class = self.dom.attr(top, "class").unwrap_or("").to_string();
        let siblings: Vec<NodeId> = self.dom.element_children(parent).collect();
        for s in siblings {
            let append = if s == top {
                true
            } else {
                let bonus = if !top_class.is_empty() && self.dom.attr(s, "class") == Some(&*top_class) {
                    top_score * 0.2
                } else {
                    0.0
                };
                if self.score_of(s).is_some_and(|sc| sc + bonus >= threshold) {
                    true
                } else if self.dom.is(s, "p") {
                    /// Paragraphs longer than this join when they are mostly not links.
                    const LONG_PARAGRAPH: usize = 80;
                    let density = link_density(&self.dom, s);
                    let text = inner_text(&self.dom, s, true);
                    let len = js_len(&text);
                    (len > LONG_PARAGRAPH && density < 0.25)
                        || (len < LONG_PARAGRAPH && len > 0 && density == 0.0 && ends_sentence(&text))
                } else {
                    false
                }
            };
            if append {
                if !self.dom.tag(s).is_some_and(|t| ALTER_TO_DIV_EXCEPTIONS.contains(&t)) {
                    self.dom.rename(s, "div");
                }
                self.dom.append(article, s);
            }
        }
        article
    }

    fn prep_article(&mut self, article: NodeId) {
        clean_styles(&mut self.dom, article);
        self.mark_data_tables(article);
        fix_lazy_images(&mut self.dom, article);
        self.clean_conditionally(article, "form");
        self.clean_conditionally(article, "fieldset");
        for tag in ["object", "embed", "footer", "link", "aside"] {
            clean(&mut self.dom, article, tag);
        }
        /// "share" widgets with less text than this are dropped.
        const SHARE_ELEMENT_THRESHOLD: usize = CHAR_THRESHOLD;
        let tops: Vec<NodeId> = self.dom.element_children(article).collect();
        for t in tops {
            let end = next_element(&self.dom, t, true);
            let mut next = next_element(&self.dom, t, false);
            while let Some(x) = next
                && Some(x) != end
            {
                let m = match_string(&self.dom, x);
                if patterns::share_element(&m) && js_len(&self.dom.text_content(x)) < SHARE_ELEMENT_THRESHOLD {
                    next = self.remove_and_next(x);
                } else {
                    next = next_element(&self.dom, x, false);
                }
            }
        }
        for tag in ["iframe", "input", "textarea", "select", "button"] {
            clean(&mut self.dom, article, tag);
        }
        for h in self.dom.elements_by_tag(article, &["h1", "h2"]).into_iter().rev() {
            if self.class_weight(h) < 0.0 {
                self.dom.detach(h);
            }
        }
        self.clean_conditionally(article, "table");
        self.clean_conditionally(article, "ul");
        self.clean_conditionally(article, "div");
        for h in self.dom.elements_by_tag(article, &["h1"]) {
            self.dom.rename(h, "h2");
        }
        for p in self.dom.elements_by_tag(article, &["p"]).into_iter().rev() {
            let media = self.dom.elements_by_tag(p, &["img", "embed", "object", "iframe"]).len();
            if media == 0 && !has_text(&self.dom, p) {
                self.dom.detach(p);
            }
        }
        for br in self.dom.elements_by_tag(article, &["br"]) {
            let next = self.dom.next_sibling(br).and_then(|n| next_significant(&self.dom, n));
            if next.is_some_and(|n| self.dom.is(n, "p")) {
                self.dom.detach(br);
            }
        }
        // Single-cell tables are layout: keep the cell's content.
        for table in self.dom.elements_by_tag(article, &["table"]) {
            let tbody = if has_single_tag_inside(&self.dom, table, "tbody") {
                self.dom.first_element_child(table).unwrap_or(table)
            } else {
                table
            };
            if !has_single_tag_inside(&self.dom, tbody, "tr") {
                continue;
            }
            let Some(row) = self.dom.first_element_child(tbody) else { continue };
            if !has_single_tag_inside(&self.dom, row, "td") {
                continue;
            }
            let Some(cell) = self.dom.first_element_child(row) else { continue };
            let phrasing = self.dom.children(cell).all(|c| is_phrasing_content(&self.dom, c));
            self.dom.rename(cell, if phrasing { "p" } else { "div" });
            if self.dom.parent(table).is_some() {
                self.dom.replace(table, cell);
            }
        }
    }

    fn mark_data_tables(&mut self, root: NodeId) {
        for table in self.dom.elements_by_tag(root, &["table"]) {
            let is_data = is_data_table(&self.dom, table);
            if self.data_table.len() <= table {
                self.data_table.resize(self.dom.len().max(table + 1), false);
            }
            self.data_table[table] = is_data;
        }
    }

    /// Removes the elements with this tag that look like boilerplate: few commas and
    /// many links, images, list items, inputs or embeds for their text.
    fn clean_conditionally(&mut self, root: NodeId, tag: &str) {
        if !self.flag(FLAG_CLEAN_CONDITIONALLY) {
            return;
        }
        for n in self.dom.elements_by_tag(root, &[tag]).into_iter().rev() {
            if self.dom.parent(n).is_some() && self.should_clean(n, tag) {
                self.dom.detach(n);
            }
        }
    }

    fn should_clean(&self, n: NodeId, tag: &str) -> bool {
        let dom = &self.dom;
        let text_len = inner_len(dom, n);
        let mut is_list = tag == "ul" || tag == "ol";
        if !is_list {
            let list_len: usize = dom.elements_by_tag(n, &["ul", "ol"]).iter().map(|&l| inner_len(dom, l)).sum();
            is_list = text_len > 0 && list_len as f64 / text_len as f64 > 0.9;
        }
        if tag == "table" && self.is_data_table(n) {
            return false;
        }
        if dom.ancestors(n).any(|a| dom.is(a, "table") && self.is_data_table(a)) {
            return false;
        }
        if has_ancestor_tag(dom, n, "code", 3) {
            return false;
        }
        if dom.elements_by_tag(n, &["table"]).iter().any(|&t| self.is_data_table(t)) {
            return false;
        }
        let weight = self.class_weight(n);
        if weight < 0.0 {
            return true;
        }
        /// Text with this many commas is prose, whatever else it holds.
        const PROSE_COMMAS: usize = 10;
        let commas: usize = dom.descendants(n).filter_map(|d| dom.text(d)).map(patterns::comma_count_ascii).sum();
        if commas >= PROSE_COMMAS {
            return false;
        }
        let p = dom.count_tag(n, "p") as f64;
        let img = dom.count_tag(n, "img") as f64;
        let li = dom.count_tag(n, "li") as f64 - 100.0;
        let input = dom.count_tag(n, "input") as f64;
        let heading_density = text_density(dom, n, &["h1", "h2", "h3", "h4", "h5", "h6"]);
        let mut embeds = 0;
        for e in dom.elements_by_tag(n, &["object", "embed", "iframe"]) {
            if dom.attrs(e).iter().any(|(_, v)| patterns::allowed_video(v)) {
                return false;
            }
            if dom.is(e, "object") && patterns::allowed_video(&dom.html(e, false)) {
                return false;
            }
            embeds += 1;
        }
        /// Longer than any advertisement or loading label.
        const MAX_LABEL: usize = 16;
        if text_len <= MAX_LABEL {
            let text = inner_text(dom, n, true);
            if patterns::ad_words(&text) || patterns::loading_words(&text) {
                return true;
            }
        }
        let density = link_density(dom, n);
        let textish = ["span", "li", "td", "blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul"];
        let textish_density = text_density(dom, n, &textish);
        let figure_child = has_ancestor_tag(dom, n, "figure", 3);
        let mut remove = (!figure_child && img > 1.0 && p / img < 0.5)
            || (!is_list && li > p)
            || (input > (p / 3.0).floor())
            || (!is_list
                && !figure_child
                && heading_density < 0.9
                && text_len < 25
                && (img == 0.0 || img > 2.0)
                && density > 0.0)
            || (!is_list && weight < 25.0 && density > 0.2)
            || (weight >= 25.0 && density > 0.5)
            || ((embeds == 1 && text_len < 75) || embeds > 1)
            || (img == 0.0 && textish_density == 0.0);
        // A list of image links (a gallery) stays.
        if is_list && remove {
            if dom.element_children(n).any(|c| dom.element_children(c).count() > 1) {
                return remove;
            }
            if img == dom.count_tag(n, "li") as f64 {
                remove = false;
            }
        }
        remove
    }

    fn post_process(&mut self, article: NodeId) {
        if let Some(url) = &self.opts.url {
            crate::urls::fix_relative_uris(&mut self.dom, article, url);
        }
        simplify_nested_elements(&mut self.dom, article);
        if !self.opts.keep_classes {
            clean_classes(&mut self.dom, article, &self.opts.classes_to_preserve);
        }
    }
}

fn is_valid_byline(text: &str) -> bool {
    /// Bylines are short; a long "author" block is a bio.
    const MAX_BYLINE: usize = 100;
    let t = trim(text);
    !t.is_empty() && js_len(t) < MAX_BYLINE
}

/// JavaScript's String.prototype.trim (whitespace, line terminators and the BOM).
pub(crate) fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// textContent trimmed, with whitespace runs collapsed when `normalize`.
fn inner_text(dom: &Dom, n: NodeId, normalize: bool) -> String {
    let t = dom.text_content(n);
    let t = trim(&t);
    if normalize { normalize_spaces(t) } else { t.to_string() }
}

/// `js_len(inner_text(dom, n, true))` without building the text.
fn inner_len(dom: &Dom, n: NodeId) -> usize {
    match dom.text(n) {
        Some(t) => normalized_len(std::iter::once(t)),
        None => normalized_len(dom.descendants(n).filter_map(|d| dom.text(d))),
    }
}

/// Whether any text below is more than whitespace.
fn has_text(dom: &Dom, n: NodeId) -> bool {
    dom.descendants(n).filter_map(|d| dom.text(d)).any(|t| !trim(t).is_empty())
}

fn match_string(dom: &Dom, n: NodeId) -> String {
    format!("{} {}", dom.attr(n, "class").unwrap_or(""), dom.attr(n, "id").unwrap_or(""))
}

/// The next element in document order; with `skip_children`, the next one after the
/// node's subtree.
fn next_element(dom: &Dom, n: NodeId, skip_children: bool) -> Option<NodeId> {
    if !skip_children && let Some(c) = dom.first_element_child(n) {
        return Some(c);
    }
    let mut x = n;
    loop {
        if let Some(s) = dom.next_element_sibling(x) {
            return Some(s);
        }
        x = dom.parent(x)?;
    }
}

/// Skips whitespace-only text (and comments) to the next significant node.
fn next_significant(dom: &Dom, n: NodeId) -> Option<NodeId> {
    let mut x = Some(n);
    while let Some(c) = x
        && !dom.is_element(c)
        && trim(&dom.text_content(c)).is_empty()
    {
        x = dom.next_sibling(c);
    }
    x
}

fn link_density(dom: &Dom, n: NodeId) -> f64 {
    let len = inner_len(dom, n);
    if len == 0 {
        return 0.0;
    }
    /// In-page anchors (footnotes, tables of contents) count less than real links.
    const HASH_LINK_WEIGHT: f64 = 0.3;
    let links: f64 = dom
        .elements_by_tag(n, &["a"])
        .into_iter()
        .map(|a| {
            let hash = dom.attr(a, "href").is_some_and(|h| h.len() > 1 && h.starts_with('#'));
            let w = if hash { HASH_LINK_WEIGHT } else { 1.0 };
            inner_len(dom, a) as f64 * w
        })
        .sum();
    links / len as f64
}

/// Share of the node's text inside descendants with these tags.
fn text_density(dom: &Dom, n: NodeId, tags: &[&str]) -> f64 {
    let len = inner_len(dom, n);
    if len == 0 {
        return 0.0;
    }
    let inner: usize = dom.elements_by_tag(n, tags).iter().map(|&c| inner_len(dom, c)).sum();
    inner as f64 / len as f64
}

fn has_ancestor_tag(dom: &Dom, n: NodeId, tag: &str, max_depth: usize) -> bool {
    dom.ancestors(n).take(max_depth + 1).any(|a| dom.is(a, tag))
}

/// Inline style and attributes that hide an element.
fn style_hides(dom: &Dom, n: NodeId, with_visibility: bool) -> bool {
    let Some(style) = dom.attr(n, "style") else { return false };
    style.split(';').any(|decl| {
        let Some((k, v)) = decl.split_once(':') else { return false };
        let k = k.trim().to_ascii_lowercase();
        let v = v.trim().trim_end_matches("!important").trim().to_ascii_lowercase();
        (k == "display" && v == "none") || (with_visibility && k == "visibility" && v == "hidden")
    })
}

fn aria_hidden(dom: &Dom, n: NodeId) -> bool {
    dom.attr(n, "aria-hidden") == Some("true") && !dom.attr(n, "class").is_some_and(|c| c.contains("fallback-image"))
}

fn is_probably_visible(dom: &Dom, n: NodeId) -> bool {
    !style_hides(dom, n, true) && !dom.has_attr(n, "hidden") && !aria_hidden(dom, n)
}

fn is_node_visible(dom: &Dom, n: NodeId) -> bool {
    !style_hides(dom, n, false) && !dom.has_attr(n, "hidden") && !aria_hidden(dom, n)
}

fn is_element_without_content(dom: &Dom, n: NodeId) -> bool {
    if has_text(dom, n) {
        return false;
    }
    let children = dom.element_children(n).count();
    children == 0 || children == dom.count_tag(n, "br") + dom.count_tag(n, "hr")
}

/// One child element with this tag and no text of its own.
fn has_single_tag_inside(dom: &Dom, n: NodeId, tag: &str) -> bool {
    let mut kids = dom.element_children(n);
    let (Some(only), None) = (kids.next(), kids.next()) else { return false };
    dom.is(only, tag)
        && !dom.children(n).any(|c| dom.text(c).is_some_and(|t| t.chars().last().is_some_and(|ch| !ch.is_whitespace())))
}

fn has_child_block_element(dom: &Dom, n: NodeId) -> bool {
    dom.descendants(n).any(|c| dom.tag(c).is_some_and(|t| DIV_TO_P_ELEMS.contains(&t)))
}

fn is_phrasing_content(dom: &Dom, n: NodeId) -> bool {
    match dom.tag(n) {
        None => dom.text(n).is_some(),
        Some(t) if PHRASING_ELEMS.contains(&t) => true,
        Some("a" | "del" | "ins") => dom.children(n).all(|c| is_phrasing_content(dom, c)),
        Some(_) => false,
    }
}

fn is_whitespace(dom: &Dom, n: NodeId) -> bool {
    match dom.text(n) {
        Some(t) => trim(t).is_empty(),
        None => dom.is(n, "br"),
    }
}

fn ends_sentence(text: &str) -> bool {
    text.match_indices('.').any(|(i, _)| matches!(text[i + 1..].chars().next(), None | Some(' ')))
}

/// Share of B's words that A lacks, inverted: 1 when every word of B is in A.
pub(crate) fn text_similarity(a: &str, b: &str) -> f64 {
    let a = a.to_lowercase();
    let b = b.to_lowercase();
    let ta: Vec<&str> = patterns::word_tokens(&a).collect();
    let tb: Vec<&str> = patterns::word_tokens(&b).collect();
    if ta.is_empty() || tb.is_empty() {
        return 0.0;
    }
    let uniq: Vec<&str> = tb.iter().copied().filter(|t| !ta.contains(t)).collect();
    let joined = |v: &[&str]| v.iter().map(|t| js_len(t)).sum::<usize>() + v.len().saturating_sub(1);
    1.0 - joined(&uniq) as f64 / joined(&tb) as f64
}

fn remove_all(dom: &mut Dom, tags: &[&str]) {
    for n in dom.elements_by_tag(DOCUMENT, tags).into_iter().rev() {
        dom.detach(n);
    }
}

/// Styles out, `<br>` runs to paragraphs, `<font>` to `<span>`.
fn prep_document(dom: &mut Dom) {
    remove_all(dom, &["style"]);
    if let Some(body) = dom.body() {
        replace_brs(dom, body);
    }
    for f in dom.elements_by_tag(DOCUMENT, &["font"]) {
        dom.rename(f, "span");
    }
}

/// Two or more `<br>` in a row end a paragraph: the run becomes a `<p>` holding the
/// phrasing content that follows.
fn replace_brs(dom: &mut Dom, root: NodeId) {
    for br in dom.elements_by_tag(root, &["br"]) {
        if dom.parent(br).is_none() {
            continue;
        }
        let mut replaced = false;
        let mut next = dom.next_sibling(br).and_then(|n| next_significant(dom, n));
        while let Some(n) = next.filter(|&n| dom.is(n, "br")) {
            replaced = true;
            let after = dom.next_sibling(n);
            dom.detach(n);
            next = after.and_then(|a| next_significant(dom, a));
        }
        if !replaced {
            continue;
        }
        let p = dom.create_element("p");
        dom.replace(br, p);
        let mut next = dom.next_sibling(p);
        while let Some(n) = next {
            if dom.is(n, "br")
                && let Some(after) = dom.next_sibling(n).and_then(|a| next_significant(dom, a))
                && dom.is(after, "br")
            {
                break;
            }
            if !is_phrasing_content(dom, n) {
                break;
            }
            next = dom.next_sibling(n);
            dom.append(p, n);
        }
        while let Some(last) = dom.last_child(p)
            && is_whitespace(dom, last)
        {
            dom.detach(last);
        }
        if let Some(parent) = dom.parent(p).filter(|&pp| dom.is(pp, "p")) {
            dom.rename(parent, "div");
        }
    }
}

/// Images inside `<noscript>` replace the lazy placeholders before them; placeholder
/// images with no source at all are dropped.
fn unwrap_noscript_images(dom: &mut Dom) {
    for img in dom.elements_by_tag(DOCUMENT, &["img"]) {
        let keep = dom.attrs(img).iter().any(|(n, v)| {
            matches!(&*n.local, "src" | "srcset" | "data-src" | "data-srcset") || patterns::image_extension(v)
        });
        if !keep {
            dom.detach(img);
        }
    }
    for ns in dom.elements_by_tag(DOCUMENT, &["noscript"]) {
        if dom.parent(ns).is_none() || !is_single_image(dom, ns) {
            continue;
        }
        let Some(prev) = dom.prev_element_sibling(ns) else { continue };
        if !is_single_image(dom, prev) {
            continue;
        }
        let prev_img = if dom.is(prev, "img") { Some(prev) } else { dom.find(prev, "img") };
        let (Some(prev_img), Some(new_img)) = (prev_img, dom.find(ns, "img")) else { continue };
        let old: Vec<(String, String)> =
            dom.attrs(prev_img).iter().map(|(n, v)| (n.local.to_string(), v.clone())).collect();
        for (name, value) in old {
            if value.is_empty() {
                continue;
            }
            if name == "src" || name == "srcset" || patterns::image_extension(&value) {
                if dom.attr(new_img, &name) == Some(&*value) {
                    continue;
                }
                let name = if dom.has_attr(new_img, &name) { format!("data-old-{name}") } else { name };
                dom.set_attr(new_img, &name, &value);
            }
        }
        let Some(replacement) = dom.first_element_child(ns) else { continue };
        dom.replace(prev, replacement);
    }
}

fn is_single_image(dom: &Dom, n: NodeId) -> bool {
    let mut x = n;
    loop {
        if dom.is(x, "img") {
            return true;
        }
        let mut kids = dom.element_children(x);
        match (kids.next(), kids.next()) {
            (Some(only), None) if !has_text(dom, x) => x = only,
            _ => return false,
        }
    }
}

fn clean_styles(dom: &mut Dom, root: NodeId) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if dom.is(n, "svg") {
            continue;
        }
        for a in PRESENTATIONAL_ATTRIBUTES {
            dom.remove_attr(n, a);
        }
        if dom.tag(n).is_some_and(|t| DEPRECATED_SIZE_ATTRIBUTE_ELEMS.contains(&t)) {
            dom.remove_attr(n, "width");
            dom.remove_attr(n, "height");
        }
        stack.extend(dom.element_children(n));
    }
}

/// Whether a table holds data (kept) rather than layout (cleaned like any block).
fn is_data_table(dom: &Dom, table: NodeId) -> bool {
    if dom.attr(table, "role") == Some("presentation") || dom.attr(table, "datatable") == Some("0") {
        return false;
    }
    if dom.has_attr(table, "summary") {
        return true;
    }
    if dom.element_children(table).any(|c| dom.is(c, "caption") && dom.first_child(c).is_some()) {
        return true;
    }
    if !dom.elements_by_tag(table, &["col", "colgroup", "tfoot", "thead", "th"]).is_empty() {
        return true;
    }
    if dom.find(table, "table").is_some() {
        return false;
    }
    let (rows, cols) = row_and_column_count(dom, table);
    if rows == 1 || cols == 1 {
        return false;
    }
    /// Tables this big are data whatever their markup.
    const DATA_ROWS: usize = 10;
    const DATA_COLUMNS: usize = 4;
    rows >= DATA_ROWS || cols > DATA_COLUMNS || rows * cols > 10
}

fn row_and_column_count(dom: &Dom, table: NodeId) -> (usize, usize) {
    let span = |n: NodeId, a: &str| dom.attr(n, a).and_then(|v| v.trim().parse::<usize>().ok()).filter(|&v| v > 0);
    let mut rows = 0;
    let mut cols = 0;
    for tr in dom.elements_by_tag(table, &["tr"]) {
        rows += span(tr, "rowspan").unwrap_or(1);
        let here: usize = dom.elements_by_tag(tr, &["td"]).iter().map(|&td| span(td, "colspan").unwrap_or(1)).sum();
        cols = cols.max(here);
    }
    (rows, cols)
}

/// Lazy-loaded images: the real address moves from data-* attributes into src/srcset,
/// and tiny base64 placeholders go.
fn fix_lazy_images(dom: &mut Dom, root: NodeId) {
    for el in dom.elements_by_tag(root, &["img", "picture", "figure"]) {
        if let Some(src) = dom.attr(el, "src").map(str::to_string)
            && let Some(mime) = patterns::base64_data_url(&src)
        {
            if mime == "image/svg+xml" {
                continue;
            }
            let other_image = dom.attrs(el).iter().any(|(n, v)| &*n.local != "src" && patterns::image_extension(v));
            if other_image {
                /// A base64 payload this short is a placeholder pixel.
                const PLACEHOLDER_B64: usize = 133;
                let lower = src.to_ascii_lowercase();
                let start = lower.find("base64").map_or(0, |i| i + 7);
                if src.len().saturating_sub(start) < PLACEHOLDER_B64 {
                    dom.remove_attr(el, "src");
                }
            }
        }
        let has_src = dom.attr(el, "src").is_some_and(|s| !s.is_empty())
            || dom.attr(el, "srcset").is_some_and(|s| !s.is_empty() && s != "null");
        if has_src && !dom.attr(el, "class").is_some_and(|c| c.to_lowercase().contains("lazy")) {
            continue;
        }
        let attrs: Vec<(String, String)> = dom
            .attrs(el)
            .iter()
            .filter(|(n, _)| !matches!(&*n.local, "src" | "srcset" | "alt"))
            .map(|(n, v)| (n.local.to_string(), v.clone()))
            .collect();
        for (_, value) in attrs {
            let copy_to = if patterns::srcset_like(&value) {
                "srcset"
            } else if patterns::single_image_url(&value) {
                "src"
            } else {
                continue;
            };
            match dom.tag(el) {
                Some("img" | "picture") => dom.set_attr(el, copy_to, &value),
                Some("figure") if dom.elements_by_tag(el, &["img", "picture"]).is_empty() => {
                    let img = dom.create_element("img");
                    dom.set_attr(img, copy_to, &value);
                    dom.append(el, img);
                }
                _ => {}
            }
        }
    }
}

/// Drops every element with this tag, except embeds of known video players.
fn clean(dom: &mut Dom, root: NodeId, tag: &str) {
    let embed = matches!(tag, "object" | "embed" | "iframe");
    for n in dom.elements_by_tag(root, &[tag]).into_iter().rev() {
        if dom.parent(n).is_none() {
            continue;
        }
        if embed
            && (dom.attrs(n).iter().any(|(_, v)| patterns::allowed_video(v))
                || (tag == "object" && patterns::allowed_video(&dom.html(n, false))))
        {
            continue;
        }
        dom.detach(n);
    }
}

/// Empty wrappers go and a div or section wrapping a single div or section is replaced
/// by its child (which takes the wrapper's attributes).
fn simplify_nested_elements(dom: &mut Dom, root: NodeId) {
    let mut node = Some(root);
    while let Some(n) = node {
        let wrapper = matches!(dom.tag(n), Some("div" | "section"))
            && n != root
            && dom.parent(n).is_some()
            && !dom.attr(n, "id").is_some_and(|i| i.starts_with("readability"));
        if wrapper {
            if is_element_without_content(dom, n) {
                let next = next_element(dom, n, true);
                dom.detach(n);
                node = next.filter(|&x| is_within(dom, x, root));
                continue;
            }
            if (has_single_tag_inside(dom, n, "div") || has_single_tag_inside(dom, n, "section"))
                && let Some(child) = dom.first_element_child(n)
            {
                let attrs: Vec<(String, String)> =
                    dom.attrs(n).iter().map(|(k, v)| (k.local.to_string(), v.clone())).collect();
                for (k, v) in attrs {
                    dom.set_attr(child, &k, &v);
                }
                dom.replace(n, child);
                node = Some(child);
                continue;
            }
        }
        node = next_element(dom, n, false).filter(|&x| is_within(dom, x, root));
    }
}

fn is_within(dom: &Dom, n: NodeId, root: NodeId) -> bool {
    n == root || dom.ancestors(n).any(|a| a == root)
}

fn clean_classes(dom: &mut Dom, root: NodeId, keep: &[String]) {
    for n in std::iter::once(root).chain(dom.descendants(root).collect::<Vec<_>>()) {
        let Some(class) = dom.attr(n, "class") else { continue };
        let kept: Vec<&str> =
            class.split_whitespace().filter(|c| *c == "page" || keep.iter().any(|k| k == c)).collect();
        if kept.is_empty() {
            dom.remove_attr(n, "class");
        } else {
            let kept = kept.join(" ");
            dom.set_attr(n, "class", &kept);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn article(html: &str) -> Article {
        extract(Dom::parse(html), &Options::default()).expect("an article")
    }

    fn para(words: usize, tag: &str) -> String {
        let body: Vec<String> = (0..words).map(|i| format!("word{i}")).collect();
        format!("<p>{}, and more, {tag}.</p>", body.join(" "))
    }

    #[test]
    fn keeps_article_and_drops_navigation() {
        let html = format!(
            "<html lang=en><head><title>A long story about things - Site</title></head><body>\
             <div class=sidebar><a href=/a>Home</a> <a href=/b>About</a></div>\
             <div class=article-body>{}{}{}</div>\
             <div class=comments><p>first comment that is rather long but is not article text at all</p></div>\
             </body></html>",
            para(60, "one"),
            para(60, "two"),
            para(60, "three")
        );
        let a = article(&html);
        let text = a.text();
        assert!(text.contains("one.") && text.contains("three."), "{text}");
        assert!(!text.contains("Home") && !text.contains("comment"), "{text}");
        assert_eq!(a.meta.lang.as_deref(), Some("en"));
        assert_eq!(a.meta.title.as_deref(), Some("A long story about things"));
        assert!(a.html().starts_with(r#"<div id="readability-page-1" class="page">"#), "{}", a.html());
    }

    #[test]
    fn byline_is_taken_and_removed() {
        let html = format!("<body><div><p class=byline>By Jane Doe</p>{}{}</div></body>", para(80, "x"), para(80, "y"));
        let a = article(&html);
        assert_eq!(a.meta.byline.as_deref(), Some("By Jane Doe"));
        assert!(!a.text().contains("Jane"));
    }

    #[test]
    fn br_runs_become_paragraphs() {
        let mut dom = Dom::parse("<div>foo<br>bar<br> <br><br>abc</div>");
        prep_document(&mut dom);
        let div = dom.find(DOCUMENT, "div").unwrap();
        assert_eq!(dom.html(div, false), "foo<br>bar<p> abc</p>");
    }

    #[test]
    fn short_pages_retry_and_keep_best_attempt() {
        let a = article("<body><div class=comment><p>Just a short note, nothing more.</p></div></body>");
        assert!(a.text().contains("short note"), "{}", a.text());
    }

    #[test]
    fn readerable_needs_enough_visible_prose() {
        let long = "x".repeat(400);
        assert!(is_probably_readerable(&Dom::parse(&format!("<p>{long}</p><p>{long}</p>"))));
        assert!(!is_probably_readerable(&Dom::parse("<p>short</p>")));
        assert!(!is_probably_readerable(&Dom::parse(&format!("<p style='display:none'>{long}{long}</p>"))));
        assert!(!is_probably_readerable(&Dom::parse(&format!("<ul><li><p>{long}{long}</p></li></ul>"))));
    }

    #[test]
    fn similarity_counts_missing_words() {
        assert_eq!(text_similarity("Hello world", "hello WORLD"), 1.0);
        assert_eq!(text_similarity("", "x"), 0.0);
        assert!((text_similarity("a b", "a cc") - (1.0 - 2.0 / 4.0)).abs() < 1e-9);
    }

    #[test]
    fn data_tables_survive_cleaning() {
        let rows: String = (0..12).map(|i| format!("<tr><td>{i}</td><td>v{i}</td><td>w</td></tr>")).collect();
        let html = format!("<body><div>{}<table>{rows}</table>{}</div></body>", para(80, "a"), para(80, "b"));
        let a = article(&html);
        assert!(a.html().contains("<table>"), "{}", a.html());
    }
}
