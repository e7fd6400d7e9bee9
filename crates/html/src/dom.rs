//! An arena DOM built by html5ever: nodes are indices, edits (detach, move, rename,
//! attributes) are in place, and text and HTML come back out without recursion limits.
//!
//! Parsing runs html5ever's tokenizer through a nesting guard before its tree builder: the
//! tree builder scans its stack of open elements for most start tags, so a document nested
//! 100,000 deep would take quadratic time. Start tags deeper than [`MAX_NESTING`] are dropped
//! with their matching end tags; their text stays.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io;

use html5ever::buffer_queue::BufferQueue;
use html5ever::interface::{ElemName, ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::serialize::{Serialize, SerializeOpts, Serializer, TraversalScope};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use html5ever::tree_builder::{Tracer, TreeBuilder, TreeBuilderOpts};
use html5ever::{Attribute, LocalName, Namespace, QualName, TokenizerResult, local_name, ns};

/// Deepest element nesting kept from the source. Browsers cap the tree near 512 as well;
/// no real page nests deeper, and it bounds every walk over the tree.
pub const MAX_NESTING: usize = 512;

pub type NodeId = usize;

/// The document node's id.
pub const DOCUMENT: NodeId = 0;

#[derive(Debug, Clone)]
pub enum Data {
    Document,
    Doctype(String),
    Text(String),
    Comment(String),
    Element(Element),
    ProcessingInstruction,
}

#[derive(Debug, Clone)]
pub struct Element {
    pub name: QualName,
    pub attrs: Vec<(QualName, String)>,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub parent: Option<NodeId>,
    pub prev: Option<NodeId>,
    pub next: Option<NodeId>,
    pub first: Option<NodeId>,
    pub last: Option<NodeId>,
    pub data: Data,
}

impl Node {
    fn new(data: Data) -> Node {
        Node { parent: None, prev: None, next: None, first: None, last: None, data }
    }
}

#[derive(Debug, Clone)]
pub struct Dom {
    nodes: Vec<Node>,
}

impl Dom {
    /// Parses a whole document the way a browser with scripting off does (so `<noscript>`
    /// content is markup, as in jsdom).
    pub fn parse(html: &str) -> Dom {
        let sink = Sink::default();
        let opts = TreeBuilderOpts { scripting_enabled: false, ..Default::default() };
        let guard = NestingGuard { inner: TreeBuilder::new(sink, opts), dropped: RefCell::default() };
        let tokenizer = Tokenizer::new(guard, TokenizerOpts::default());
        let input = BufferQueue::default();
        input.push_back(StrTendril::from_slice(html));
        // Scripts do not run and the text is already decoded: go on past script and
        // encoding stops.
        while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
        tokenizer.end();
        Dom { nodes: tokenizer.sink.inner.sink.nodes.into_inner() }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    pub fn data(&self, id: NodeId) -> &Data {
        &self.nodes[id].data
    }

    pub fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id].data {
            Data::Element(e) => Some(e),
            _ => None,
        }
    }

    /// The element's local name (lowercase for HTML), or None for other nodes.
    pub fn tag(&self, id: NodeId) -> Option<&str> {
        self.element(id).map(|e| &*e.name.local)
    }

    pub fn is(&self, id: NodeId, tag: &str) -> bool {
        self.tag(id) == Some(tag)
    }

    pub fn is_element(&self, id: NodeId) -> bool {
        matches!(self.nodes[id].data, Data::Element(_))
    }

    pub fn text(&self, id: NodeId) -> Option<&str> {
        match &self.nodes[id].data {
            Data::Text(t) => Some(t),
            _ => None,
        }
    }

    pub fn attr(&self, id: NodeId, name: &str) -> Option<&str> {
        self.element(id)?.attrs.iter().find(|(n, _)| &*n.local == name).map(|(_, v)| v.as_str())
    }

    pub fn has_attr(&self, id: NodeId, name: &str) -> bool {
        self.attr(id, name).is_some()
    }

    pub fn attrs(&self, id: NodeId) -> &[(QualName, String)] {
        self.element(id).map_or(&[], |e| &e.attrs)
    }

    pub fn set_attr(&mut self, id: NodeId, name: &str, value: &str) {
        if let Data::Element(e) = &mut self.nodes[id].data {
            match e.attrs.iter_mut().find(|(n, _)| &*n.local == name) {
                Some((_, v)) => *v = value.to_string(),
                None => e.attrs.push((QualName::new(None, ns!(), LocalName::from(name)), value.to_string())),
            }
        }
    }

    pub fn remove_attr(&mut self, id: NodeId, name: &str) {
        if let Data::Element(e) = &mut self.nodes[id].data {
            e.attrs.retain(|(n, _)| &*n.local != name);
        }
    }

    /// Changes an element's tag name, keeping its attributes and children.
    pub fn rename(&mut self, id: NodeId, tag: &str) {
        if let Data::Element(e) = &mut self.nodes[id].data {
            e.name = QualName::new(None, ns!(html), LocalName::from(tag));
        }
    }

    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id].parent
    }

    pub fn first_child(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id].first
    }

    pub fn last_child(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id].last
    }

    pub fn next_sibling(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id].next
    }

    pub fn prev_sibling(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id].prev
    }

    pub fn children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.nodes[id].first, |&c| self.nodes[c].next)
    }

    pub fn element_children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.children(id).filter(|&c| self.is_element(c))
    }

    pub fn first_element_child(&self, id: NodeId) -> Option<NodeId> {
        self.element_children(id).next()
    }

    pub fn next_element_sibling(&self, id: NodeId) -> Option<NodeId> {
        std::iter::successors(self.nodes[id].next, |&c| self.nodes[c].next).find(|&c| self.is_element(c))
    }

    pub fn prev_element_sibling(&self, id: NodeId) -> Option<NodeId> {
        std::iter::successors(self.nodes[id].prev, |&c| self.nodes[c].prev).find(|&c| self.is_element(c))
    }

    /// The node after `id` in document order within `root`'s subtree, descending into
    /// children unless `skip_children`.
    pub fn following(&self, id: NodeId, root: NodeId, skip_children: bool) -> Option<NodeId> {
        if !skip_children && let Some(c) = self.nodes[id].first {
            return Some(c);
        }
        let mut n = id;
        loop {
            if n == root {
                return None;
            }
            if let Some(s) = self.nodes[n].next {
                return Some(s);
            }
            n = self.nodes[n].parent?;
        }
    }

    /// All nodes below `root` in document order (not `root` itself).
    pub fn descendants(&self, root: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.following(root, root, false), move |&n| self.following(n, root, false))
    }

    /// Descendant elements with one of the tags, in document order.
    pub fn elements_by_tag(&self, root: NodeId, tags: &[&str]) -> Vec<NodeId> {
        self.descendants(root).filter(|&n| self.tag(n).is_some_and(|t| tags.contains(&t))).collect()
    }

    pub fn count_tag(&self, root: NodeId, tag: &str) -> usize {
        self.descendants(root).filter(|&n| self.is(n, tag)).count()
    }

    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.nodes[id].parent, |&p| self.nodes[p].parent)
    }

    /// Concatenated text of every text node below (the DOM's textContent).
    pub fn text_content(&self, id: NodeId) -> String {
        if let Data::Text(t) = &self.nodes[id].data {
            return t.clone();
        }
        let mut out = String::new();
        for n in self.descendants(id) {
            if let Data::Text(t) = &self.nodes[n].data {
                out.push_str(t);
            }
        }
        out
    }

    /// The first element with this tag in the document.
    pub fn find(&self, root: NodeId, tag: &str) -> Option<NodeId> {
        self.descendants(root).find(|&n| self.is(n, tag))
    }

    pub fn document_element(&self) -> Option<NodeId> {
        self.element_children(DOCUMENT).next()
    }

    pub fn body(&self) -> Option<NodeId> {
        self.document_element().and_then(|h| self.element_children(h).find(|&c| self.is(c, "body")))
    }

    pub fn create_element(&mut self, tag: &str) -> NodeId {
        let name = QualName::new(None, ns!(html), LocalName::from(tag));
        self.push(Data::Element(Element { name, attrs: Vec::new() }))
    }

    pub fn create_text(&mut self, text: &str) -> NodeId {
        self.push(Data::Text(text.to_string()))
    }

    fn push(&mut self, data: Data) -> NodeId {
        self.nodes.push(Node::new(data));
        self.nodes.len() - 1
    }

    /// Takes a node out of its parent (it keeps its own subtree).
    pub fn detach(&mut self, id: NodeId) {
        let Node { parent, prev, next, .. } = self.nodes[id];
        let Some(parent) = parent else { return };
        match prev {
            Some(p) => self.nodes[p].next = next,
            None => self.nodes[parent].first = next,
        }
        match next {
            Some(n) => self.nodes[n].prev = prev,
            None => self.nodes[parent].last = prev,
        }
        let node = &mut self.nodes[id];
        node.parent = None;
        node.prev = None;
        node.next = None;
    }

    /// Moves `child` to the end of `parent`'s children.
    pub fn append(&mut self, parent: NodeId, child: NodeId) {
        self.detach(child);
        let last = self.nodes[parent].last;
        self.nodes[child].parent = Some(parent);
        self.nodes[child].prev = last;
        match last {
            Some(l) => self.nodes[l].next = Some(child),
            None => self.nodes[parent].first = Some(child),
        }
        self.nodes[parent].last = Some(child);
    }

    /// Moves `new` just before `sibling`.
    pub fn insert_before(&mut self, sibling: NodeId, new: NodeId) {
        self.detach(new);
        let Some(parent) = self.nodes[sibling].parent else { return };
        let prev = self.nodes[sibling].prev;
        self.nodes[new].parent = Some(parent);
        self.nodes[new].prev = prev;
        self.nodes[new].next = Some(sibling);
        self.nodes[sibling].prev = Some(new);
        match prev {
            Some(p) => self.nodes[p].next = Some(new),
            None => self.nodes[parent].first = Some(new),
        }
    }

    /// Puts `new` where `old` is and detaches `old`.
    pub fn replace(&mut self, old: NodeId, new: NodeId) {
        if old != new {
            self.insert_before(old, new);
            self.detach(old);
        }
    }

    /// Moves every child of `from` to the end of `to`.
    pub fn move_children(&mut self, from: NodeId, to: NodeId) {
        while let Some(c) = self.nodes[from].first {
            self.append(to, c);
        }
    }

    /// A detached copy of the subtree at `id`.
    pub fn deep_clone(&mut self, id: NodeId) -> NodeId {
        let copy = self.push(self.nodes[id].data.clone());
        let mut stack = vec![(id, copy)];
        while let Some((src, dst)) = stack.pop() {
            let kids: Vec<NodeId> = self.children(src).collect();
            for k in kids {
                let c = self.push(self.nodes[k].data.clone());
                self.append(dst, c);
                stack.push((k, c));
            }
        }
        copy
    }

    /// The document's title as browsers give it: the first `<title>`'s text with
    /// whitespace stripped and collapsed.
    pub fn title(&self) -> Option<String> {
        let t = self.find(DOCUMENT, "title")?;
        Some(self.text_content(t).split_ascii_whitespace().collect::<Vec<_>>().join(" "))
    }

    /// Serialized HTML of the node (`outer`) or of its children.
    pub fn html(&self, id: NodeId, outer: bool) -> String {
        let scope = if outer { TraversalScope::IncludeNode } else { TraversalScope::ChildrenOnly(None) };
        let mut out = Vec::new();
        let opts = SerializeOpts { traversal_scope: scope, ..Default::default() };
        // Writing into a Vec cannot fail.
        let _ = html5ever::serialize(&mut out, &NodeRef { dom: self, id }, opts);
        String::from_utf8(out).unwrap_or_default()
    }
}

