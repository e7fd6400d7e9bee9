//! Page metadata the way Readability reads it: JSON-LD article objects first, then
//! Dublin Core, OpenGraph, Twitter, Parse.ly and plain `<meta>` names, then the document
//! title with site names stripped.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::dom::{DOCUMENT, Dom};
use crate::readability::{text_similarity, trim};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    pub title: Option<String>,
    pub byline: Option<String>,
    pub excerpt: Option<String>,
    pub site_name: Option<String>,
    pub published_time: Option<String>,
    pub lang: Option<String>,
    pub dir: Option<String>,
    pub readerable: bool,
}

/// What a JSON-LD article object says.
#[derive(Debug, Default)]
pub struct JsonLd {
    title: Option<String>,
    byline: Option<String>,
    excerpt: Option<String>,
    site_name: Option<String>,
    date_published: Option<String>,
}

/// schema.org types that describe an article.
const ARTICLE_TYPES: &[&str] = &[
    "Article",
    "AdvertiserContentArticle",
    "NewsArticle",
    "AnalysisNewsArticle",
    "AskPublicNewsArticle",
    "BackgroundNewsArticle",
    "OpinionNewsArticle",
    "ReportageNewsArticle",
    "ReviewNewsArticle",
    "Report",
    "SatiricalArticle",
    "ScholarlyArticle",
    "MedicalScholarlyArticle",
    "SocialMediaPosting",
    "BlogPosting",
    "LiveBlogPosting",
    "DiscussionForumPosting",
    "TechArticle",
    "APIReference",
];

