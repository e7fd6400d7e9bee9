//! A fallback standard security handler (ISO 32000-2 §7.6.4) for encrypted files lopdf
//! will not open: files whose crypt filters leave the document in the clear (EFOpen),
//! odd key lengths, indirect crypt-filter dictionaries, R6 passwords lopdf rejects. The
//! file is parsed with `/Encrypt` renamed (so lopdf reads it raw), the key is derived here,
//! then every string and stream is decrypted and object streams are unpacked.
//!
//! CBC and RC4 are written out here: CBC over the `aes` block cipher so that broken
//! padding is tolerated as viewers do, RC4 because its crate fixes key sizes at compile
//! time while PDF keys run from 5 to 16 bytes.

use aes::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use lopdf::{Dictionary, Document, Object, ObjectId};
use md5::{Digest, Md5};
use sha2::{Sha256, Sha384, Sha512};

use crate::error::PdfError;
use crate::objects::{get, get_dict, get_name, get_number, resolve};

/// The password padding string of Algorithm 2.
const PAD: [u8; 32] = [
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08, 0x2E, 0x2E, 0x00,
    0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Method {
    Identity,
    Rc4,
    Aes128,
    Aes256,
}

pub struct Security {
    key: Vec<u8>,
    streams: Method,
    strings: Method,
    encrypt_metadata: bool,
}

fn rc4(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut s: [u8; 256] = std::array::from_fn(|i| i as u8);
    let mut j = 0u8;
    for i in 0..256 {
        j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len().max(1)]);
        s.swap(i, j as usize);
    }
    let (mut i, mut j) = (0u8, 0u8);
    data.iter()
        .map(|&b| {
            i = i.wrapping_add(1);
            j = j.wrapping_add(s[i as usize]);
            s.swap(i as usize, j as usize);
            b ^ s[s[i as usize].wrapping_add(s[j as usize]) as usize]
        })
        .collect()
}

fn aes_cbc_decrypt(key: &[u8], iv: &[u8; 16], data: &[u8], unpad: bool) -> Vec<u8> {
    let blocks = data.chunks_exact(16);
    let mut out = Vec::with_capacity(data.len());
    let mut prev = *iv;
    let run = |dec: &dyn Fn(&mut [u8; 16])| {
        for chunk in blocks {
            let mut block: [u8; 16] = chunk.try_into().unwrap_or([0; 16]);
            let cipher = block;
            dec(&mut block);
            out.extend(block.iter().zip(prev.iter()).map(|(a, b)| a ^ b));
            prev = cipher;
        }
    };
    match key.len() {
        16 => {
            let Ok(c) = aes::Aes128::new_from_slice(key) else { return Vec::new() };
            run(&|b: &mut [u8; 16]| c.decrypt_block(b.into()));
        }
        32 => {
            let Ok(c) = aes::Aes256::new_from_slice(key) else { return Vec::new() };
            run(&|b: &mut [u8; 16]| c.decrypt_block(b.into()));
        }
        _ => return Vec::new(),
    }
    if unpad && let Some(&n) = out.last() {
        let n = n as usize;
        if (1..=16).contains(&n) && n <= out.len() && out[out.len() - n..].iter().all(|&b| b as usize == n) {
            out.truncate(out.len() - n);
        }
    }
    out
}

fn aes128_cbc_encrypt(key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
    let Ok(c) = aes::Aes128::new_from_slice(key) else { return Vec::new() };
    let mut prev: [u8; 16] = iv.try_into().unwrap_or([0; 16]);
    let mut out = Vec::with_capacity(data.len());
    for chunk in data.chunks_exact(16) {
        let mut block: [u8; 16] = std::array::from_fn(|i| chunk[i] ^ prev[i]);
        c.encrypt_block((&mut block).into());
        out.extend_from_slice(&block);
        prev = block;
    }
    out
}

/// Algorithm 2.B (R6): the iterated SHA-256/384/512 hash of a password.
fn hash_r6(password: &[u8], salt: &[u8], udata: &[u8]) -> [u8; 32] {
    let mut k: Vec<u8> =
        Sha256::new().chain_update(password).chain_update(salt).chain_update(udata).finalize().to_vec();
    let mut round = 0usize;
    loop {
        let mut k1 = Vec::with_capacity(64 * (password.len() + k.len() + udata.len()));
        for _ in 0..64 {
            k1.extend_from_slice(password);
            k1.extend_from_slice(&k);
            k1.extend_from_slice(udata);
        }
        let e = aes128_cbc_encrypt(&k[..16], &k[16..32], &k1);
        let m = e[..16].iter().map(|&b| b as u32).sum::<u32>() % 3;
        k = match m {
            0 => Sha256::digest(&e).to_vec(),
            1 => Sha384::digest(&e).to_vec(),
            _ => Sha512::digest(&e).to_vec(),
        };
        round += 1;
        if round >= 64 && e.last().is_some_and(|&l| (l as usize) + 32 <= round) {
            break;
        }
    }
    k[..32].try_into().unwrap_or([0; 32])
}

