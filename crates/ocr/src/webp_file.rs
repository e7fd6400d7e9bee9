//! WebP pictures cut short. `image-webp` decodes a frame whole or not at all, so a frame whose
//! file ends early is decoded with its missing bytes filled in, several times, each time with
//! other bytes: the rows every fill decodes alike are the picture's own (but for rows each a
//! copy of the one above, which fills reading copies over and over make alike), and the first
//! row they differ in is where its data broke off. A lossy frame (VP8) is decoded in rows of
//! 16-pixel blocks whose filter reaches into the row above; a lossless one (VP8L) pixel by
//! pixel, each from those before it (back-references, its colour cache, its predictors), so
//! its rows before the one the fills part in are whole.

use std::io;

use image::DynamicImage;

use crate::det::Area;
use crate::raster::{guarded, page_within_limit, rows_to_white};

/// What a lossy frame's missing bytes are filled with, the first fill the picture is kept from
/// and the others decoded to tell where it broke off. Its bool decoder reads zero bits as its
/// likelier branch (mostly the end of a block's coefficients), so a zero fill lasts the frame
/// out; 0x80 and 0x01 did too on the pictures tried, where 0x55, 0x7F, 0xFE and 0xFF read
/// tokens long enough to run past the frame's end (which is why it is filled on past it).
const LOSSY_FILLS: [u8; 3] = [0x00, 0x80, 0x01];

/// The same for a lossless frame, whose prefix codes read any bits (zeros the shortest codes,
/// ones the longest). One fill in eight fails (a copy reaching out of the picture, or the fill
/// run out), so six are compared; noise failed on two thirds of a text page's cuts (its copies
/// go astray). Where the code each reads over and over copies the row above, all decode alike
/// past the break (3 of 33 cuts of a text page), which `first_repeated_before` tells.
const LOSSLESS_FILLS: [u8; 6] = [0x00, 0x80, 0x01, 0xFF, 0x55, 0xAA];

/// A WebP cut short inside its frame: the rows from the break are not read.
const FRAME_CUT_SHORT: &str = "the WebP ends before its picture does (the file was cut short)";

/// A WebP cut short after its frame's data (in the metadata after it, or in the frame's last
/// bytes, which no row needed).
const CUT_AFTER_THE_PICTURE: &str = "the WebP was cut short after its picture, which is read whole";

/// A WebP whose file ends inside or after its frame -> the picture decoded as far as the
/// break, white from the first row the break can have changed, and those rows as an area of
/// the stored picture (none where every row decoded alike), with a warning that says which.
/// `None` where the file is not such a WebP, or where the part before the break does not
/// decode (a frame header, a lossy frame's first partition, a lossless one's codes cut).
pub(crate) fn frame_cut_short(bytes: &[u8]) -> Option<(DynamicImage, &'static str, Option<Area>)> {
    let frame = cut_frame(bytes)?;
    let fills = match frame.coding {
        Coding::Lossy => &LOSSY_FILLS[..],
        Coding::Lossless => &LOSSLESS_FILLS[..],
    };
    // A lossless frame whose bits all came (the file cut in its last byte's padding) decodes
    // as it stands.
    if frame.coding == Coding::Lossless
        && let Some(picture) = decoded(filled(bytes, &CutFrame { fill_to: bytes.len(), ..frame }, 0))
    {
        return Some((picture, CUT_AFTER_THE_PICTURE, None));
    }
    let mut reads = fills.iter().filter_map(|&fill| decoded(filled(bytes, &frame, fill)));
    let mut picture = reads.next()?;
    if frame.whole {
        return Some((picture, CUT_AFTER_THE_PICTURE, None));
    }
    // Where any other fill parts from the first; a picture no other fill decodes is not judged.
    let apart: Vec<Option<usize>> = reads.map(|other| first_row_apart(&picture, &other)).collect();
    if apart.is_empty() {
        return None;
    }
    let differs = apart.into_iter().flatten().min();
    let from = match frame.coding {
        // Lossy fills decoded alike were not read (the frame's last bytes, which no row
        // needed).
        Coding::Lossy => match differs {
            Some(differs) => rows_from_the_break(differs),
            None => return Some((picture, CUT_AFTER_THE_PICTURE, None)),
        },
        // Lossless fills were read (the frame did not decode unfilled), and where they all
        // copy the pixels above they decode alike: the break may be in the row before those
        // so repeated up to where they part (or to the picture's end), its pixels from the
        // break on its predecessor's. A picture whose fills all decode alike with no such
        // rows is not judged.
        Coding::Lossless => {
            let to = differs.unwrap_or(picture.height() as usize);
            match first_repeated_before(&picture, to) {
                from if from < to => from - 1,
                _ => differs?,
            }
        }
    };
    if from == 0 {
        return None;
    }
    let unread = rows_to_white(&mut picture, u32::try_from(from).ok()?);
    Some((picture, FRAME_CUT_SHORT, Some(unread)))
}

