//! Normalisation and tokenisation: NFKC, lower case, punctuation as separators, and
//! languages written without spaces (Han, Kana, Hangul, Thai...) split into characters.

use unicode_normalization::UnicodeNormalization;

/// Scripts written without spaces between words: each character is a token.
fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FDF | 0x3040..=0x30FF | 0x3100..=0x31BF | 0x31F0..=0x31FF | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x0E00..=0x0E7F
        | 0x0E80..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF | 0x20000..=0x2FA1F)
}

/// NFKC, lower-cased, with punctuation and symbols turned into spaces and whitespace
/// runs collapsed: two texts that differ only in these compare equal.
pub fn normalize(text: &str) -> String {
    if text.is_ascii() {
        return normalize_ascii(text.as_bytes());
    }
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.nfkc().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        } else {
            pending_space = true;
        }
    }
    out
}

/// NFKC leaves ASCII unchanged, so ASCII text needs only case folding and separators.
fn normalize_ascii(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    let mut pending_space = false;
    for &b in bytes {
        if b.is_ascii_alphanumeric() {
            if pending_space && !out.is_empty() {
                out.push(b' ');
            }
            pending_space = false;
            out.push(b.to_ascii_lowercase());
        } else {
            pending_space = true;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Tokens of a normalised text: words, and single characters of unspaced scripts.
pub fn tokens(normalized: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for word in normalized.split(' ').filter(|w| !w.is_empty()) {
        if !word.chars().any(is_unspaced) {
            out.push(word);
            continue;
        }
        let mut start = 0;
        for (i, c) in word.char_indices() {
            if is_unspaced(c) {
                if start < i {
                    out.push(&word[start..i]);
                }
                out.push(&word[i..i + c.len_utf8()]);
                start = i + c.len_utf8();
            }
        }
        if start < word.len() {
            out.push(&word[start..]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_folds_case_width_and_punctuation() {
        assert_eq!(normalize("Hello,  WORLD!\n\tＦｕｌｌ-width"), "hello world full width");
        assert_eq!(normalize("ﬁne"), "fine");
        assert_eq!(normalize("  "), "");
    }

    #[test]
    fn cjk_splits_into_characters() {
        let n = normalize("日本語のテキスト abc");
        assert_eq!(tokens(&n), vec!["日", "本", "語", "の", "テ", "キ", "ス", "ト", "abc"]);
        assert_eq!(tokens(&normalize("한국어 text")), vec!["한", "국", "어", "text"]);
    }
}