fn padded(password: &[u8]) -> [u8; 32] {
    let mut p = PAD;
    let n = password.len().min(32);
    p[..n].copy_from_slice(&password[..n]);
    p[n..].copy_from_slice(&PAD[..32 - n]);
    p
}

struct Params<'a> {
    r: i64,
    o: &'a [u8],
    u: &'a [u8],
    oe: &'a [u8],
    ue: &'a [u8],
    p: i32,
    id0: &'a [u8],
    n: usize,
    encrypt_metadata: bool,
}

impl Params<'_> {
    /// Algorithm 2: the file key for R2–R4 from a user password.
    fn key_r4(&self, password: &[u8]) -> Vec<u8> {
        let mut h = Md5::new()
            .chain_update(padded(password))
            .chain_update(&self.o[..self.o.len().min(32)])
            .chain_update(self.p.to_le_bytes())
            .chain_update(self.id0);
        if self.r >= 4 && !self.encrypt_metadata {
            h.update([0xFF; 4]);
        }
        let mut key = h.finalize().to_vec();
        if self.r >= 3 {
            for _ in 0..50 {
                key = Md5::digest(&key[..self.n]).to_vec();
            }
        }
        key.truncate(self.n);
        key
    }

    /// Algorithms 4/5: does `key` reproduce /U?
    fn user_matches(&self, key: &[u8]) -> bool {
        if self.r == 2 {
            return rc4(key, &PAD) == self.u[..self.u.len().min(32)];
        }
        let mut x = rc4(key, &Md5::new().chain_update(PAD).chain_update(self.id0).finalize());
        for i in 1..=19u8 {
            let k: Vec<u8> = key.iter().map(|b| b ^ i).collect();
            x = rc4(&k, &x);
        }
        self.u.len() >= 16 && x[..16] == self.u[..16]
    }

    /// Algorithm 7: the user password hidden in /O by the owner password.
    fn user_password_from_owner(&self, owner: &[u8]) -> Vec<u8> {
        let mut k = Md5::digest(padded(owner)).to_vec();
        if self.r >= 3 {
            for _ in 0..50 {
                k = Md5::digest(&k).to_vec();
            }
        }
        k.truncate(self.n);
        let o = &self.o[..self.o.len().min(32)];
        if self.r == 2 {
            return rc4(&k, o);
        }
        let mut x = o.to_vec();
        for i in (0..=19u8).rev() {
            let ki: Vec<u8> = k.iter().map(|b| b ^ i).collect();
            x = rc4(&ki, &x);
        }
        x
    }

    fn key_r6(&self, password: &[u8]) -> Option<Vec<u8>> {
        let pw = &password[..password.len().min(127)];
        let hash = |salt: &[u8], udata: &[u8]| -> [u8; 32] {
            if self.r == 5 {
                Sha256::new().chain_update(pw).chain_update(salt).chain_update(udata).finalize().into()
            } else {
                hash_r6(pw, salt, udata)
            }
        };
        if self.u.len() < 48 || self.o.len() < 48 {
            return None;
        }
        if hash(&self.u[32..40], &[])[..] == self.u[..32] {
            let k = hash(&self.u[40..48], &[]);
            return Some(aes_cbc_decrypt(&k, &[0; 16], &self.ue[..self.ue.len().min(32)], false));
        }
        let u48 = &self.u[..48];
        if hash(&self.o[32..40], u48)[..] == self.o[..32] {
            let k = hash(&self.o[40..48], u48);
            return Some(aes_cbc_decrypt(&k, &[0; 16], &self.oe[..self.oe.len().min(32)], false));
        }
        None
    }
}

fn string_of<'a>(doc: &'a Document, d: &'a Dictionary, key: &[u8]) -> &'a [u8] {
    match get(doc, d, key) {
        Some(Object::String(s, _)) => s,
        _ => &[],
    }
}