/// The first of the rows just before row `to` that each repeat the row above them (`to` where
/// row `to - 1` does not); never the first row, which has none above it.
fn first_repeated_before(picture: &DynamicImage, to: usize) -> usize {
    let rows: Vec<&[u8]> = rows_of(picture).collect();
    let mut from = to.min(rows.len());
    while from >= 2 && rows[from - 1] == rows[from - 2] {
        from -= 1;
    }
    from
}

/// The first row two decodes of one picture differ in, if any.
fn first_row_apart(a: &DynamicImage, b: &DynamicImage) -> Option<usize> {
    rows_of(a).zip(rows_of(b)).position(|(a, b)| a != b)
}

/// A picture's rows of bytes.
fn rows_of(picture: &DynamicImage) -> std::slice::Chunks<'_, u8> {
    let row_bytes = picture.as_bytes().len() / picture.height().max(1) as usize;
    picture.as_bytes().chunks(row_bytes.max(1))
}

/// A VP8 macroblock's side, in luma rows.
const MACROBLOCK_ROWS: usize = 16;

/// Rows above a row of macroblocks that decoding it changes: the loop filter's reach over the
/// edge between them (3 chroma rows, 6 luma ones) and the upsampler's chroma row beyond it.
const ROWS_A_MACROBLOCK_REACHES_ABOVE: usize = 8;

/// The first row a break can have changed, from the first row the fills decode otherwise
/// (`differs`): the top of the reach above the row of macroblocks the break is in. Both fills
/// can decode the rows a broken macroblock reaches above alike and still not as the whole file
/// does (seen up to 4 rows above `differs`); a `differs` within that reach of the next row of
/// macroblocks is that row's.
fn rows_from_the_break(differs: usize) -> usize {
    let reach = ROWS_A_MACROBLOCK_REACHES_ABOVE;
    ((differs + reach) / MACROBLOCK_ROWS * MACROBLOCK_ROWS).saturating_sub(reach)
}

/// Bytes a frame's data may take per pixel, filled in: lossy noise at the highest quality
/// takes 2.7, and a lossy fill past that is a chunk size no picture needs (a corrupt one).
const MOST_BYTES_PER_PIXEL: usize = 4;

/// Bytes filled in past what the frame's pixels need, for a small frame's headers and tables.
const FILL_SLACK: usize = 1 << 16;

/// How a frame is coded.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Coding {
    Lossy,
    Lossless,
}

/// A frame the file ends in or after.
struct CutFrame {
    /// Where its chunk starts.
    chunk: usize,
    /// The length of the file made whole (`filled`).
    fill_to: usize,
    /// Whether the frame's data all came (the file cut in a chunk's header after it).
    whole: bool,
    coding: Coding,
}