fn is_article_type(v: Option<&Value>) -> bool {
    let matches = |t: &str| ARTICLE_TYPES.iter().any(|a| t.contains(a));
    match v {
        Some(Value::String(t)) => matches(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(matches),
        _ => false,
    }
}

fn is_schema_org(v: Option<&Value>) -> bool {
    let ok = |s: &str| {
        let s = s.strip_prefix("http://").or_else(|| s.strip_prefix("https://")).unwrap_or("");
        s == "schema.org" || s == "schema.org/"
    };
    match v {
        Some(Value::String(s)) => ok(s),
        Some(Value::Object(o)) => o.get("@vocab").and_then(Value::as_str).is_some_and(ok),
        _ => false,
    }
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(|s| trim(s).to_string())
}

/// The first `application/ld+json` script describing a schema.org article.
pub fn json_ld(dom: &Dom) -> JsonLd {
    for script in dom.elements_by_tag(DOCUMENT, &["script"]) {
        if dom.attr(script, "type") != Some("application/ld+json") {
            continue;
        }
        let text = dom.text_content(script);
        let text = text.trim();
        let text = text.strip_prefix("<![CDATA[").unwrap_or(text);
        let text = text.strip_suffix("]]>").unwrap_or(text);
        let Ok(mut parsed) = serde_json::from_str::<Value>(text) else { continue };
        if let Value::Array(items) = parsed {
            let Some(found) = items.into_iter().find(|it| is_article_type(it.get("@type"))) else { continue };
            parsed = found;
        }
        if !is_schema_org(parsed.get("@context")) {
            continue;
        }
        if parsed.get("@type").is_none()
            && let Some(Value::Array(graph)) = parsed.get("@graph")
        {
            match graph.iter().find(|it| is_article_type(it.get("@type"))) {
                Some(found) => parsed = found.clone(),
                None => continue,
            }
        }
        if !is_article_type(parsed.get("@type")) {
            continue;
        }
        return json_ld_fields(dom, &parsed);
    }
    JsonLd::default()
}

fn json_ld_fields(dom: &Dom, v: &Value) -> JsonLd {
    let name = v.get("name").and_then(Value::as_str);
    let headline = v.get("headline").and_then(Value::as_str);
    let title = match (name, headline) {
        (Some(n), Some(h)) if n != h => {
            // Prefer whichever matches the page's own title.
            let page_title = article_title(dom);
            let name_matches = text_similarity(n, &page_title) > 0.75;
            let headline_matches = text_similarity(h, &page_title) > 0.75;
            Some(if headline_matches && !name_matches { h } else { n }.to_string())
        }
        (Some(n), _) => Some(trim(n).to_string()),
        (None, Some(h)) => Some(trim(h).to_string()),
        _ => None,
    };
    let byline = match v.get("author") {
        Some(a @ Value::Object(_)) => str_field(a, "name"),
        Some(Value::Array(list)) if list.first().and_then(|a| a.get("name")).and_then(Value::as_str).is_some() => {
            let names: Vec<String> = list.iter().filter_map(|a| str_field(a, "name")).collect();
            Some(names.join(", "))
        }
        _ => None,
    };
    JsonLd {
        title,
        byline,
        excerpt: str_field(v, "description"),
        site_name: v.get("publisher").and_then(|p| str_field(p, "name")),
        date_published: str_field(v, "datePublished"),
    }
}

/// `<meta>` values keyed by normalised property or name (`og:title`, `dc:creator`,
/// `description`, ...).
fn meta_values(dom: &Dom) -> HashMap<String, String> {
    let mut values = HashMap::new();
    for m in dom.elements_by_tag(DOCUMENT, &["meta"]) {
        let Some(content) = dom.attr(m, "content").filter(|c| !c.is_empty()) else { continue };
        let content = trim(content).to_string();
        let mut matched = false;
        if let Some(prop) = dom.attr(m, "property")
            && let Some(key) = property_key(prop)
        {
            values.insert(key, content.clone());
            matched = true;
        }
        if !matched
            && let Some(name) = dom.attr(m, "name")
            && name_matches(name)
        {
            let key: String = name.to_lowercase().chars().filter(|c| !c.is_whitespace()).collect();
            values.insert(key.replace('.', ":"), content);
        }
    }
    values
}

const PROPERTY_PREFIXES: &[&str] = &["article", "dc", "dcterm", "og", "twitter"];
const PROPERTY_NAMES: &[&str] = &["author", "creator", "description", "published_time", "title", "site_name"];

/// The first `prefix:name` pair in a (possibly space-separated) property attribute.
fn property_key(prop: &str) -> Option<String> {
    let lower = prop.to_lowercase();
    for (i, _) in lower.match_indices(':') {
        let before = lower[..i].trim_end();
        let after = lower[i + 1..].trim_start();
        let prefix = PROPERTY_PREFIXES.iter().filter(|p| before.ends_with(*p)).max_by_key(|p| p.len());
        let name = PROPERTY_NAMES.iter().find(|n| after.starts_with(*n));
        if let (Some(p), Some(n)) = (prefix, name) {
            return Some(format!("{p}:{n}"));
        }
    }
    None
}

/// `<meta name>` values Readability reads: an optional dc/dcterm/og/twitter/parsely/weibo
/// prefix and one of the known names.
fn name_matches(name: &str) -> bool {
    let lower = name.trim().to_lowercase();
    const NAMES: &[&str] = &["author", "creator", "pub-date", "description", "title", "site_name"];
    const PREFIXES: &[&str] = &["dc", "dcterm", "og", "twitter", "parsely", "weibo:article", "weibo:webpage"];
    if NAMES.contains(&lower.as_str()) {
        return true;
    }
    PREFIXES.iter().any(|p| {
        lower.strip_prefix(p).is_some_and(|rest| {
            let rest = rest.trim_start();
            let Some(rest) = rest.strip_prefix(['-', '.', ':']) else { return false };
            NAMES.contains(&rest.trim_start())
        })
    })
}

pub fn metadata(dom: &Dom, ld: JsonLd) -> Metadata {
    let mut v = meta_values(dom);
    // Empty values count as missing, as in Readability's `a || b` chains.
    v.retain(|_, s| !s.is_empty());
    let some = |s: Option<String>| s.filter(|s| !s.is_empty());
    let ld = JsonLd {
        title: some(ld.title),
        byline: some(ld.byline),
        excerpt: some(ld.excerpt),
        site_name: some(ld.site_name),
        date_published: some(ld.date_published),
    };
    let get = |keys: &[&str]| keys.iter().find_map(|k| v.get(*k).cloned());
    let title = ld
        .title
        .or_else(|| {
            get(&[
                "dc:title",
                "dcterm:title",
                "og:title",
                "weibo:article:title",
                "weibo:webpage:title",
                "title",
                "twitter:title",
                "parsely-title",
            ])
        })
        .unwrap_or_else(|| article_title(dom));
    let article_author = v.get("article:author").filter(|a| !is_url(a)).cloned();
    let byline =
        ld.byline.or_else(|| get(&["dc:creator", "dcterm:creator", "author", "parsely-author"])).or(article_author);
    let excerpt = ld.excerpt.or_else(|| {
        get(&[
            "dc:description",
            "dcterm:description",
            "og:description",
            "weibo:article:description",
            "weibo:webpage:description",
            "description",
            "twitter:description",
        ])
    });
    let site_name = ld.site_name.or_else(|| get(&["og:site_name"]));
    let published_time = ld.date_published.or_else(|| get(&["article:published_time", "parsely-pub-date"]));
    let clean = |s: Option<String>| s.map(|s| unescape_entities(&s));
    Metadata {
        title: Some(unescape_entities(&title)),
        byline: clean(byline),
        excerpt: clean(excerpt),
        site_name: clean(site_name),
        published_time: clean(published_time),
        ..Metadata::default()
    }
}

fn is_url(s: &str) -> bool {
    url::Url::parse(s).is_ok()
}

/// Entities left encoded inside attribute values: the five XML ones and numeric ones.
fn unescape_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';').filter(|&e| e <= 12) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let decoded = match entity {
            "quot" => Some('"'),
            "amp" => Some('&'),
            "apos" => Some('\''),
            "lt" => Some('<'),
            "gt" => Some('>'),
            _ => entity.strip_prefix('#').and_then(numeric_entity).map(|n| {
                if n == 0 || (0xD800..=0xDFFF).contains(&n) {
                    '\u{FFFD}'
                } else {
                    char::from_u32(n).unwrap_or('\u{FFFD}')
                }
            }),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn numeric_entity(e: &str) -> Option<u32> {
    if let Some(hex) = e.strip_prefix(['x', 'X']) {
        return u32::from_str_radix(hex, 16)
            .ok()
            .filter(|_| !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()));
    }
    // Out-of-range numbers become U+FFFD like any invalid code point.
    (!e.is_empty() && e.chars().all(|c| c.is_ascii_digit())).then(|| e.parse().unwrap_or(u32::MAX))
}