impl Security {
    /// Derives the file key from the encryption dictionary with `password` (tried as the
    /// user, then the owner password).
    pub fn new(doc: &Document, enc: &Dictionary, id0: &[u8], password: &[u8]) -> Result<Security, PdfError> {
        let v = get_number(doc, enc, b"V").unwrap_or(0.0) as i64;
        let r = get_number(doc, enc, b"R").unwrap_or(2.0) as i64;
        let method_of = |name: Option<&[u8]>| -> Method {
            match name {
                None | Some(b"Identity") => Method::Identity,
                Some(n) => match get_dict(doc, enc, b"CF")
                    .and_then(|cf| get_dict(doc, cf, n))
                    .and_then(|f| get_name(doc, f, b"CFM"))
                {
                    Some(b"AESV2") => Method::Aes128,
                    Some(b"AESV3") => Method::Aes256,
                    Some(b"None") => Method::Identity,
                    _ => Method::Rc4,
                },
            }
        };
        let (streams, strings) = if v >= 4 {
            (method_of(get_name(doc, enc, b"StmF")), method_of(get_name(doc, enc, b"StrF")))
        } else {
            (Method::Rc4, Method::Rc4)
        };
        let length_bits = get_number(doc, enc, b"Length").unwrap_or(40.0) as usize;
        let n = if r == 2 { 5 } else { (length_bits / 8).clamp(5, 16) };
        let n = if streams == Method::Aes128 || strings == Method::Aes128 { n.max(16) } else { n };
        let params = Params {
            r,
            o: string_of(doc, enc, b"O"),
            u: string_of(doc, enc, b"U"),
            oe: string_of(doc, enc, b"OE"),
            ue: string_of(doc, enc, b"UE"),
            p: get_number(doc, enc, b"P").unwrap_or(0.0) as i64 as i32,
            id0,
            n,
            encrypt_metadata: !matches!(get(doc, enc, b"EncryptMetadata"), Some(Object::Boolean(false))),
        };
        let encrypt_metadata = params.encrypt_metadata;
        let wrong = PdfError::Password { supplied: !password.is_empty() };
        if streams == Method::Identity && strings == Method::Identity {
            // Only embedded files are encrypted (EFOpen): the document itself is in the clear.
            return Ok(Security { key: Vec::new(), streams, strings, encrypt_metadata });
        }
        let key = if r >= 5 {
            params.key_r6(password).filter(|k| k.len() == 32).ok_or(wrong)?
        } else {
            let as_user = params.key_r4(password);
            if params.user_matches(&as_user) {
                as_user
            } else {
                let user = params.user_password_from_owner(password);
                let k = params.key_r4(&user);
                if !params.user_matches(&k) {
                    return Err(wrong);
                }
                k
            }
        };
        Ok(Security { key, streams, strings, encrypt_metadata })
    }

    fn object_key(&self, id: ObjectId, aes: bool) -> Vec<u8> {
        let mut h = Md5::new()
            .chain_update(&self.key)
            .chain_update(&id.0.to_le_bytes()[..3])
            .chain_update(&id.1.to_le_bytes()[..2]);
        if aes {
            h.update(b"sAlT");
        }
        let mut k = h.finalize().to_vec();
        k.truncate((self.key.len() + 5).min(16));
        k
    }

    fn decrypt(&self, method: Method, id: ObjectId, data: &[u8]) -> Vec<u8> {
        match method {
            Method::Identity => data.to_vec(),
            Method::Rc4 => rc4(&self.object_key(id, false), data),
            Method::Aes128 | Method::Aes256 => {
                if data.len() < 32 {
                    return Vec::new();
                }
                let key = if method == Method::Aes256 { self.key.clone() } else { self.object_key(id, true) };
                let iv: [u8; 16] = data[..16].try_into().unwrap_or([0; 16]);
                aes_cbc_decrypt(&key, &iv, &data[16..], true)
            }
        }
    }

    fn decrypt_strings(&self, id: ObjectId, obj: &mut Object) {
        match obj {
            Object::String(s, _) => *s = self.decrypt(self.strings, id, s),
            Object::Array(a) => a.iter_mut().for_each(|o| self.decrypt_strings(id, o)),
            Object::Dictionary(d) => d.iter_mut().for_each(|(_, o)| self.decrypt_strings(id, o)),
            Object::Stream(s) => s.dict.iter_mut().for_each(|(_, o)| self.decrypt_strings(id, o)),
            _ => {}
        }
    }