/// The frame a file ends in or after (`CutFrame`), read from its RIFF chunks (a simple file's
/// one `VP8 ` or `VP8L` chunk, or an extended one's after its `VP8X` and `ALPH`). `None` where
/// the file ends in the frame's header, or in a lossy frame's first partition (which holds
/// every macroblock's modes: no macroblock decodes as the file's), or where the frame is
/// larger than a page may be.
fn cut_frame(bytes: &[u8]) -> Option<CutFrame> {
    if bytes.get(..4)? != b"RIFF" || bytes.get(8..12)? != b"WEBP" {
        return None;
    }
    let mut at = 12usize;
    let mut frame = None;
    loop {
        let Some(header) = bytes.get(at..at.checked_add(8)?) else {
            // Cut in a chunk's header after the frame (`image-webp` refuses the file where
            // that chunk is flagged), or a file whose chunks all came.
            return frame.filter(|_| at < bytes.len()).map(|(chunk, end, coding)| CutFrame {
                chunk,
                fill_to: end,
                whole: true,
                coding,
            });
        };
        let size = usize::try_from(u32::from_le_bytes(header[4..].try_into().ok()?)).ok()?;
        let end = at.checked_add(8)?.checked_add(size)?;
        let coding = match &header[..4] {
            b"VP8 " => Some(Coding::Lossy),
            b"VP8L" => Some(Coding::Lossless),
            _ => None,
        };
        if end > bytes.len() {
            // Cut in another chunk's data: `image-webp` reads the picture (and what metadata
            // came) as it is.
            let coding = coding?;
            let data = &bytes[at + 8..];
            let (width, height, coded_from) = match coding {
                // A key frame's tag holds its first partition's size above its 5 low bits;
                // the partition follows the tag, the start code and the width and height.
                Coding::Lossy => {
                    let data = data.get(..10)?;
                    let first_partition = u32::from_le_bytes([data[0], data[1], data[2], 0]) >> 5;
                    let side = |i: usize| u32::from(u16::from_le_bytes([data[i], data[i + 1]]) & 0x3FFF);
                    (side(6), side(8), 10 + usize::try_from(first_partition).ok()?)
                }
                // A signature byte, then the width and height less one in 14 bits each.
                Coding::Lossless => {
                    let data = data.get(..5)?;
                    let sides = u32::from_le_bytes([data[1], data[2], data[3], data[4]]);
                    ((sides & 0x3FFF) + 1, (sides >> 14 & 0x3FFF) + 1, 5)
                }
            };
            page_within_limit(width, height).ok()?;
            if at + 8 + coded_from >= bytes.len() {
                return None;
            }
            let pixels = usize::try_from(width * height).ok()?;
            let most = at + 8 + MOST_BYTES_PER_PIXEL * pixels + FILL_SLACK;
            let fill_to = match coding {
                Coding::Lossy => end.saturating_add(size).min(most),
                // A fill read as the longest codes takes up to 60 bits a pixel: one that runs
                // out at the cap fails as a fill read as a copy out of the picture does.
                Coding::Lossless => most,
            };
            let fill_to = fill_to.max(bytes.len());
            return Some(CutFrame { chunk: at, fill_to, whole: false, coding });
        }
        if let Some(coding) = coding {
            frame = Some((at, end, coding));
        }
        // Chunks are padded to an even length.
        at = end + size % 2;
    }
}

/// An extended file's flags for the metadata chunks that follow its frame (EXIF, XMP), in the
/// first byte of its `VP8X` chunk: `image-webp` refuses a file that flags one it lacks.
const METADATA_AFTER_THE_FRAME: u8 = 0x08 | 0x04;

/// The file with its frame made whole: as long as `frame.fill_to` says, the bytes it
/// lacks set to `fill` (past the frame's own end too where a cut frame's fill may be read as
/// long tokens, its last partition running to its chunk's end), its sizes set to match, and
/// the metadata chunks it declared after the frame (now gone) unflagged.
fn filled(bytes: &[u8], frame: &CutFrame, fill: u8) -> Filled {
    let mut head = bytes[..frame.fill_to.min(bytes.len())].to_vec();
    for (at, size) in [(4, frame.fill_to - 8), (frame.chunk + 4, frame.fill_to - frame.chunk - 8)] {
        head[at..at + 4].copy_from_slice(&u32::try_from(size).unwrap_or(u32::MAX).to_le_bytes());
    }
    if head.get(12..16) == Some(b"VP8X".as_slice())
        && let Some(flags) = head.get_mut(20)
    {
        *flags &= !METADATA_AFTER_THE_FRAME;
    }
    Filled { head, len: frame.fill_to as u64, fill: [fill; FILL_RUN], at: 0 }
}

