//! A zero-copy tokenizer for content streams and CMaps (PostScript-like syntax).
//! Hand-written because it is the hot loop of extraction: operands borrow from the
//! stream and numbers never allocate.

use std::borrow::Cow;

#[derive(Clone, Debug, PartialEq)]
pub enum Operand<'a> {
    Number(f32),
    Bool(bool),
    Null,
    Name(Cow<'a, [u8]>),
    Str(Cow<'a, [u8]>),
    Array(Vec<Operand<'a>>),
    Dict(Vec<(Cow<'a, [u8]>, Operand<'a>)>),
}

impl<'a> Operand<'a> {
    pub fn as_f32(&self) -> Option<f32> {
        match self {
            Operand::Number(n) => Some(*n),
            _ => None,
        }
    }

    pub fn as_name(&self) -> Option<&[u8]> {
        match self {
            Operand::Name(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&[u8]> {
        match self {
            Operand::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Nesting bound for arrays/dicts inside one operand: deeper input is malformed.
const MAX_OPERAND_DEPTH: usize = 64;

pub struct Lexer<'a> {
    data: &'a [u8],
    pos: usize,
}

#[inline]
pub fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t' | b'\x0c' | b'\0')
}

#[inline]
pub fn is_delimiter(b: u8) -> bool {
    matches!(b, b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%')
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// One token: an operand, or an operator (a bare keyword) borrowed from the input.
pub enum Token<'a> {
    Operand(Operand<'a>),
    Operator(&'a [u8]),
    ArrayEnd,
    DictEnd,
}

impl<'a> Lexer<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Lexer { data, pos: 0 }
    }

    fn skip_whitespace_and_comments(&mut self) {
        while self.pos < self.data.len() {
            let b = self.data[self.pos];
            if is_whitespace(b) {
                self.pos += 1;
            } else if b == b'%' {
                while self.pos < self.data.len() && !matches!(self.data[self.pos], b'\n' | b'\r') {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// Reads operands into `operands` until an operator; returns it, or None at the end.
    /// Stray `]`/`>>`/`}` are skipped, like viewers do.
    pub fn next_operation(&mut self, operands: &mut Vec<Operand<'a>>) -> Option<&'a [u8]> {
        loop {
            match self.next_token(0)? {
                Token::Operand(op) => operands.push(op),
                Token::Operator(op) => return Some(op),
                Token::ArrayEnd | Token::DictEnd => {}
            }
        }
    }

    pub fn next_token(&mut self, depth: usize) -> Option<Token<'a>> {
        self.skip_whitespace_and_comments();
        let data = self.data;
        let b = *data.get(self.pos)?;
        match b {
            b'/' => {
                self.pos += 1;
                let start = self.pos;
                while self.pos < data.len() && !is_whitespace(data[self.pos]) && !is_delimiter(data[self.pos]) {
                    self.pos += 1;
                }
                let raw = &data[start..self.pos];
                let name = if raw.contains(&b'#') { Cow::Owned(decode_name_escapes(raw)) } else { Cow::Borrowed(raw) };
                Some(Token::Operand(Operand::Name(name)))
            }
            b'(' => Some(Token::Operand(Operand::Str(self.literal_string()))),
            b'<' => {
                if data.get(self.pos + 1) == Some(&b'<') {
                    self.pos += 2;
                    Some(Token::Operand(self.dict(depth)))
                } else {
                    Some(Token::Operand(Operand::Str(Cow::Owned(self.hex_string()))))
                }
            }
            b'>' => {
                self.pos += if data.get(self.pos + 1) == Some(&b'>') { 2 } else { 1 };
                Some(Token::DictEnd)
            }
            b'[' => {
                self.pos += 1;
                Some(Token::Operand(self.array(depth)))
            }
            b']' => {
                self.pos += 1;
                Some(Token::ArrayEnd)
            }
            b'{' | b'}' => {
                self.pos += 1;
                Some(Token::Operator(&data[self.pos - 1..self.pos]))
            }
            b')' => {
                self.pos += 1;
                self.next_token(depth)
            }
            b'0'..=b'9' | b'+' | b'-' | b'.' => Some(self.number_or_keyword()),
            _ => {
                let start = self.pos;
                while self.pos < data.len() && !is_whitespace(data[self.pos]) && !is_delimiter(data[self.pos]) {
                    self.pos += 1;
                }
                let word = &data[start..self.pos];
                Some(match word {
                    b"true" => Token::Operand(Operand::Bool(true)),
                    b"false" => Token::Operand(Operand::Bool(false)),
                    b"null" => Token::Operand(Operand::Null),
                    _ => Token::Operator(word),
                })
            }
        }
    }

    fn number_or_keyword(&mut self) -> Token<'a> {
        let data = self.data;
        let start = self.pos;
        let mut end = start;
        while end < data.len() && !is_whitespace(data[end]) && !is_delimiter(data[end]) {
            end += 1;
        }
        self.pos = end;
        match parse_number(&data[start..end]) {
            Some(n) => Token::Operand(Operand::Number(n)),
            None => Token::Operator(&data[start..end]),
        }
    }

    fn array(&mut self, depth: usize) -> Operand<'a> {
        let mut items = Vec::new();
        if depth >= MAX_OPERAND_DEPTH {
            self.pos = self.data.len();
            return Operand::Array(items);
        }
        loop {
            match self.next_token(depth + 1) {
                None | Some(Token::ArrayEnd) => break,
                Some(Token::Operand(op)) => items.push(op),
                // Operators inside arrays are malformed; keep reading like viewers do.
                Some(Token::Operator(_)) | Some(Token::DictEnd) => {}
            }
        }
        Operand::Array(items)
    }

    fn dict(&mut self, depth: usize) -> Operand<'a> {
        let mut entries = Vec::new();
        if depth >= MAX_OPERAND_DEPTH {
            self.pos = self.data.len();
            return Operand::Dict(entries);
        }
        let mut key: Option<Cow<'a, [u8]>> = None;
        loop {
            match self.next_token(depth + 1) {
                None | Some(Token::DictEnd) => break,
                Some(Token::Operand(op)) => match key.take() {
                    None => {
                        if let Operand::Name(n) = op {
                            key = Some(n);
                        }
                    }
                    Some(k) => entries.push((k, op)),
                },
                Some(Token::Operator(_)) | Some(Token::ArrayEnd) => {}
            }
        }
        Operand::Dict(entries)
    }

    fn literal_string(&mut self) -> Cow<'a, [u8]> {
        let data = self.data;
        self.pos += 1; // '('
        let start = self.pos;
        // Fast path: no escapes and balanced parentheses.
        let mut depth = 0usize;
        let mut i = start;
        while i < data.len() {
            match data[i] {
                b'\\' | b'\r' => break,
                b'(' => depth += 1,
                b')' if depth == 0 => {
                    self.pos = i + 1;
                    return Cow::Borrowed(&data[start..i]);
                }
                b')' => depth -= 1,
                _ => {}
            }
            i += 1;
        }
        let mut out = Vec::with_capacity(i - start + 16);
        out.extend_from_slice(&data[start..i]);
        while i < data.len() {
            let b = data[i];
            i += 1;
            match b {
                b'(' => {
                    depth += 1;
                    out.push(b);
                }
                b')' => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                    out.push(b);
                }
                b'\r' => {
                    // End-of-line in a literal string reads as a single LF.
                    if data.get(i) == Some(&b'\n') {
                        i += 1;
                    }
                    out.push(b'\n');
                }
                b'\\' => {
                    let Some(&e) = data.get(i) else { break };
                    i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(0x08),
                        b'f' => out.push(0x0c),
                        b'0'..=b'7' => {
                            let mut v = (e - b'0') as u32;
                            for _ in 0..2 {
                                match data.get(i) {
                                    Some(&d @ b'0'..=b'7') => {
                                        v = v * 8 + (d - b'0') as u32;
                                        i += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push(v as u8);
                        }
                        b'\r' => {
                            if data.get(i) == Some(&b'\n') {
                                i += 1;
                            }
                        }
                        b'\n' => {}
                        other => out.push(other),
                    }
                }
                _ => out.push(b),
            }
        }
        self.pos = i;
        Cow::Owned(out)
    }

    fn hex_string(&mut self) -> Vec<u8> {
        let data = self.data;
        self.pos += 1; // '<'
        let mut out = Vec::new();
        let mut hi: Option<u8> = None;
        while self.pos < data.len() {
            let b = data[self.pos];
            self.pos += 1;
            if b == b'>' {
                break;
            }
            if let Some(v) = hex_value(b) {
                match hi.take() {
                    None => hi = Some(v),
                    Some(h) => out.push(h << 4 | v),
                }
            }
        }
        if let Some(h) = hi {
            out.push(h << 4);
        }
        out
    }

    /// After `ID`: skips inline image data and the closing `EI`; `expected_len` is the
    /// raw data size when it can be computed (no filter), else the data is scanned.
    pub fn skip_inline_image(&mut self, expected_len: Option<usize>) {
        let data = self.data;
        // One whitespace byte separates ID from the data.
        if self.pos < data.len() && is_whitespace(data[self.pos]) {
            self.pos += 1;
        }
        if let Some(len) = expected_len {
            let end = self.pos.saturating_add(len);
            if let Some(after) = data.get(end..) {
                let trimmed = after.iter().position(|&b| !is_whitespace(b)).unwrap_or(after.len());
                if after[trimmed..].starts_with(b"EI") {
                    self.pos = end + trimmed + 2;
                    return;
                }
            }
        }
        let mut i = self.pos;
        while i + 1 < data.len() {
            if data[i] == b'E'
                && data[i + 1] == b'I'
                && (i == 0 || is_whitespace(data[i - 1]))
                && data.get(i + 2).is_none_or(|&b| is_whitespace(b))
            {
                self.pos = i + 2;
                return;
            }
            i += 1;
        }
        self.pos = data.len();
    }
}

/// PDF numbers: optional sign, digits, optional fraction. Tolerates `--5` and `4.-2`
/// style garbage by reading the valid prefix, as viewers do.
pub fn parse_number(s: &[u8]) -> Option<f32> {
    let mut i = 0;
    let mut neg = false;
    while i < s.len() && (s[i] == b'-' || s[i] == b'+') {
        neg ^= s[i] == b'-';
        i += 1;
    }
    let mut int: f64 = 0.0;
    let mut any = false;
    while i < s.len() && s[i].is_ascii_digit() {
        int = int * 10.0 + (s[i] - b'0') as f64;
        i += 1;
        any = true;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        let mut scale = 0.1;
        while i < s.len() && s[i].is_ascii_digit() {
            int += (s[i] - b'0') as f64 * scale;
            scale *= 0.1;
            i += 1;
            any = true;
        }
    }
    if !any {
        return None;
    }
    // Trailing junk after a valid number ("4.-2", "1e5") is only accepted when the prefix
    // consumed a digit; a token like "-" alone is an operator.
    let v = if neg { -int } else { int };
    Some(v as f32)
}

fn decode_name_escapes(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'#'
            && let (Some(h), Some(l)) =
                (raw.get(i + 1).and_then(|&b| hex_value(b)), raw.get(i + 2).and_then(|&b| hex_value(b)))
        {
            out.push(h << 4 | l);
            i += 3;
            continue;
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(src: &[u8]) -> Vec<(Vec<Operand<'_>>, String)> {
        let mut lx = Lexer::new(src);
        let mut out = Vec::new();
        let mut operands = Vec::new();
        while let Some(op) = lx.next_operation(&mut operands) {
            out.push((std::mem::take(&mut operands), String::from_utf8_lossy(op).into_owned()));
        }
        out
    }

    #[test]
    fn reads_operands_and_operators() {
        let r = ops(b"BT /F1 12 Tf 1 0 0 1 -72.5 .5 Tm (Hi) Tj ET");
        assert_eq!(r[1].1, "Tf");
        assert_eq!(r[1].0, vec![Operand::Name(Cow::Borrowed(b"F1")), Operand::Number(12.0)]);
        assert_eq!(r[2].0[4], Operand::Number(-72.5));
        assert_eq!(r[2].0[5], Operand::Number(0.5));
        assert_eq!(r[3].0, vec![Operand::Str(Cow::Borrowed(b"Hi"))]);
    }

    #[test]
    fn literal_string_escapes_and_nesting() {
        let r = ops(br"(a\(b\)c (nested) \101\n\
x) Tj");
        assert_eq!(r[0].0[0].as_str().unwrap(), b"a(b)c (nested) A\nx");
    }

    #[test]
    fn hex_string_odd_digit_pads_zero() {
        let r = ops(b"<48 6 5 7> Tj");
        assert_eq!(r[0].0[0].as_str().unwrap(), &[0x48, 0x65, 0x70]);
    }

    #[test]
    fn tj_array_with_kerning() {
        let r = ops(b"[(A) -120 (B)] TJ");
        let Operand::Array(items) = &r[0].0[0] else { panic!() };
        assert_eq!(items.len(), 3);
        assert_eq!(items[1], Operand::Number(-120.0));
    }

    #[test]
    fn name_hex_escapes_decode() {
        let r = ops(b"/A#20B Do");
        assert_eq!(r[0].0[0].as_name().unwrap(), b"A B");
    }

    #[test]
    fn dict_operand_for_marked_content() {
        let r = ops(b"/Span <</ActualText (fi) /MCID 3>> BDC");
        let Operand::Dict(d) = &r[0].0[1] else { panic!() };
        assert_eq!(d.len(), 2);
        assert_eq!(&*d[0].0, b"ActualText");
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let src = vec![b'['; 100_000];
        let r = ops(&src);
        assert!(r.is_empty());
    }

    #[test]
    fn inline_image_scan_finds_ei() {
        let src = b"BI /W 2 /H 2 /F /AHx ID 00ff00ffEIxx EI Q";
        let mut lx = Lexer::new(src);
        let mut operands = Vec::new();
        assert_eq!(lx.next_operation(&mut operands), Some(&b"BI"[..]));
        operands.clear();
        assert_eq!(lx.next_operation(&mut operands), Some(&b"ID"[..]));
        lx.skip_inline_image(None);
        operands.clear();
        assert_eq!(lx.next_operation(&mut operands), Some(&b"Q"[..]));
    }

    #[test]
    fn numbers_tolerate_garbage() {
        assert_eq!(parse_number(b"--5"), Some(5.0));
        assert_eq!(parse_number(b"-.25"), Some(-0.25));
        assert_eq!(parse_number(b"-"), None);
    }
}