    /// Decrypts every object (the encryption dictionary excepted) and adds the objects held
    /// in object streams.
    pub fn decrypt_document(&self, doc: &mut Document, encrypt_id: Option<ObjectId>, limit: usize) {
        let ids: Vec<ObjectId> = doc.objects.keys().copied().collect();
        for id in ids {
            if Some(id) == encrypt_id {
                continue;
            }
            let Some(obj) = doc.objects.get_mut(&id) else { continue };
            if let Object::Stream(s) = obj {
                let ty = s.dict.get(b"Type").ok().and_then(|t| t.as_name().ok()).map(<[u8]>::to_vec);
                if ty.as_deref() == Some(b"XRef") {
                    continue;
                }
                let sig = matches!(ty.as_deref(), Some(b"Sig"));
                let skip = ty.as_deref() == Some(b"Metadata") && !self.encrypt_metadata;
                if !skip {
                    let plain = self.decrypt(self.streams, id, &s.content);
                    s.set_content(plain);
                }
                if !sig {
                    s.dict.iter_mut().for_each(|(_, o)| self.decrypt_strings(id, o));
                }
            } else {
                self.decrypt_strings(id, obj);
            }
        }
        // Objects inside object streams were unreadable before; add them now.
        let mut extra = Vec::new();
        for obj in doc.objects.values() {
            if let Object::Stream(s) = obj
                && s.dict.get(b"Type").ok().and_then(|t| t.as_name().ok()) == Some(b"ObjStm")
                && let Ok(os) = lopdf::ObjectStream::new_with_limit(s, Some(limit))
            {
                extra.extend(os.objects);
            }
        }
        for (id, obj) in extra {
            doc.objects.entry(id).or_insert(obj);
        }
    }
}

/// Renames every `/Encrypt` key (not `/EncryptMetadata`) so lopdf reads the file raw.
pub fn hide_encrypt_entries(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = bytes.to_vec();
    let mut found = false;
    let mut i = 0;
    while let Some(p) = out[i..].windows(8).position(|w| w == b"/Encrypt") {
        let at = i + p;
        let next = out.get(at + 8).copied().unwrap_or(b' ');
        if !next.is_ascii_alphanumeric() {
            out[at + 7] = b'x';
            found = true;
        }
        i = at + 8;
    }
    found.then_some(out)
}