struct NodeRef<'a> {
    dom: &'a Dom,
    id: NodeId,
}

impl Serialize for NodeRef<'_> {
    fn serialize<S: Serializer>(&self, s: &mut S, scope: TraversalScope) -> io::Result<()> {
        let dom = self.dom;
        let root = self.id;
        let include_root = scope == TraversalScope::IncludeNode;
        let start = |s: &mut S, id: NodeId| -> io::Result<()> {
            match dom.data(id) {
                Data::Element(e) => s.start_elem(e.name.clone(), e.attrs.iter().map(|(n, v)| (n, v.as_str()))),
                Data::Text(t) => s.write_text(t),
                Data::Comment(c) => s.write_comment(c),
                Data::Doctype(d) => s.write_doctype(d),
                Data::Document | Data::ProcessingInstruction => Ok(()),
            }
        };
        let end = |s: &mut S, id: NodeId| -> io::Result<()> {
            match dom.element(id) {
                Some(e) => s.end_elem(e.name.clone()),
                None => Ok(()),
            }
        };
        if include_root {
            start(s, root)?;
        }
        // Iterative walk: open on the way down, close on the way back up.
        let mut n = dom.first_child(root);
        while let Some(id) = n {
            start(s, id)?;
            if let Some(c) = dom.first_child(id) {
                n = Some(c);
                continue;
            }
            end(s, id)?;
            let mut up = id;
            n = loop {
                if let Some(next) = dom.next_sibling(up) {
                    break Some(next);
                }
                match dom.parent(up) {
                    Some(p) if p != root => {
                        end(s, p)?;
                        up = p;
                    }
                    _ => break None,
                }
            };
        }
        if include_root {
            end(s, root)?;
        }
        Ok(())
    }
}