/// Title separators: a site name usually follows one of these, set off by spaces.
const SEPARATORS: &[char] = &['|', '-', '–', '—', '\\', '/', '>', '»'];
const HIERARCHICAL: &[char] = &['\\', '/', '>', '»'];

fn word_count(s: &str) -> usize {
    // JavaScript's split(/\s+/) counts empty ends as words too.
    s.split(char::is_whitespace).filter(|w| !w.is_empty()).count().max(1)
        + usize::from(s.starts_with(char::is_whitespace))
        + usize::from(s.ends_with(char::is_whitespace))
}

/// Positions of " X " separators (X one of `set`) in the string.
fn separator_positions(s: &str, set: &[char]) -> Vec<usize> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    chars.windows(3).filter(|w| w[0].1 == ' ' && set.contains(&w[1].1) && w[2].1 == ' ').map(|w| w[0].0).collect()
}

/// The document title with site names cut off ("Story | Site" gives "Story"), or the
/// page's only `<h1>` when the title is too short or too long to be the headline.
pub fn article_title(dom: &Dom) -> String {
    let orig = dom.title().unwrap_or_default();
    let mut cur = orig.clone();
    let mut hierarchical = false;
    let seps = separator_positions(&cur, SEPARATORS);
    if let Some(&last) = seps.last() {
        hierarchical = !separator_positions(&cur, HIERARCHICAL).is_empty();
        cur = orig[..last].to_string();
        if word_count(&cur) < 3 {
            // Too short: drop the part before the first separator instead.
            let first = orig.find(SEPARATORS).map_or(0, |i| i + orig[i..].chars().next().map_or(1, char::len_utf8));
            cur = orig[first..].to_string();
        }
    } else if cur.contains(": ") {
        let trimmed = cur.trim();
        let headings = dom.elements_by_tag(DOCUMENT, &["h1", "h2"]);
        let matched = headings.iter().any(|&h| trim(&dom.text_content(h)) == trimmed);
        if !matched {
            cur = orig[orig.rfind(':').map_or(0, |i| i + 1)..].to_string();
            if word_count(&cur) < 3 {
                cur = orig[orig.find(':').map_or(0, |i| i + 1)..].to_string();
            } else if word_count(&orig[..orig.find(':').unwrap_or(0)]) > 5 {
                cur = orig.clone();
            }
        }
    } else if cur.chars().count() > 150 || cur.chars().count() < 15 {
        let h1s = dom.elements_by_tag(DOCUMENT, &["h1"]);
        if let [only] = h1s[..] {
            cur = crate::patterns::normalize_spaces(trim(&dom.text_content(only)));
        }
    }
    let cur = crate::patterns::normalize_spaces(trim(&cur));
    let words = word_count(&cur);
    let orig_without_seps: String = orig.chars().filter(|c| !SEPARATORS.contains(c)).collect();
    if words <= 4 && (!hierarchical || words != word_count(&orig_without_seps) - 1) {
        return orig;
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dom(head: &str) -> Dom {
        Dom::parse(&format!("<html><head>{head}</head><body><h1>Heading one</h1></body></html>"))
    }

    #[test]
    fn title_drops_site_name() {
        assert_eq!(
            article_title(&dom("<title>A long story about things | The Site</title>")),
            "A long story about things"
        );
        assert_eq!(article_title(&dom("<title>Site - Short one here</title>")), "Site - Short one here");
        assert_eq!(article_title(&dom("<title>Short</title>")), "Short");
        assert_eq!(
            article_title(&dom("<title>News: The whole headline is here</title>")),
            "The whole headline is here"
        );
    }

    #[test]
    fn meta_tags_in_priority_order() {
        let d = dom(r#"<meta property="og:title" content="OG"><meta name="dc.title" content="DC">
            <meta name="author" content="Ann &amp; Bob"><meta property="og:description twitter:description" content="Desc">
            <meta property="og:site_name" content="Site"><meta property="article:published_time" content="2020-01-01">"#);
        let m = metadata(&d, JsonLd::default());
        assert_eq!(m.title.as_deref(), Some("DC"));
        assert_eq!(m.byline.as_deref(), Some("Ann & Bob"));
        assert_eq!(m.excerpt.as_deref(), Some("Desc"));
        assert_eq!(m.site_name.as_deref(), Some("Site"));
        assert_eq!(m.published_time.as_deref(), Some("2020-01-01"));
    }

    #[test]
    fn json_ld_article_wins() {
        let d = dom(r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",
            "headline":"LD headline","author":[{"name":"A"},{"name":"B"}],"publisher":{"name":"Pub"},
            "datePublished":"2021-02-03"}</script><meta property="og:title" content="OG">"#);
        let m = metadata(&d, json_ld(&d));
        assert_eq!(m.title.as_deref(), Some("LD headline"));
        assert_eq!(m.byline.as_deref(), Some("A, B"));
        assert_eq!(m.site_name.as_deref(), Some("Pub"));
        assert_eq!(m.published_time.as_deref(), Some("2021-02-03"));
    }

    #[test]
    fn entities_unescape() {
        assert_eq!(unescape_entities("a &lt;b&gt; &#39;c&#x27; &bogus; &#0;"), "a <b> 'c' &bogus; \u{FFFD}");
    }
}