/// Opens an encrypted file with the fallback handler; the document comes back decrypted.
pub fn open(bytes: &[u8], password: Option<&str>, limit: usize) -> Result<Document, PdfError> {
    let raw = hide_encrypt_entries(bytes).ok_or(PdfError::Load("no /Encrypt entry".into()))?;
    let options = lopdf::LoadOptions { password: None, max_decompressed_size: Some(limit), ..Default::default() };
    let mut doc = Document::load_mem_with_options(&raw, options).map_err(|e| PdfError::Load(e.to_string()))?;
    let enc_obj = doc
        .trailer
        .get(b"Encrypx")
        .ok()
        .cloned()
        .ok_or(PdfError::Load("no encryption dictionary in the trailer".into()))?;
    let encrypt_id = enc_obj.as_reference().ok();
    let enc = match resolve(&doc, &enc_obj) {
        Object::Dictionary(d) => d.clone(),
        _ => return Err(PdfError::Load("the encryption dictionary is missing".into())),
    };
    if get_name(&doc, &enc, b"Filter") != Some(b"Standard") {
        return Err(PdfError::Load("unsupported security handler (not /Standard)".into()));
    }
    let id0 = match doc.trailer.get(b"ID").ok().map(|o| resolve(&doc, o)) {
        Some(Object::Array(a)) => match a.first().map(|o| resolve(&doc, o)) {
            Some(Object::String(s, _)) => s.clone(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    let pw = password.unwrap_or("");
    let security = Security::new(&doc, &enc, &id0, pw.as_bytes())?;
    security.decrypt_document(&mut doc, encrypt_id, limit);
    doc.trailer.remove(b"Encrypx");
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rc4_known_vector() {
        // RFC 6229-style check: key "Key", plaintext "Plaintext".
        assert_eq!(rc4(b"Key", b"Plaintext"), [0xBB, 0xF3, 0x16, 0xE8, 0xD9, 0x40, 0xAF, 0x0A, 0xD3]);
    }

    #[test]
    fn encrypt_entries_renamed_but_not_encrypt_metadata() {
        let out = hide_encrypt_entries(b"<< /Encrypt 5 0 R /EncryptMetadata false >> /Encrypt<<>>").unwrap();
        assert_eq!(out, b"<< /Encrypx 5 0 R /EncryptMetadata false >> /Encrypx<<>>");
        assert!(hide_encrypt_entries(b"<< /EncryptMetadata true >>").is_none());
    }

    use lopdf::encryption::crypt_filters::{Aes128CryptFilter, Aes256CryptFilter, CryptFilter};
    use lopdf::{EncryptionState, EncryptionVersion, Permissions, Stream, StringFormat, dictionary};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    const CONTENT: &[u8] = b"BT /F1 12 Tf 72 700 Td (Secret text) Tj ET";

    /// A one-page document whose content stream and Info title are encrypted by lopdf.
    fn encrypted(make: impl Fn(&Document) -> EncryptionVersion<'_>) -> Vec<u8> {
        let mut doc = Document::with_version("1.7");
        let content = doc.add_object(Stream::new(Dictionary::new(), CONTENT.to_vec()));
        let pages = doc.new_object_id();
        let page = doc.add_object(dictionary! { "Type" => "Page", "Parent" => pages, "Contents" => content });
        doc.objects.insert(
            pages,
            Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 }),
        );
        let root = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
        let info = doc.add_object(dictionary! { "Title" => Object::string_literal("Hidden title") });
        doc.trailer.set("Root", root);
        doc.trailer.set("Info", info);
        let id = Object::String(b"0123456789abcdef".to_vec(), StringFormat::Hexadecimal);
        doc.trailer.set("ID", vec![id.clone(), id]);
        let state = EncryptionState::try_from(make(&doc)).unwrap();
        doc.encrypt(&state).unwrap();
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    fn check(bytes: &[u8]) {
        for pw in ["user", "owner"] {
            let doc = open(bytes, Some(pw), 1 << 20).unwrap_or_else(|e| panic!("{pw}: {e}"));
            let content = doc.objects.values().find_map(|o| o.as_stream().ok()).map(|s| s.content.clone()).unwrap();
            assert_eq!(content, CONTENT, "content with the {pw} password");
            let title = doc.objects.values().find_map(|o| o.as_dict().ok()?.get(b"Title").ok()?.as_str().ok()).unwrap();
            assert_eq!(title, b"Hidden title");
        }
        assert!(matches!(open(bytes, Some("wrong"), 1 << 20), Err(PdfError::Password { supplied: true })));
    }

    #[test]
    fn rc4_40_and_128_bit_files_open_with_user_or_owner_password() {
        check(&encrypted(|doc| EncryptionVersion::V1 {
            document: doc,
            owner_password: "owner",
            user_password: "user",
            permissions: Permissions::all(),
        }));
        check(&encrypted(|doc| EncryptionVersion::V2 {
            document: doc,
            owner_password: "owner",
            user_password: "user",
            key_length: 128,
            permissions: Permissions::all(),
        }));
    }

    #[test]
    fn aes_128_file_opens() {
        check(&encrypted(|doc| {
            let filter: Arc<dyn CryptFilter> = Arc::new(Aes128CryptFilter);
            EncryptionVersion::V4 {
                document: doc,
                encrypt_metadata: true,
                crypt_filters: BTreeMap::from([(b"StdCF".to_vec(), filter)]),
                stream_filter: b"StdCF".to_vec(),
                string_filter: b"StdCF".to_vec(),
                owner_password: "owner",
                user_password: "user",
                permissions: Permissions::all(),
            }
        }));
    }

    #[test]
    fn aes_256_r6_file_opens() {
        static KEY: [u8; 32] = [9; 32];
        check(&encrypted(|_| {
            let filter: Arc<dyn CryptFilter> = Arc::new(Aes256CryptFilter);
            EncryptionVersion::V5 {
                encrypt_metadata: true,
                crypt_filters: BTreeMap::from([(b"StdCF".to_vec(), filter)]),
                file_encryption_key: &KEY,
                stream_filter: b"StdCF".to_vec(),
                string_filter: b"StdCF".to_vec(),
                owner_password: "owner",
                user_password: "user",
                permissions: Permissions::all(),
            }
        }));
    }

    #[test]
    fn cbc_round_trip_through_the_block_cipher() {
        let key = [7u8; 16];
        let iv = [3u8; 16];
        let plain = [42u8; 32];
        let enc = aes128_cbc_encrypt(&key, &iv, &plain);
        assert_eq!(aes_cbc_decrypt(&key, &iv, &enc, false), plain);
    }
}
