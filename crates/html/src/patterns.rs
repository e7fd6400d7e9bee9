//! The word lists Readability matches class names, ids, text and URLs against. They are
//! all case-insensitive substring or word tests, so plain string code does them (no regex
//! engine in the wasm build).

/// Class/id fragments of boilerplate containers.
const UNLIKELY: &[&str] = &[
    "-ad-",
    "ai2html",
    "banner",
    "breadcrumbs",
    "combx",
    "comment",
    "community",
    "cover-wrap",
    "disqus",
    "extra",
    "footer",
    "gdpr",
    "header",
    "legends",
    "menu",
    "related",
    "remark",
    "replies",
    "rss",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "social",
    "sponsor",
    "supplemental",
    "ad-break",
    "agegate",
    "pagination",
    "pager",
    "popup",
    "yom-remote",
];
/// Fragments that rescue an unlikely-looking container.
const OK_MAYBE: &[&str] = &["and", "article", "body", "column", "content", "main", "mathjax", "shadow"];
const POSITIVE: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "hentry",
    "h-entry",
    "main",
    "page",
    "pagination",
    "post",
    "text",
    "blog",
    "story",
];
const NEGATIVE: &[&str] = &[
    "-ad-",
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "footer",
    "gdpr",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "widget",
];
const BYLINE: &[&str] = &["byline", "author", "dateline", "writtenby", "p-author"];
/// Hosts of embedded video players kept in articles.
const VIDEO_HOSTS: &[&str] = &[
    "dailymotion.com",
    "youtube.com",
    "youtube-nocookie.com",
    "player.vimeo.com",
    "v.qq.com",
    "bilibili.com",
    "live.bilibili.com",
    "archive.org",
    "upload.wikimedia.org",
    "player.twitch.tv",
];
const IMAGE_EXTENSIONS: &[&str] = &[".jpg", ".jpeg", ".png", ".webp"];
/// Commas of the scripts Readability counts (Latin, Arabic, small, vertical, CJK...).
const COMMAS: &[char] =
    &['\u{002C}', '\u{060C}', '\u{FE50}', '\u{FE10}', '\u{FE11}', '\u{2E41}', '\u{2E34}', '\u{2E32}', '\u{FF0C}'];

fn contains_any(s: &str, words: &[&str]) -> bool {
    let lower = s.to_lowercase();
    words.iter().any(|w| lower.contains(w))
}

pub fn unlikely_candidate(m: &str) -> bool {
    contains_any(m, UNLIKELY)
}

pub fn ok_maybe_candidate(m: &str) -> bool {
    contains_any(m, OK_MAYBE)
}

pub fn positive(m: &str) -> bool {
    contains_any(m, POSITIVE)
}

/// Negative class/id words, plus "hid" as a whole space-separated word.
pub fn negative(m: &str) -> bool {
    contains_any(m, NEGATIVE) || m.split(' ').any(|w| w.eq_ignore_ascii_case("hid"))
}

pub fn byline(m: &str) -> bool {
    contains_any(m, BYLINE)
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// "share" or "sharedaddy" as a word (underscores count as separators too).
pub fn share_element(m: &str) -> bool {
    let lower = m.to_lowercase();
    ["share", "sharedaddy"].iter().any(|w| {
        lower.match_indices(w).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + w.len()..].chars().next();
            let edge = |c: Option<char>| c.is_none_or(|c| !is_word_char(c) || c == '_');
            edge(before) && edge(after)
        })
    })
}

/// A URL of a known video player (`//host/...`, optionally with `www.`).
pub fn allowed_video(v: &str) -> bool {
    let lower = v.to_lowercase();
    lower.match_indices("//").any(|(i, _)| {
        let rest = &lower[i + 2..];
        let rest = rest.strip_prefix("www.").unwrap_or(rest);
        VIDEO_HOSTS.iter().any(|h| rest.starts_with(h))
    })
}

/// The whole text is an advertisement label.
pub fn ad_words(text: &str) -> bool {
    let t = text.to_lowercase();
    matches!(
        t.as_str(),
        "ad" | "advertising"
            | "advertisement"
            | "pub"
            | "publicité"
            | "werb"
            | "werbung"
            | "广告"
            | "реклама"
            | "anuncio"
    )
}

/// The whole text is a loading placeholder.
pub fn loading_words(text: &str) -> bool {
    let t = text.to_lowercase();
    let t = t.strip_suffix('…').or_else(|| t.strip_suffix("...")).unwrap_or(&t);
    matches!(t, "loading" | "正在加载" | "загрузка" | "chargement" | "cargando")
}

pub fn comma_count(text: &str) -> usize {
    text.chars().filter(|c| COMMAS.contains(c)).count()
}

pub fn comma_count_ascii(text: &str) -> usize {
    text.bytes().filter(|&b| b == b',').count()
}

/// Words as JavaScript's `\W+` split sees them: runs of ASCII letters, digits and `_`.
pub fn word_tokens(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !is_word_char(c)).filter(|t| !t.is_empty())
}