/// html5ever's tree sink writing into the arena.
struct Sink {
    nodes: RefCell<Vec<Node>>,
}

/// An element name handed to the tree builder (the arena sits behind a RefCell, so no
/// reference into it can be lent).
#[derive(Debug)]
struct OwnedName(QualName);

impl ElemName for OwnedName {
    fn ns(&self) -> &Namespace {
        &self.0.ns
    }

    fn local_name(&self) -> &LocalName {
        &self.0.local
    }
}

impl Default for Sink {
    fn default() -> Sink {
        Sink { nodes: RefCell::new(vec![Node::new(Data::Document)]) }
    }
}

impl Sink {
    fn new_node(&self, data: Data) -> NodeId {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Node::new(data));
        nodes.len() - 1
    }

    fn with_dom<R>(&self, f: impl FnOnce(&mut Dom) -> R) -> R {
        let mut dom = Dom { nodes: std::mem::take(&mut *self.nodes.borrow_mut()) };
        let r = f(&mut dom);
        *self.nodes.borrow_mut() = dom.nodes;
        r
    }

    /// Adds a child (merging adjacent text) under `parent`, before `before` when given.
    fn insert(&self, parent: NodeId, before: Option<NodeId>, child: NodeOrText<NodeId>) {
        let child = match child {
            NodeOrText::AppendNode(n) => n,
            NodeOrText::AppendText(t) => {
                let nodes = self.nodes.borrow();
                let neighbour = match before {
                    Some(b) => nodes[b].prev,
                    None => nodes[parent].last,
                };
                drop(nodes);
                if let Some(prev) = neighbour
                    && let Data::Text(s) = &mut self.nodes.borrow_mut()[prev].data
                {
                    s.push_str(&t);
                    return;
                }
                self.new_node(Data::Text(t.to_string()))
            }
        };
        self.with_dom(|dom| match before {
            Some(b) => dom.insert_before(b, child),
            None => dom.append(parent, child),
        });
    }
}