/// A file made whole without holding its fill, which can take four times a page's pixels in
/// bytes: its bytes, then `fill` up to `len`.
struct Filled {
    head: Vec<u8>,
    len: u64,
    fill: [u8; FILL_RUN],
    at: u64,
}

/// Bytes of fill handed to the decoder at a time.
const FILL_RUN: usize = 4096;

impl io::Read for Filled {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let run = io::BufRead::fill_buf(self)?;
        let n = run.len().min(buf.len());
        buf[..n].copy_from_slice(&run[..n]);
        io::BufRead::consume(self, n);
        Ok(n)
    }
}

impl io::BufRead for Filled {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let at = usize::try_from(self.at).unwrap_or(usize::MAX);
        if let Some(head) = self.head.get(at..).filter(|head| !head.is_empty()) {
            return Ok(head);
        }
        let left = usize::try_from(self.len.saturating_sub(self.at)).unwrap_or(usize::MAX);
        Ok(&self.fill[..left.min(FILL_RUN)])
    }

    fn consume(&mut self, amount: usize) {
        self.at = self.at.saturating_add(amount as u64).min(self.len);
    }
}

impl io::Seek for Filled {
    fn seek(&mut self, to: io::SeekFrom) -> io::Result<u64> {
        let at = match to {
            io::SeekFrom::Start(at) => Some(at),
            io::SeekFrom::End(by) => self.len.checked_add_signed(by),
            io::SeekFrom::Current(by) => self.at.checked_add_signed(by),
        };
        self.at = at.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a seek before the file's start"))?;
        Ok(self.at)
    }
}