/// Length in UTF-16 code units, as JavaScript counts it.
pub fn js_len(s: &str) -> usize {
    if s.is_ascii() { s.len() } else { s.chars().map(char::len_utf16).sum() }
}

fn js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// Runs of two or more whitespace characters become one space; single ones stay.
pub fn normalize_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut run_start = None;
    let mut run_len = 0;
    for (i, c) in s.char_indices() {
        if js_space(c) {
            run_start.get_or_insert(i);
            run_len += 1;
            continue;
        }
        if let Some(start) = run_start.take() {
            out.push_str(if run_len == 1 { &s[start..i] } else { " " });
            run_len = 0;
        }
        out.push(c);
    }
    if let Some(start) = run_start {
        out.push_str(if run_len == 1 { &s[start..] } else { " " });
    }
    out
}

/// Length (UTF-16 units) of text pieces read as one string, trimmed and with whitespace
/// runs collapsed as [`normalize_spaces`] does, without building that string.
pub fn normalized_len<'a>(pieces: impl Iterator<Item = &'a str>) -> usize {
    let mut len = 0;
    let mut seen_text = false;
    let mut pending_space = false;
    for piece in pieces {
        let bytes = piece.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            let (space, units) = if b < 0x80 {
                // ASCII whitespace as JavaScript's \s sees it (with \v).
                (matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C), 1)
            } else if b >= 0xC0 {
                let c = piece[i..].chars().next().unwrap_or(' ');
                (js_space(c), c.len_utf16())
            } else {
                continue; // a continuation byte, counted with its leading byte
            };
            if space {
                pending_space = seen_text;
            } else {
                // Every whitespace character is one UTF-16 unit, so a run counts one.
                len += usize::from(pending_space) + units;
                pending_space = false;
                seen_text = true;
            }
        }
    }
    len
}

pub fn image_extension(v: &str) -> bool {
    contains_any(v, IMAGE_EXTENSIONS)
}

/// `file.jpg 2x`-style values: an image name followed by a size descriptor.
pub fn srcset_like(v: &str) -> bool {
    IMAGE_EXTENSIONS.iter().any(|ext| {
        v.match_indices(ext).any(|(i, _)| {
            let rest = &v[i + ext.len()..];
            let digits = rest.trim_start();
            digits.len() < rest.len() && digits.starts_with(|c: char| c.is_ascii_digit())
        })
    })
}

/// A single image URL and nothing else.
pub fn single_image_url(v: &str) -> bool {
    let t = v.trim();
    !t.is_empty()
        && !t.contains(char::is_whitespace)
        && IMAGE_EXTENSIONS.iter().any(|ext| t.match_indices(ext).any(|(i, _)| i > 0))
}

/// The MIME type of a `data:...;base64,` URL.
pub fn base64_data_url(src: &str) -> Option<&str> {
    let rest = src.get(..5).filter(|p| p.eq_ignore_ascii_case("data:")).map(|_| &src[5..])?;
    let rest = rest.trim_start();
    let end = rest.find(|c: char| c.is_whitespace() || c == ';' || c == ',')?;
    let (mime, after) = rest.split_at(end);
    let after = after.trim_start().strip_prefix(';')?.trim_start();
    after.get(..6).filter(|p| p.eq_ignore_ascii_case("base64"))?;
    after[6..].trim_start().starts_with(',').then_some(mime).filter(|m| !m.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_patterns() {
        assert!(unlikely_candidate("site-Footer x"));
        assert!(ok_maybe_candidate("main-column"));
        assert!(negative("hid") && negative("a hid b") && !negative("hidx"));
        assert!(negative("is-hidden"));
        assert!(share_element("post_share") && share_element("share-box") && !share_element("shared"));
    }

    #[test]
    fn text_patterns() {
        assert!(ad_words("Advertisement") && !ad_words("Advertisement here"));
        assert!(loading_words("Loading...") && loading_words("Загрузка…"));
        assert_eq!(comma_count("a, b，c"), 2);
        assert_eq!(normalize_spaces("a  b\nc \t d"), "a b\nc d");
        assert_eq!(normalized_len([" a  b", "\nc \t", " d  "].into_iter()), "a b\nc d".len());
        assert_eq!(word_tokens("Hi, there_x!").collect::<Vec<_>>(), ["Hi", "there_x"]);
    }

    #[test]
    fn url_patterns() {
        assert!(allowed_video("https://www.youtube.com/embed/x"));
        assert!(!allowed_video("https://example.com/youtube.com"));
        assert_eq!(base64_data_url("data:image/png;base64,AAAA"), Some("image/png"));
        assert_eq!(base64_data_url("data:image/png,AAAA"), None);
        assert!(srcset_like("a.jpg 2x, b.jpg 3x") && !srcset_like("a.jpg"));
        assert!(single_image_url(" /img/a.png?x=1 ") && !single_image_url("a.png b.png"));
    }
}