impl TreeSink for Sink {
    type Handle = NodeId;
    type Output = Self;
    type ElemName<'a> = OwnedName;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        DOCUMENT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> OwnedName {
        match &self.nodes.borrow()[*target].data {
            Data::Element(e) => OwnedName(e.name.clone()),
            _ => OwnedName(QualName::new(None, ns!(), local_name!(""))),
        }
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, _flags: ElementFlags) -> NodeId {
        let attrs = attrs.into_iter().map(|a| (a.name, a.value.to_string())).collect();
        self.new_node(Data::Element(Element { name, attrs }))
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.new_node(Data::Comment(text.to_string()))
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.new_node(Data::ProcessingInstruction)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.insert(*parent, None, child);
    }

    fn append_based_on_parent_node(&self, element: &NodeId, prev_element: &NodeId, child: NodeOrText<NodeId>) {
        if self.nodes.borrow()[*element].parent.is_some() {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, name: StrTendril, _public_id: StrTendril, _system_id: StrTendril) {
        let d = self.new_node(Data::Doctype(name.to_string()));
        self.insert(DOCUMENT, None, NodeOrText::AppendNode(d));
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        *target
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, child: NodeOrText<NodeId>) {
        let Some(parent) = self.nodes.borrow()[*sibling].parent else { return };
        self.insert(parent, Some(*sibling), child);
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        if let Data::Element(e) = &mut self.nodes.borrow_mut()[*target].data {
            for a in attrs {
                if !e.attrs.iter().any(|(n, _)| *n == a.name) {
                    e.attrs.push((a.name, a.value.to_string()));
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.with_dom(|dom| dom.detach(*target));
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        self.with_dom(|dom| dom.move_children(*node, *new_parent));
    }
}

/// Drops start tags nested deeper than [`MAX_NESTING`] (and as many matching end tags)
/// before they reach the tree builder.
struct NestingGuard {
    inner: TreeBuilder<NodeId, Sink>,
    dropped: RefCell<HashMap<LocalName, usize>>,
}

/// Elements kept even when too deep: void ones add no depth, and raw-text ones switch the
/// tokenizer's state, which only the tree builder can do.
fn guard_exempt(name: &LocalName) -> bool {
    matches!(
        &**name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "source"
            | "track"
            | "wbr"
            | "script"
            | "style"
            | "textarea"
            | "title"
            | "xmp"
            | "iframe"
            | "noembed"
            | "noframes"
            | "plaintext"
    )
}

impl NestingGuard {
    /// The tree builder's open elements (plus the few other handles it holds, such as
    /// active formatting elements: close enough for a bound). Its stack is private; its
    /// handle tracer is the public way to see it.
    fn open_depth(&self) -> usize {
        struct Count(Cell<usize>);
        impl Tracer for Count {
            type Handle = NodeId;
            fn trace_handle(&self, _: &NodeId) {
                self.0.set(self.0.get() + 1);
            }
        }
        let count = Count(Cell::new(0));
        self.inner.trace_handles(&count);
        count.0.get()
    }
}

impl TokenSink for NestingGuard {
    type Handle = NodeId;

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<NodeId> {
        if let Token::TagToken(tag) = &token {
            let mut dropped = self.dropped.borrow_mut();
            match tag.kind {
                TagKind::StartTag
                    if !tag.self_closing && !guard_exempt(&tag.name) && self.open_depth() >= MAX_NESTING =>
                {
                    *dropped.entry(tag.name.clone()).or_default() += 1;
                    return TokenSinkResult::Continue;
                }
                TagKind::EndTag => {
                    if let Some(n) = dropped.get_mut(&tag.name).filter(|n| **n > 0) {
                        *n -= 1;
                        return TokenSinkResult::Continue;
                    }
                }
                _ => {}
            }
        }
        self.inner.process_token(token, line)
    }

    fn end(&self) {
        self.inner.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner.adjusted_current_node_present_but_not_in_html_namespace()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_builds_tree_with_merged_text() {
        let dom = Dom::parse("<title> A  b </title><p id=x>one <b>two</b> three</p>");
        assert_eq!(dom.title().as_deref(), Some("A b"));
        let p = dom.find(DOCUMENT, "p").unwrap();
        assert_eq!(dom.attr(p, "id"), Some("x"));
        assert_eq!(dom.text_content(p), "one two three");
        assert_eq!(dom.children(p).count(), 3);
        assert_eq!(dom.html(p, true), r#"<p id="x">one <b>two</b> three</p>"#);
    }

    #[test]
    fn edits_keep_links_consistent() {
        let mut dom = Dom::parse("<div><p>a</p><p>b</p><p>c</p></div>");
        let div = dom.find(DOCUMENT, "div").unwrap();
        let ps: Vec<_> = dom.element_children(div).collect();
        dom.append(div, ps[0]);
        assert_eq!(dom.html(div, false), "<p>b</p><p>c</p><p>a</p>");
        let span = dom.create_element("span");
        dom.replace(ps[1], span);
        dom.append(span, ps[1]);
        dom.rename(ps[1], "em");
        assert_eq!(dom.html(div, false), "<span><em>b</em></span><p>c</p><p>a</p>");
        let copy = dom.deep_clone(div);
        dom.detach(ps[2]);
        assert_eq!(dom.html(div, false), "<span><em>b</em></span><p>a</p>");
        assert_eq!(dom.html(copy, false), "<span><em>b</em></span><p>c</p><p>a</p>");
        assert_eq!(dom.prev_element_sibling(ps[0]), Some(span));
    }

    #[test]
    fn noscript_content_is_markup() {
        let dom = Dom::parse("<noscript><img src=a.jpg></noscript>");
        assert!(dom.find(DOCUMENT, "img").is_some());
    }

    #[test]
    fn deep_nesting_is_cut_and_linear() {
        let n = 200_000;
        let html = "<div>".repeat(n) + "deep text" + &"</div>".repeat(n) + "<p>after</p>";
        let t = std::time::Instant::now();
        let dom = Dom::parse(&html);
        assert!(t.elapsed().as_secs() < 20, "parse took {:?}", t.elapsed());
        let depth = dom.descendants(DOCUMENT).map(|n| dom.ancestors(n).count()).max().unwrap();
        assert!(depth <= MAX_NESTING + 2, "depth {depth}");
        let body = dom.body().unwrap();
        assert!(dom.text_content(body).contains("deep text"));
        // The dropped end tags were swallowed: the paragraph lands after the nest.
        let p = dom.find(DOCUMENT, "p").unwrap();
        assert_eq!(dom.parent(p), Some(body));
    }

    #[test]
    fn unclosed_paragraphs_are_not_counted_as_nesting() {
        let html = "<p>x".repeat(5_000);
        let dom = Dom::parse(&html);
        assert_eq!(dom.elements_by_tag(DOCUMENT, &["p"]).len(), 5_000);
    }
}