/// A whole WebP's picture, or `None` where it fails (a fill run out) or is too large.
fn decoded(file: impl io::BufRead + io::Seek) -> Option<DynamicImage> {
    let decoder = image::codecs::webp::WebPDecoder::new(file).ok()?;
    let (width, height) = image::ImageDecoder::dimensions(&decoder);
    page_within_limit(width, height).ok()?;
    guarded("the WebP decoder", || DynamicImage::from_decoder(decoder)).ok()?.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossy_webp(picture: &image::RgbaImage, alpha: bool, quality: f32) -> Vec<u8> {
        let (w, h) = picture.dimensions();
        let rgb = DynamicImage::ImageRgba8(picture.clone()).to_rgb8();
        let encoder = match alpha {
            true => webp::Encoder::from_rgba(picture.as_raw(), w, h),
            false => webp::Encoder::from_rgb(rgb.as_raw(), w, h),
        };
        encoder.encode(quality).to_vec()
    }

    /// `picture` as a lossless WebP, by libwebp or (`ours`) by `image`.
    fn lossless_webp(picture: &image::RgbaImage, ours: bool) -> Vec<u8> {
        if !ours {
            let (w, h) = picture.dimensions();
            return webp::Encoder::from_rgba(picture.as_raw(), w, h).encode_lossless().to_vec();
        }
        let mut file = io::Cursor::new(Vec::new());
        let written = picture.write_to(&mut file, image::ImageFormat::WebP);
        assert!(written.is_ok());
        file.into_inner()
    }

    /// Stripes with a band of noise across them, as a page's print is: runs to copy and
    /// pixels to spell out.
    fn print(w: u32, h: u32) -> image::RgbaImage {
        let mut picture = stripes(w, h);
        for (x, y, pixel) in picture.enumerate_pixels_mut() {
            let hash = (x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)).wrapping_mul(2_654_435_761);
            if (x + y) % 7 < 2 && hash % 3 == 0 {
                *pixel = image::Rgba([(hash >> 8) as u8, (hash >> 16) as u8, (hash >> 24) as u8, 255]);
            }
        }
        picture
    }

    fn stripes(w: u32, h: u32) -> image::RgbaImage {
        image::RgbaImage::from_fn(w, h, |x, y| {
            let ink = (x / 3 + y / 5) % 4 == 0;
            let alpha = if x < 8 { 128 } else { 255 };
            if ink { image::Rgba([20, 30, 200, alpha]) } else { image::Rgba([250, 240, 230, alpha]) }
        })
    }

    #[test]
    fn a_lossy_webp_cut_short_keeps_the_rows_decoded_before_its_break_and_blanks_the_rest() {
        for alpha in [false, true] {
            let whole = lossy_webp(&stripes(160, 240), alpha, 80.0);
            assert_eq!(&whole[12..16], if alpha { b"VP8X" } else { b"VP8 " });
            let Some(picture) = decoded(io::Cursor::new(&whole)) else { panic!("the whole WebP decodes") };
            let row_bytes = picture.as_bytes().len() / 240;
            let row = |img: &DynamicImage, y: usize| img.as_bytes()[y * row_bytes..(y + 1) * row_bytes].to_vec();
            for keep in [0.35, 0.6, 0.9] {
                let cut = &whole[..(whole.len() as f32 * keep) as usize];
                let Some((read, FRAME_CUT_SHORT, Some(unread))) = frame_cut_short(cut) else {
                    panic!("alpha {alpha}, {keep}: no break found")
                };
                let from = unread.y as usize;
                assert!(
                    (1..240).contains(&from) && unread.h == (240 - from) as f32,
                    "alpha {alpha}, {keep}: {unread:?}"
                );
                // Rows before the break are the whole picture's; from it on, white.
                assert!((0..from).all(|y| row(&read, y) == row(&picture, y)), "alpha {alpha}, {keep}");
                assert!((from..240).all(|y| row(&read, y).iter().all(|&b| b == u8::MAX)), "alpha {alpha}, {keep}");
                // Rows lost to the break: at most its row of macroblocks beyond those the
                // zero fill alone misreads.
                let zero = cut_frame(cut).and_then(|frame| decoded(filled(cut, &frame, 0)));
                let Some(zero) = zero else { panic!("alpha {alpha}, {keep}: the zero fill decodes") };
                let misread = (0..240).find(|&y| row(&zero, y) != row(&picture, y)).unwrap_or(240);
                assert!(from <= misread && from + 16 >= misread, "alpha {alpha}, {keep}: {from}, {misread}");
                // More of the file, more rows.
                assert!(from as f32 >= 240.0 * keep * 0.5, "alpha {alpha}, {keep}: {from}");
                // A page of an image file so cut is read with a warning and its rows unread.
                let page = crate::raster::ImageFile::open(cut).page(0).map(|p| (p.warning, p.unread));
                let told =
                    page.as_ref().is_ok_and(|(w, u)| w.as_deref() == Some(FRAME_CUT_SHORT) && *u == Some(unread));
                assert!(told, "alpha {alpha}, {keep}: {page:?}");
            }
        }
    }

    #[test]
    fn a_lossless_webp_cut_short_keeps_every_row_before_its_break_and_blanks_the_rest() {
        for ours in [false, true] {
            let whole = lossless_webp(&print(160, 240), ours);
            assert_eq!(&whole[12..16], b"VP8L");
            let Some(picture) = decoded(io::Cursor::new(&whole)) else { panic!("the whole WebP decodes") };
            for keep in [0.2, 0.5, 0.8, 0.9] {
                let cut = &whole[..(whole.len() as f32 * keep) as usize];
                let Some((read, FRAME_CUT_SHORT, Some(unread))) = frame_cut_short(cut) else {
                    panic!("ours {ours}, {keep}: no break found")
                };
                let from = unread.y as u32;
                assert!((1..240).contains(&from) && unread.h == (240 - from) as f32, "ours {ours}, {keep}: {unread:?}");
                // Rows before the break are the whole picture's; from it on, white.
                let rows = |img: &DynamicImage, y: u32, h: u32| img.crop_imm(0, y, 160, h).to_rgba8();
                assert_eq!(rows(&read, 0, from), rows(&picture, 0, from), "ours {ours}, {keep}");
                assert!(rows(&read, from, 240 - from).pixels().all(|p| p.0 == [255; 4]), "ours {ours}, {keep}");
                // The break is the row the fill kept first misreads (no row of this picture
                // repeats the one above it), or the one before it where the fills read its
                // first pixels past the break alike.
                let frame = cut_frame(cut);
                let kept = frame.and_then(|frame| LOSSLESS_FILLS.iter().find_map(|&f| decoded(filled(cut, &frame, f))));
                let misread = kept.and_then(|kept| first_row_apart(&kept, &picture));
                let near = misread.is_some_and(|m| m as u32 == from || m as u32 == from + 1);
                assert!(near, "ours {ours}, {keep}: {from}, {misread:?}");
                let page = crate::raster::ImageFile::open(cut).page(0).map(|p| (p.warning, p.unread));
                let told =
                    page.as_ref().is_ok_and(|(w, u)| w.as_deref() == Some(FRAME_CUT_SHORT) && *u == Some(unread));
                assert!(told, "ours {ours}, {keep}: {page:?}");
            }
            // A file that claims bytes past its frame's last (cut where they were padding)
            // reads whole.
            let mut padded = whole.clone();
            for at in [4, 16] {
                let size = u32::from_le_bytes([padded[at], padded[at + 1], padded[at + 2], padded[at + 3]]);
                padded[at..at + 4].copy_from_slice(&(size + 6).to_le_bytes());
            }
            let read = frame_cut_short(&padded);
            assert!(
                read.is_some_and(|(img, w, u)| img == picture && w == CUT_AFTER_THE_PICTURE && u.is_none()),
                "ours {ours}"
            );
        }
    }

    #[test]
    fn a_lossy_webp_cut_after_its_frame_reads_whole_and_other_files_are_left_to_image() {
        let whole = lossy_webp(&stripes(64, 64), true, 80.0);
        let Some(picture) = decoded(io::Cursor::new(&whole)) else { panic!("the whole WebP decodes") };
        assert!(frame_cut_short(&whole).is_none(), "a whole file is read as it is");
        // EXIF flagged and after the frame, as cameras write it: cut in its chunk's header,
        // `image-webp` refuses the file; the frame is read whole.
        let mut with_exif = [&whole[..], b"EXIF", &6u32.to_le_bytes(), b"II*\0\x08\0"].concat();
        let riff_size = u32::try_from(with_exif.len() - 8).unwrap_or_default();
        with_exif[4..8].copy_from_slice(&riff_size.to_le_bytes());
        with_exif[20] |= 0x08;
        assert!(crate::raster::ImageFile::open(&with_exif).page(0).is_ok_and(|p| p.warning.is_none()));
        let cut = &with_exif[..whole.len() + 3];
        assert!(image::load_from_memory(cut).is_err(), "image-webp refuses it");
        let read = frame_cut_short(cut);
        assert!(read.is_some_and(|(img, w, u)| img == picture && w == CUT_AFTER_THE_PICTURE && u.is_none()));
        // Cut in the EXIF chunk's data, it is left to `image-webp`, which reads it.
        assert!(frame_cut_short(&with_exif[..with_exif.len() - 2]).is_none());
        // Cut in its frame's header or first partition, nothing decodes as the file's.
        let simple = lossy_webp(&stripes(64, 64), false, 80.0);
        assert!(frame_cut_short(&simple[..simple.len() - 1]).is_some());
        assert!(frame_cut_short(&simple[..20 + 10 + 2]).is_none());
        assert!(frame_cut_short(b"RIFF\x10\0\0\0WEBPVP8 ").is_none());
        // Nor does a lossless frame cut in its header.
        let lossless = lossless_webp(&stripes(64, 64), false);
        assert!(frame_cut_short(&lossless[..20 + 3]).is_none());
    }
}
