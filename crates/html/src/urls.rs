//! Relative links and media sources in the article made absolute against the page's
//! address (and its `<base href>`), so the article works wherever it is shown.

use url::Url;

use crate::dom::{DOCUMENT, Dom, NodeId};

pub fn fix_relative_uris(dom: &mut Dom, root: NodeId, page_url: &str) {
    let Ok(page) = Url::parse(page_url) else { return };
    let base = dom
        .find(DOCUMENT, "base")
        .and_then(|b| dom.attr(b, "href"))
        .and_then(|h| page.join(h).ok())
        .unwrap_or_else(|| page.clone());
    let absolute = |uri: &str| -> String {
        // In-page anchors stay relative unless a <base> points elsewhere.
        if base == page && uri.starts_with('#') {
            return uri.to_string();
        }
        base.join(uri).map_or_else(|_| uri.to_string(), String::from)
    };
    for a in dom.elements_by_tag(root, &["a"]) {
        let Some(href) = dom.attr(a, "href").map(str::to_string) else { continue };
        if href.starts_with("javascript:") {
            // Scripts are gone: keep the link's content without the link.
            let only_text = dom.first_child(a).is_some_and(|c| dom.text(c).is_some() && dom.next_sibling(c).is_none());
            let replacement = if only_text {
                let t = dom.text_content(a);
                dom.create_text(&t)
            } else {
                let span = dom.create_element("span");
                dom.move_children(a, span);
                span
            };
            dom.replace(a, replacement);
        } else {
            let abs = absolute(&href);
            dom.set_attr(a, "href", &abs);
        }
    }
    for m in dom.elements_by_tag(root, &["img", "picture", "figure", "video", "audio", "source"]) {
        for attr in ["src", "poster"] {
            if let Some(v) = dom.attr(m, attr).map(str::to_string) {
                let abs = absolute(&v);
                dom.set_attr(m, attr, &abs);
            }
        }
        if let Some(srcset) = dom.attr(m, "srcset").map(str::to_string) {
            let fixed: Vec<String> = srcset
                .split(',')
                .map(|candidate| {
                    let c = candidate.trim();
                    match c.split_once(char::is_whitespace) {
                        Some((u, d)) => format!("{} {}", absolute(u), d.trim()),
                        None if !c.is_empty() => absolute(c),
                        None => String::new(),
                    }
                })
                .collect();
            dom.set_attr(m, "srcset", &fixed.join(", "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_media_become_absolute() {
        let mut dom = Dom::parse(
            r##"<div><a href="../x.html">x</a><a href="#n">n</a><a href="javascript:go()">js</a>
            <img src="i.png" srcset="a.png 1x, /b.png 2x"></div>"##,
        );
        let div = dom.find(DOCUMENT, "div").unwrap();
        fix_relative_uris(&mut dom, div, "http://fakehost/test/page.html");
        let html = dom.html(div, false);
        assert!(html.contains(r#"href="http://fakehost/x.html""#), "{html}");
        assert!(html.contains(r##"href="#n""##), "{html}");
        assert!(!html.contains("javascript") && html.contains("js"), "{html}");
        assert!(html.contains(r#"src="http://fakehost/test/i.png""#), "{html}");
        assert!(html.contains(r#"srcset="http://fakehost/test/a.png 1x, http://fakehost/b.png 2x""#), "{html}");
    }
}
