//! TIFF files: the chain of page directories (walked here so that one bad link loses no page
//! before it), and the pages `image` refuses, decoded from the `tiff` crate's tags and strip
//! decoders: Group 3 faxes (compression 2 and 3, decoded with hayro-ccitt), palette colour,
//! YCbCr (raw samples with chroma subsampled included), L*a*b* and old-style JPEG.

use std::io::Cursor;

use image::{DynamicImage, GrayImage, RgbImage};
use tiff::decoder::ifd::Value;
use tiff::decoder::{Decoder, DecodingResult};
use tiff::tags::Tag;

use crate::OcrError;
use crate::det::Area;
use crate::raster::{aspect_of_densities, page_within_limit, shown_aspect, turned};

/// Directories past this many are not followed: a bound on the walk of a hostile file.
const MAX_TIFF_DIRECTORIES: usize = 10_000;

/// `NewSubfileType` bits of a directory that is not a page of its own: a reduced-resolution
/// copy (a thumbnail or pyramid level) or a transparency mask.
const NOT_A_PAGE: u64 = 0b101;

/// The TIFF tag saying what a directory's image is (a page, a thumbnail, a mask).
const NEW_SUBFILE_TYPE: u64 = 254;

/// The TIFF tag saying how a page's samples map to colours.
const PHOTOMETRIC: u64 = 262;

/// The TIFF field type of a fraction: two LONGs, numerator then denominator.
const RATIONAL: u64 = 5;

/// Photometric interpretations of that tag: grey (white or black is zero), RGB, palette,
/// YCbCr, CIE L*a*b* (TIFF 6.0 section 23: a* and b* signed) and ICC L*a*b* (Adobe TIFF
/// Technote 4: a* and b* offset by 128).
const WHITE_IS_ZERO: u32 = 0;
const BLACK_IS_ZERO: u32 = 1;
const RGB: u32 = 2;
const PALETTE: u32 = 3;
const YCBCR: u32 = 6;
const CIELAB: u32 = 8;
const ICCLAB: u32 = 9;

/// TIFF tags the `tiff` crate has no names for: a Group 3 fax's coding options, and a YCbCr
/// page's luma weights and reference black and white.
const T4_OPTIONS: Tag = Tag::Unknown(292);
const YCBCR_COEFFICIENTS: Tag = Tag::Unknown(529);
const REFERENCE_BLACK_WHITE: Tag = Tag::Unknown(532);
/// Where an old-style JPEG page (compression 6, TIFF 6.0 section 22) keeps a whole JPEG
/// stream of itself, when its writer put one there, and that stream's length.
const JPEG_INTERCHANGE_FORMAT: Tag = Tag::Unknown(513);
const JPEG_INTERCHANGE_LENGTH: Tag = Tag::Unknown(514);
/// Where such a page keeps the tables of bare scans (section 22 again): its process (1
/// baseline, 14 lossless), restart interval, and per component the offsets of its
/// quantization table (64 bytes in zigzag order) and of its DC and AC Huffman tables (16
/// code counts, then as many values), as a JPEG stream's DQT and DHT segments hold them.
const JPEG_PROC: Tag = Tag::Unknown(512);
const JPEG_RESTART_INTERVAL: Tag = Tag::Unknown(515);
const JPEG_Q_TABLES: Tag = Tag::Unknown(519);
const JPEG_DC_TABLES: Tag = Tag::Unknown(520);
const JPEG_AC_TABLES: Tag = Tag::Unknown(521);
/// JPEG markers a bare scan is wrapped in.
const SOI: [u8; 2] = [0xFF, 0xD8];
const EOI: [u8; 2] = [0xFF, 0xD9];

/// Where a TIFF page's directory starts, and where its link to the next one lies.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TiffPage {
    directory: u64,
    link: usize,
}

/// How a TIFF lays out its numbers: byte order, and classic (32-bit offsets) or BigTIFF.
#[derive(Clone, Copy)]
pub(crate) struct TiffLayout {
    big_endian: bool,
    big: bool,
}

impl TiffLayout {
    pub(crate) fn of(bytes: &[u8]) -> Option<TiffLayout> {
        match bytes.get(..4)? {
            b"II*\0" => Some(TiffLayout { big_endian: false, big: false }),
            b"MM\0*" => Some(TiffLayout { big_endian: true, big: false }),
            b"II+\0" => Some(TiffLayout { big_endian: false, big: true }),
            b"MM\0+" => Some(TiffLayout { big_endian: true, big: true }),
            _ => None,
        }
    }

    /// Bytes of an offset (the header's, a directory's link, an entry's value).
    fn offset_size(self) -> usize {
        if self.big { 8 } else { 4 }
    }

    /// Where the header keeps the first directory's offset.
    fn first_link(self) -> usize {
        if self.big { 8 } else { 4 }
    }

    /// The unsigned number of `n` bytes at `at`, if the file holds them.
    fn number(self, bytes: &[u8], at: usize, n: usize) -> Option<u64> {
        let b = bytes.get(at..at.checked_add(n)?)?;
        let fold = |v: u64, &x: &u8| v << 8 | u64::from(x);
        Some(if self.big_endian { b.iter().fold(0, fold) } else { b.iter().rev().fold(0, fold) })
    }

    /// Writes `value` as an `n`-byte number at `at`, if the file holds those bytes and the
    /// value fits them (a count past a SHORT's 65,535 is not cut to its low bytes).
    fn write(self, file: &mut [u8], at: usize, n: usize, value: u64) -> Option<()> {
        if n > 8 || value.checked_shr(8 * n as u32).is_some_and(|high| high != 0) {
            return None;
        }
        let bytes = if self.big_endian { value.to_be_bytes() } else { value.to_le_bytes() };
        let bytes = if self.big_endian { &bytes[8 - n..] } else { &bytes[..n] };
        file.get_mut(at..at.checked_add(n)?)?.copy_from_slice(bytes);
        Some(())
    }

    /// A directory's entry count and each entry's size.
    fn entries(self) -> (usize, usize) {
        if self.big { (8, 20) } else { (2, 12) }
    }

    /// Where the entry for `tag` lies among a directory's `entries`.
    fn entry(self, bytes: &[u8], entries: std::ops::Range<usize>, tag: u64) -> Option<usize> {
        let (_, entry_size) = self.entries();
        (entries.start..entries.end.min(bytes.len()))
            .step_by(entry_size)
            .find(|&e| self.number(bytes, e, 2) == Some(tag))
    }

    /// The value field of the entry for `tag` (one SHORT or LONG, at the field's start) among
    /// a directory's `entries`, as where it lies and how many bytes it takes.
    fn small_value(self, bytes: &[u8], entries: std::ops::Range<usize>, tag: u64) -> Option<(usize, usize)> {
        let entry = self.entry(bytes, entries, tag)?;
        let short = self.number(bytes, entry + 2, 2) == Some(3);
        Some((entry + 4 + self.offset_size(), if short { 2 } else { 4 }))
    }

    /// The entry for `tag` among a directory's `entries`: where it lies, its values' size, how
    /// many it has, and where its value field lies.
    fn values_of(self, file: &[u8], entries: std::ops::Range<usize>, tag: u64) -> Option<(usize, u64, u64, usize)> {
        let entry = self.entry(file, entries, tag)?;
        let value_size = match self.number(file, entry + 2, 2)? {
            3 => 2,
            4 => 4,
            16 => 8,
            _ => return None,
        };
        let count = self.number(file, entry + 4, self.offset_size())?;
        Some((entry, value_size, count, entry + 4 + self.offset_size()))
    }

    /// Sets value `index` of the entry for `tag` (SHORT, LONG or LONG8 values), in its field
    /// where they fit it, else where the field points.
    fn set_value(
        self,
        file: &mut [u8],
        entries: std::ops::Range<usize>,
        tag: u64,
        index: usize,
        value: u64,
    ) -> Option<()> {
        let (_, value_size, count, field) = self.values_of(file, entries, tag)?;
        let values = if count.checked_mul(value_size)? <= self.offset_size() as u64 {
            field
        } else {
            usize::try_from(self.number(file, field, self.offset_size())?).ok()?
        };
        let at = values.checked_add(index.checked_mul(value_size as usize)?)?;
        self.write(file, at, value_size as usize, value)
    }

    /// The entry for `tag` among a directory's `entries` cut to its first `count` values: where
    /// they fit the value field once fewer (TIFF keeps values of up to a field's size in it), they
    /// are moved there from where the field pointed.
    fn shorten(self, file: &mut [u8], entries: std::ops::Range<usize>, tag: u64, count: u64) -> Option<()> {
        let (entry, value_size, was, field) = self.values_of(file, entries, tag)?;
        let (was_bytes, bytes) = (was.checked_mul(value_size)?, count.checked_mul(value_size)?);
        let field_size = self.offset_size() as u64;
        if was_bytes > field_size && bytes <= field_size {
            let at = usize::try_from(self.number(file, field, self.offset_size())?).ok()?;
            let values = file.get(at..at.checked_add(bytes as usize)?)?.to_vec();
            let field = file.get_mut(field..field + self.offset_size())?;
            field.fill(0);
            field[..values.len()].copy_from_slice(&values);
        }
        self.write(file, entry + 4, self.offset_size(), count)
    }

    /// The first RATIONAL of the entry for `tag` among a directory's `entries`, where its type
    /// says so: in BigTIFF it fits the value field, in TIFF 6.0 the field points at it.
    fn rational(self, bytes: &[u8], entries: std::ops::Range<usize>, tag: u64) -> Option<f32> {
        let entry = self.entry(bytes, entries, tag)?;
        if self.number(bytes, entry + 2, 2)? != RATIONAL {
            return None;
        }
        let field = entry + 4 + self.offset_size();
        let at = if self.big { field } else { usize::try_from(self.number(bytes, field, 4)?).ok()? };
        let (n, d) = (self.number(bytes, at, 4)?, self.number(bytes, at.checked_add(4)?, 4)?);
        (d > 0).then(|| n as f32 / d as f32)
    }

    /// The byte range of the entries of the file's first directory, if it lies in the file.
    fn first_entries(self, bytes: &[u8]) -> Option<std::ops::Range<usize>> {
        let directory = usize::try_from(self.number(bytes, self.first_link(), self.offset_size())?).ok()?;
        self.entry_range(bytes, directory)
    }

    /// The byte range of the entries of the directory at `directory`, if its count is readable.
    fn entry_range(self, bytes: &[u8], directory: usize) -> Option<std::ops::Range<usize>> {
        let (count_size, entry_size) = self.entries();
        let count = usize::try_from(self.number(bytes, directory, count_size)?).ok()?;
        let first = directory.checked_add(count_size)?;
        Some(first..count.checked_mul(entry_size)?.checked_add(first)?)
    }
}

/// The pages of a TIFF's chain of directories (the TIFF 6.0 and BigTIFF layouts), and why
/// the chain broke off if it did. Walked here rather than by the decoder, which refuses the
/// directory whose link is bad: a page would be lost with its link.
pub(crate) fn tiff_pages(bytes: &[u8], layout: TiffLayout) -> (Vec<TiffPage>, Option<String>) {
    let offset = layout.offset_size();
    let mut pages = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut link = layout.first_link();
    let broken = loop {
        let Some(at) = layout.number(bytes, link, offset) else {
            break Some("a link past the end of the file".to_string());
        };
        if at == 0 {
            break None;
        }
        if !seen.insert(at) {
            break Some("a link back to an earlier directory".to_string());
        }
        if seen.len() > MAX_TIFF_DIRECTORIES {
            break Some("too many directories".to_string());
        }
        // Within the file, as the count was: no overflow.
        let Some(entries) = usize::try_from(at).ok().and_then(|d| layout.entry_range(bytes, d)) else {
            // libtiff writes a page's directory after its pixels: a file cut short ends before.
            break Some(format!(
                "a directory at byte {at}, past the file's end at byte {} (the file was cut short, or its link is wrong)",
                bytes.len()
            ));
        };
        let kind = layout
            .small_value(bytes, entries.clone(), NEW_SUBFILE_TYPE)
            .and_then(|(value, size)| layout.number(bytes, value, size));
        link = entries.end;
        if kind.unwrap_or(0) & NOT_A_PAGE == 0 {
            pages.push(TiffPage { directory: at, link });
        }
    };
    let broken = broken.map(|why| match pages.len() {
        0 => format!("the TIFF has no page directory to read: {why}"),
        n => format!("the TIFF's chain of pages breaks off after page {n}: {why}"),
    });
    (pages, broken)
}

/// A copy of a TIFF whose only directory is `page`'s: `image` decodes a TIFF's first
/// directory, with the colour conversions every page needs.
pub(crate) fn single_page_tiff(bytes: &[u8], layout: TiffLayout, page: TiffPage) -> Option<Vec<u8>> {
    let mut file = bytes.to_vec();
    layout.write(&mut file, layout.first_link(), layout.offset_size(), page.directory)?;
    // A link off the end of the file stays as it is: the decoder stops there too.
    let _ = layout.write(&mut file, page.link, layout.offset_size(), 0);
    Some(file)
}

/// A single-page TIFF (`single_page_tiff`) that `image` refused -> its picture, turned as its
/// orientation tag says, and what of it could not be decoded; `None` when the page is not
/// one of the kinds read here.
pub(crate) fn decode_refused(file: &[u8]) -> Option<Result<(DynamicImage, Option<String>), OcrError>> {
    let layout = TiffLayout::of(file)?;
    let mut decoder = Decoder::new(Cursor::new(file)).ok()?;
    let mut tag = |t: Tag| decoder.find_tag_unsigned::<u32>(t).ok().flatten();
    let compression = tag(Tag::Compression).unwrap_or(1);
    let photometric = tag(Tag::PhotometricInterpretation)?;
    let orientation = tag(Tag::Orientation).and_then(|o| image::metadata::Orientation::from_exif(o as u8));
    let planar = tag(Tag::PlanarConfiguration) == Some(2);
    let grey_alpha = tag(Tag::SamplesPerPixel) == Some(2) && !planar;
    // Read plane by plane (`page_from_its_strips`): the readers below take samples together
    // (an old-style JPEG page's stream holds its own).
    if planar && compression != 6 && matches!(photometric, YCBCR | CIELAB | ICCLAB) {
        return None;
    }
    let page = match (compression, photometric) {
        (2 | 3, 0 | 1) => fax_page(file, &mut decoder),
        // Read as black is zero: `tiff` turns no multi-sample page's white-is-zero grey.
        (_, WHITE_IS_ZERO | BLACK_IS_ZERO) if grey_alpha => match tagged_photometric(file, layout, BLACK_IS_ZERO) {
            Some(grey) => grey_alpha_page(&grey, photometric == WHITE_IS_ZERO),
            None => Err(OcrError::Image("TIFF grey with alpha: its colour interpretation is unreadable".into())),
        },
        (_, PALETTE) => {
            let colormap = decoder.get_tag_u16_vec(Tag::ColorMap).map_err(tiff_error);
            match (colormap, tagged_photometric(file, layout, BLACK_IS_ZERO)) {
                (Ok(colormap), Some(grey)) => palette_page(&grey, &colormap),
                (Err(e), _) => Err(e),
                (_, None) => Err(OcrError::Image("TIFF palette: its colour interpretation is unreadable".into())),
            }
        }
        (6, _) => old_jpeg_page(file, &mut decoder),
        (_, YCBCR) => ycbcr_page(file, &mut decoder),
        (_, CIELAB | ICCLAB) => {
            // Read as the grey or RGB samples they are stored as, then converted.
            let colour = tag(Tag::SamplesPerPixel).unwrap_or(1) >= 3;
            match tagged_photometric(file, layout, if colour { RGB } else { BLACK_IS_ZERO }) {
                Some(samples) => lab_page(&samples, photometric == ICCLAB),
                None => Err(OcrError::Image("TIFF L*a*b*: its colour interpretation is unreadable".into())),
            }
        }
        _ => return None,
    };
    Some(page.map(|(mut image, warning)| {
        if let Some(orientation) = orientation {
            image.apply_orientation(orientation);
        }
        (image, warning)
    }))
}

/// A page as decoded, why part of it could not be, and the rows (turned as the page is) its
/// file ends before.
pub(crate) type PageRead = (DynamicImage, Option<String>, Option<Area>);

/// A single-page TIFF that `image` could not read whole, read again from its strips or tiles,
/// with a warning where rows are lost and where they lie (an area of the page turned):
/// - one whose strips stop short of its page, the file cut after its directory (a writer that
///   puts each page's directory before its strips, as tesseract's phototest.tif and Pillow
///   have it): as far as its leading whole strips go, and the whole rows of the next, stored
///   raw or as far as its LZW, Deflate or PackBits stream goes, the rest white; tiled, its
///   whole rows of tiles. The directory is rewritten to those rows and strips (the next's rows
///   coded again, after the file's end), so that `image` decodes them with every compression,
///   predictor and colour it reads;
/// - a grey or RGB page whose samples are stored in planes apart (which `image` refuses tiled,
///   or grey with an alpha plane), each plane read as a grey page of its own: cut short, in colour
///   the rows every colour plane holds, and under them in grey the rows some hold; an L*a*b* or
///   YCbCr one so (which the readers here refuse), by its lightness or luma plane alone.
///
/// `None` where neither applies, or no row is there.
pub(crate) fn page_from_its_strips(file: &[u8]) -> Option<Result<PageRead, OcrError>> {
    let layout = TiffLayout::of(file)?;
    let entries = layout.first_entries(file)?;
    let mut decoder = Decoder::new(Cursor::new(file)).ok()?;
    let (width, height) = decoder.dimensions().ok()?;
    // The white page the rows are laid on is as large as the directory says.
    if let Err(e) = page_within_limit(width, height) {
        return Some(Err(e));
    }
    let mut tag = |t: Tag| decoder.find_tag_unsigned::<u32>(t).ok().flatten();
    let samples = u64::from(tag(Tag::SamplesPerPixel).unwrap_or(1).max(1));
    let planes = if tag(Tag::PlanarConfiguration) == Some(2) { samples as usize } else { 1 };
    // Pixels stored in strips, or in tiles whose rows are read as strips are.
    let tiles = tag(Tag::TileWidth).zip(tag(Tag::TileLength)).map(|(w, l)| (w.max(1), l.max(1)));
    let (across, unit_rows, tags, unit) = match tiles {
        Some((tile_width, tile_length)) => (
            (width.div_ceil(tile_width) as usize).max(1),
            u64::from(tile_length),
            [Tag::TileOffsets, Tag::TileByteCounts],
            "tile",
        ),
        None => (
            1,
            u64::from(tag(Tag::RowsPerStrip).unwrap_or(height).clamp(1, height.max(1))),
            [Tag::StripOffsets, Tag::StripByteCounts],
            "strip",
        ),
    };
    let orientation = tag(Tag::Orientation).and_then(|o| image::metadata::Orientation::from_exif(o as u8));
    let compression = tag(Tag::Compression).unwrap_or(1);
    let photometric = tag(Tag::PhotometricInterpretation).unwrap_or(BLACK_IS_ZERO);
    let mut list = |t: Tag| decoder.get_tag(t).and_then(|v| v.into_u64_vec()).ok();
    let (offsets, counts, bits) = (list(tags[0])?, list(tags[1])?, list(Tag::BitsPerSample)?);
    let pixel_bits = if bits.len() == 1 { bits[0].saturating_mul(samples) } else { bits.iter().sum() };
    let row_bytes = u64::from(width).saturating_mul(pixel_bits).div_ceil(8).max(1);
    let units: Vec<(u64, u64)> = offsets.into_iter().zip(counts).collect();
    let there = |&&(at, n): &&(u64, u64)| at.checked_add(n).is_some_and(|end| end <= file.len() as u64);
    let present = units.iter().take_while(there).count();
    if !units.len().is_multiple_of(planes) {
        return None;
    }
    let rows_of = |units_down: usize| (units_down as u64 * unit_rows).min(height.into()) as u32;
    let tag_numbers = tags.map(|t| u64::from(t.to_u16()));
    let cut_to = |file: Vec<u8>, rows: u32, kept: &[(u64, u64)]| {
        rows_in_units(file, layout, entries.clone(), tag_numbers, rows, kept)
    };
    // Each cut file holds rows from the page's top, and how far down they reach: the whole
    // page's, or each plane's as a grey page.
    let (parts, rows, reach) = if planes == 1 {
        if present == units.len() {
            return None;
        }
        // Whole strips, or whole rows of tiles.
        let whole = present / across * across;
        // The next strip's rows whole before the file ends: raw, where their bytes are; coded,
        // as far as its stream decodes, coded again as the page's for the decoder.
        let next = units.get(whole).and_then(|&(at, _)| file.get(usize::try_from(at).ok()?..)).unwrap_or_default();
        let next_rows = match tiles {
            Some(_) => Default::default(),
            None => decompressed(next, compression, usize::try_from(unit_rows.saturating_mul(row_bytes)).ok()?)
                .unwrap_or_default(),
        };
        let rows_of_next = (next_rows.len() as u64 / row_bytes).min(unit_rows - 1);
        let (mut kept, mut copy) = (units.get(..whole)?.to_vec(), file.to_vec());
        match (compression, next_rows.get(..(rows_of_next * row_bytes) as usize)) {
            (_, None | Some([])) => {}
            (1, _) => kept.push((units.get(whole)?.0, rows_of_next * row_bytes)),
            (_, Some(rows)) => {
                let recoded = coded(rows, compression)?;
                kept.push((copy.len() as u64, recoded.len() as u64));
                copy.extend(recoded);
            }
        }
        let rows = (u64::from(rows_of(whole / across)) + rows_of_next).min(height.into()) as u32;
        (vec![(rows, cut_to(copy, rows, &kept)?)], rows, rows)
    } else {
        // L*a*b* and YCbCr by their lightness or luma plane alone.
        let colours = match photometric {
            RGB => 3,
            WHITE_IS_ZERO | BLACK_IS_ZERO | YCBCR | CIELAB | ICCLAB => 1,
            _ => return None,
        };
        // Each plane's whole rows of strips or tiles; the planes follow one another.
        let per_plane = units.len() / planes;
        let plane = |p: usize| units.iter().skip(p * per_plane).take(per_plane);
        let plane_rows: Vec<u32> =
            (0..colours.min(planes)).map(|p| rows_of(plane(p).take_while(there).count() / across)).collect();
        let parts = (plane_rows.iter().enumerate())
            .filter(|&(_, &rows)| rows > 0)
            .map(|(p, &rows)| {
                let kept: Vec<_> =
                    plane(p).take(u64::from(rows).div_ceil(unit_rows) as usize * across).copied().collect();
                let cut = cut_to(file.to_vec(), rows, &kept)?;
                Some((rows, one_plane_in_grey(cut, layout, entries.clone(), photometric)?))
            })
            .collect::<Option<Vec<_>>>()?;
        let (rows, reach) = (plane_rows.iter().min(), plane_rows.iter().max());
        (parts, rows.copied().unwrap_or(0), reach.copied().unwrap_or(0))
    };
    if reach == 0 {
        return None;
    }
    let ends = format!("the file ends before its {unit} {} of {} does", present + 1, units.len());
    let lightness = matches!(photometric, YCBCR | CIELAB | ICCLAB)
        .then_some("the TIFF page's colours are stored apart, which is read for its lightness alone: the page is grey");
    let broken = if rows == height {
        None
    } else if rows == reach {
        Some(format!(
            "the TIFF page breaks off after {rows} of its {height} rows ({ends}): the rest of it is read as blank"
        ))
    } else {
        Some(format!(
            "the TIFF page's colours are stored apart and {ends}: {rows} of its {height} rows are read in full \
             colour, rows {rows} to {reach} in grey from the colours that reach them (print in the others may not \
             show){}",
            if reach < height { ", the rest as blank" } else { "" }
        ))
    };
    let warning = match (lightness, broken) {
        (Some(lightness), Some(broken)) => Some(format!("{lightness}; {broken}")),
        (lightness, broken) => broken.or(lightness.map(str::to_string)),
    };
    let page = || -> Result<_, OcrError> {
        let parts = parts
            .iter()
            .map(|(rows, cut)| {
                let part = crate::raster::tiff_page(cut).or_else(|e| decode_refused(cut).unwrap_or(Err(e)));
                Ok((*rows, part?.0))
            })
            .collect::<Result<Vec<_>, OcrError>>()?;
        let mut page = DynamicImage::ImageRgba8(parts_to_page(&parts, (width, height)));
        let orientation = orientation.unwrap_or(image::metadata::Orientation::NoTransforms);
        page.apply_orientation(orientation);
        let unread = Area { x: 0.0, y: reach as f32, w: width as f32, h: (height - reach) as f32 };
        Ok((page, warning, (reach < height).then(|| turned(unread, (width, height), orientation))))
    };
    Some(page())
}

/// A page's parts, each the rows from its top it holds -> the page, white below them: one part
/// as it is, three (red, green and blue planes) in colour where all reach a row, and planes in
/// grey, their mean, where some do.
fn parts_to_page(parts: &[(u32, DynamicImage)], (width, height): (u32, u32)) -> image::RgbaImage {
    let mut page = image::RgbaImage::from_pixel(width, height, image::Rgba([u8::MAX; 4]));
    if let [(_, whole)] = parts {
        image::imageops::replace(&mut page, &whole.to_rgba8(), 0, 0);
        return page;
    }
    let planes: Vec<(u32, GrayImage)> = parts.iter().map(|(rows, plane)| (*rows, plane.to_luma8())).collect();
    for (y, row) in page.enumerate_rows_mut() {
        let reaching: Vec<&GrayImage> =
            planes.iter().filter(|(rows, plane)| y < *rows && y < plane.height()).map(|(_, plane)| plane).collect();
        if reaching.is_empty() {
            continue;
        }
        for (x, _, pixel) in row {
            let at = |plane: &GrayImage| plane.get_pixel_checked(x, y).map_or(u8::MAX, |p| p.0[0]);
            pixel.0 = match reaching[..] {
                [red, green, blue] => [at(red), at(green), at(blue), u8::MAX],
                _ => {
                    let sum = reaching.iter().map(|&plane| u32::from(at(plane))).sum::<u32>();
                    let grey = (sum / reaching.len() as u32) as u8;
                    [grey, grey, grey, u8::MAX]
                }
            };
        }
    }
    page
}

/// Whether a single-page TIFF stores its samples in planes apart, in tiles.
pub(crate) fn planes_in_tiles(file: &[u8]) -> bool {
    let Ok(mut decoder) = Decoder::new(Cursor::new(file)) else { return false };
    let mut tag = |t: Tag| decoder.find_tag_unsigned::<u32>(t).ok().flatten();
    tag(Tag::PlanarConfiguration) == Some(2)
        && tag(Tag::SamplesPerPixel).unwrap_or(1) > 1
        && tag(Tag::TileWidth).is_some()
}

/// A copy of a page's `file` whose directory holds its top `rows` in `kept` (each strip's or
/// tile's offset and byte count, in the directory's order) under the tags of its `offsets`
/// and `counts` lists, upright: the rows kept are the stored page's top, turned once the page
/// is whole.
fn rows_in_units(
    mut file: Vec<u8>,
    layout: TiffLayout,
    entries: std::ops::Range<usize>,
    [offsets, counts]: [u64; 2],
    rows: u32,
    kept: &[(u64, u64)],
) -> Option<Vec<u8>> {
    let (at, size) = layout.small_value(&file, entries.clone(), u64::from(Tag::ImageLength.to_u16()))?;
    layout.write(&mut file, at, size, rows.into())?;
    layout.shorten(&mut file, entries.clone(), offsets, kept.len() as u64)?;
    layout.shorten(&mut file, entries.clone(), counts, kept.len() as u64)?;
    for (i, &(at, n)) in kept.iter().enumerate() {
        layout.set_value(&mut file, entries.clone(), offsets, i, at)?;
        layout.set_value(&mut file, entries.clone(), counts, i, n)?;
    }
    if let Some((at, size)) = layout.small_value(&file, entries, u64::from(Tag::Orientation.to_u16())) {
        layout.write(&mut file, at, size, 1)?;
    }
    Some(file)
}

/// A page's file cut to one of its planes (`rows_in_units`) -> that plane as a grey page: one
/// sample a pixel, no extra samples, its values as the plane's `photometric` has them (white is
/// zero, or black, for a colour's or a luma's plane).
fn one_plane_in_grey(
    mut file: Vec<u8>,
    layout: TiffLayout,
    entries: std::ops::Range<usize>,
    photometric: u32,
) -> Option<Vec<u8>> {
    let grey = if photometric == WHITE_IS_ZERO { WHITE_IS_ZERO } else { BLACK_IS_ZERO };
    for (tag, value) in
        [(Tag::SamplesPerPixel, 1), (Tag::PlanarConfiguration, 1), (Tag::PhotometricInterpretation, grey)]
    {
        let (at, size) = layout.small_value(&file, entries.clone(), u64::from(tag.to_u16()))?;
        layout.write(&mut file, at, size, value.into())?;
    }
    // A value per sample becomes the one sample's; extra samples (alpha) go.
    for (tag, count) in [(Tag::BitsPerSample, 1), (Tag::SampleFormat, 1), (Tag::ExtraSamples, 0)] {
        let number = u64::from(tag.to_u16());
        if layout.entry(&file, entries.clone(), number).is_some() {
            layout.shorten(&mut file, entries.clone(), number, count)?;
        }
    }
    Some(file)
}

/// A single-page TIFF's pixel shape as shown: how much taller than wide its pixel is, from
/// its resolutions across and down (TIFF 6.0's XResolution and YResolution, rationals),
/// turned as its orientation tag says. `None` where either is missing or unreadable.
pub(crate) fn tiff_pixel_aspect(file: &[u8]) -> Option<f32> {
    let mut decoder = Decoder::new(Cursor::new(file)).ok()?;
    // BigTIFF keeps these as the same 32-bit rationals.
    let mut resolution = |tag: Tag| match decoder.find_tag(tag).ok()?? {
        Value::Rational(n, d) => Some(n as f32 / d as f32),
        _ => None,
    };
    let (across, down) = (resolution(Tag::XResolution)?, resolution(Tag::YResolution)?);
    let aspect = aspect_of_densities(across, down)?;
    let orientation = decoder.find_tag_unsigned::<u32>(Tag::Orientation).ok().flatten();
    let orientation = orientation.and_then(|o| image::metadata::Orientation::from_exif(u8::try_from(o).ok()?));
    Some(orientation.map_or(aspect, |o| shown_aspect(aspect, o)))
}

/// A picture's stored pixel shape from its EXIF block (a TIFF header and first directory, as
/// a JPEG's APP1 segment holds them): its XResolution over its YResolution.
pub(crate) fn exif_pixel_aspect(exif: &[u8]) -> Option<f32> {
    let layout = TiffLayout::of(exif)?;
    let entries = layout.first_entries(exif)?;
    let resolution = |tag: Tag| layout.rational(exif, entries.clone(), u64::from(tag.to_u16()));
    aspect_of_densities(resolution(Tag::XResolution)?, resolution(Tag::YResolution)?)
}

/// A copy of the file with its first page's photometric tag set to `value`: a palette page's
/// indices then decode as grey samples, an L*a*b* page's as grey or RGB ones, which `tiff`
/// reads with every compression and predictor.
fn tagged_photometric(file: &[u8], layout: TiffLayout, value: u32) -> Option<Vec<u8>> {
    let (at, size) = layout.small_value(file, layout.first_entries(file)?, PHOTOMETRIC)?;
    let mut copy = file.to_vec();
    layout.write(&mut copy, at, size, value.into())?;
    Some(copy)
}

fn tiff_error(e: tiff::TiffError) -> OcrError {
    OcrError::Image(format!("TIFF: {e}"))
}

/// The page's width and height, refused when empty or past `MAX_PAGE_PIXELS`.
fn page_size(decoder: &mut Decoder<Cursor<&[u8]>>) -> Result<(u32, u32), OcrError> {
    let (w, h) = decoder.dimensions().map_err(tiff_error)?;
    if w == 0 || h == 0 {
        return Err(OcrError::Image(format!("TIFF: a {w}×{h} page is empty")));
    }
    page_within_limit(w, h)?;
    Ok((w, h))
}

/// How a TIFF page's Group 3 fax strips are coded (TIFF 6.0 sections 10 and 11).
#[derive(Clone, Copy, Debug)]
struct Fax {
    width: u32,
    height: u32,
    rows_per_strip: u32,
    /// Compression 2 (modified Huffman): one-dimensional, no EOL codes, each row starting on
    /// a byte.
    modified_huffman: bool,
    /// T4Options bit 0: rows may be coded two-dimensionally.
    two_d: bool,
    /// T4Options bit 2: fill bits end each EOL code on a byte boundary.
    byte_aligned: bool,
    /// FillOrder 2: a byte's first pixel is its lowest bit.
    lsb_first: bool,
    /// Photometric 1 (BlackIsZero): the runs coded white are the dark ones.
    inverted: bool,
}

fn fax_page(file: &[u8], decoder: &mut Decoder<Cursor<&[u8]>>) -> Result<(DynamicImage, Option<String>), OcrError> {
    let (width, height) = page_size(decoder)?;
    let mut tag = |t: Tag| decoder.find_tag_unsigned::<u32>(t).ok().flatten();
    let t4_options = tag(T4_OPTIONS).unwrap_or(0);
    let fax = Fax {
        width,
        height,
        rows_per_strip: tag(Tag::RowsPerStrip).unwrap_or(height).clamp(1, height),
        modified_huffman: tag(Tag::Compression) == Some(2),
        two_d: t4_options & 1 != 0,
        byte_aligned: t4_options & 4 != 0,
        lsb_first: tag(Tag::FillOrder) == Some(2),
        inverted: tag(Tag::PhotometricInterpretation) == Some(1),
    };
    let (image, warning) = fax_strips_to_pixels(&strips(file, decoder)?, fax);
    Ok((DynamicImage::ImageLuma8(image), warning))
}

/// An old-style JPEG page, read as its writers laid it out: a whole JPEG stream where
/// JPEGInterchangeFormat points, or strips stacked, each a whole JPEG stream or a bare scan
/// that the tables the page's tags point to make one (`ScanHeader`).
fn old_jpeg_page(
    file: &[u8],
    decoder: &mut Decoder<Cursor<&[u8]>>,
) -> Result<(DynamicImage, Option<String>), OcrError> {
    let (width, height) = page_size(decoder)?;
    let mut tag = |t: Tag| decoder.find_tag_unsigned::<u64>(t).ok().flatten();
    let rows_per_strip = tag(Tag::RowsPerStrip).map_or(height, |r| r.clamp(1, u64::from(height)) as u32);
    let interchange = tag(JPEG_INTERCHANGE_FORMAT).and_then(|at| {
        let start = usize::try_from(at).ok()?;
        let end = tag(JPEG_INTERCHANGE_LENGTH).and_then(|n| usize::try_from(at.checked_add(n)?).ok());
        file.get(start..end.unwrap_or(file.len()).min(file.len()))
    });
    let whole = |jpeg: &[u8]| {
        let mut decoder = image::codecs::jpeg::JpegDecoder::new(Cursor::new(jpeg)).ok()?;
        image::ImageDecoder::set_limits(&mut decoder, image::Limits::default()).ok()?;
        image::DynamicImage::from_decoder(decoder).ok().map(|img| img.to_rgb8())
    };
    if let Some(img) = interchange.and_then(whole).filter(|img| img.dimensions() == (width, height)) {
        return Ok((DynamicImage::ImageRgb8(img), None));
    }
    let refused =
        || OcrError::Image("TIFF old-style JPEG: a strip is neither a JPEG stream nor a scan its tables decode".into());
    // Asked of bare scans only: pages of whole streams do not need their tables.
    let header = ScanHeader::of(file, decoder);
    let strips = strips(file, decoder).map_err(|_| refused())?;
    let mut page = RgbImage::from_pixel(width, height, image::Rgb([255; 3]));
    let mut top = 0;
    for strip in strips {
        let rows = rows_per_strip.min(height.saturating_sub(top)).max(1);
        let img = match (strip, &header) {
            (Some(s), _) if s.starts_with(&SOI) => whole(s),
            (Some(scan), Ok(Some(header))) => header.stream(width, rows, scan).and_then(|s| whole(&s)),
            (Some(_), Err(why)) => return Err(OcrError::Image(format!("TIFF old-style JPEG: {why}"))),
            _ => None,
        };
        let img = img.ok_or_else(refused)?;
        if img.width() != width || top + img.height() > height {
            return Err(refused());
        }
        image::imageops::replace(&mut page, &img, 0, i64::from(top));
        top += img.height();
    }
    let warning = (top < height).then(|| format!("the JPEG strips end at row {top} of {height}; the rest is blank"));
    Ok((DynamicImage::ImageRgb8(page), warning))
}

/// What makes an old-style JPEG page's bare scan a whole JPEG stream: the DQT and DHT
/// segments built from the tables its tags point to (component i using the tables numbered
/// i), a DRI segment for its restart interval, an Adobe segment saying RGB where the
/// components are not YCbCr; and each component's sampling factors.
struct ScanHeader {
    segments: Vec<u8>,
    sampling: Vec<u8>,
}

impl ScanHeader {
    /// None when the page's tags point to no tables; why not, when they cannot make a stream.
    fn of(file: &[u8], decoder: &mut Decoder<Cursor<&[u8]>>) -> Result<Option<ScanHeader>, String> {
        let mut offsets = |t: Tag| decoder.get_tag(t).and_then(|v| v.into_u64_vec()).ok();
        let (Some(q), Some(dc), Some(ac)) = (offsets(JPEG_Q_TABLES), offsets(JPEG_DC_TABLES), offsets(JPEG_AC_TABLES))
        else {
            return Ok(None);
        };
        let mut tag = |t: Tag| decoder.find_tag_unsigned::<u32>(t).ok().flatten();
        if tag(JPEG_PROC).unwrap_or(1) != 1 {
            return Err("only the baseline process is read, not lossless".into());
        }
        let photometric = tag(Tag::PhotometricInterpretation).unwrap_or(YCBCR);
        let restart = tag(JPEG_RESTART_INTERVAL).unwrap_or(0);
        let components = match tag(Tag::SamplesPerPixel).unwrap_or(1) {
            n @ (1 | 3) => n as usize,
            n => return Err(format!("{n} components are not read")),
        };
        let luma = match decoder.get_tag_u16_vec(Tag::ChromaSubsampling).ok().as_deref() {
            _ if components == 1 || photometric != YCBCR => 0x11,
            None => 0x22,
            Some(&[h @ (1 | 2 | 4), v @ (1 | 2 | 4)]) => (h << 4 | v) as u8,
            Some(other) => return Err(format!("chroma subsampled {other:?} is not read")),
        };
        let mut segments = Vec::new();
        for i in 0..components {
            // One offset per component; a shorter list is taken to share its last table.
            let table = |list: &[u64], fixed: usize| -> Option<&[u8]> {
                let at = usize::try_from(*list.get(i).or(list.last())?).ok()?;
                let counted = if fixed == 16 {
                    file.get(at..at.checked_add(16)?)?.iter().map(|&c| usize::from(c)).sum::<usize>()
                } else {
                    0
                };
                file.get(at..at.checked_add(fixed + counted)?)
            };
            let id = i as u8;
            let missing = || "its tables lie outside the file".to_string();
            segment(&mut segments, 0xDB, &[&[id], table(&q, 64).ok_or_else(missing)?]);
            segment(&mut segments, 0xC4, &[&[id], table(&dc, 16).ok_or_else(missing)?]);
            segment(&mut segments, 0xC4, &[&[0x10 | id], table(&ac, 16).ok_or_else(missing)?]);
        }
        if let Ok(interval @ 1..) = u16::try_from(restart) {
            segment(&mut segments, 0xDD, &[&interval.to_be_bytes()]);
        }
        if components == 3 && photometric != YCBCR {
            // Adobe's APP14: version 100, no flags, transform 0 (the components are RGB).
            segment(&mut segments, 0xEE, &[b"Adobe", &[0, 100, 0, 0, 0, 0, 0]]);
        }
        let mut sampling = vec![0x11; components];
        sampling[0] = luma;
        Ok(Some(ScanHeader { segments, sampling }))
    }

    /// A whole baseline JPEG stream of `scan`, a strip `rows` high; None past JPEG's sizes.
    fn stream(&self, width: u32, rows: u32, scan: &[u8]) -> Option<Vec<u8>> {
        let (w, h) = (u16::try_from(width).ok()?, u16::try_from(rows).ok()?);
        let n = self.sampling.len() as u8;
        let mut frame = vec![8];
        frame.extend(h.to_be_bytes());
        frame.extend(w.to_be_bytes());
        frame.push(n);
        let mut scan_header = vec![n];
        for (id, &hv) in (0..n).zip(&self.sampling) {
            frame.extend([id + 1, hv, id]);
            scan_header.extend([id + 1, id << 4 | id]);
        }
        scan_header.extend([0, 63, 0]);
        let mut out = SOI.to_vec();
        out.extend(&self.segments);
        segment(&mut out, 0xC0, &[&frame]);
        segment(&mut out, 0xDA, &[&scan_header]);
        out.extend(scan);
        out.extend(EOI);
        Some(out)
    }
}

/// Appends a JPEG marker segment: the marker, its length, its parts.
fn segment(out: &mut Vec<u8>, marker: u8, parts: &[&[u8]]) {
    let len = 2 + parts.iter().map(|p| p.len()).sum::<usize>();
    out.extend([0xFF, marker]);
    out.extend((len as u16).to_be_bytes());
    for part in parts {
        out.extend_from_slice(part);
    }
}

/// A page's strips, each `None` where its bytes lie outside the file.
fn strips<'f>(file: &'f [u8], decoder: &mut Decoder<Cursor<&[u8]>>) -> Result<Vec<Option<&'f [u8]>>, OcrError> {
    let strip_list = |d: &mut Decoder<Cursor<&[u8]>>, t: Tag| {
        d.get_tag(t).and_then(|v| v.into_u64_vec()).map_err(|_| OcrError::Image(format!("TIFF: no {t:?}")))
    };
    let offsets = strip_list(decoder, Tag::StripOffsets)?;
    let counts = strip_list(decoder, Tag::StripByteCounts)?;
    Ok(offsets
        .iter()
        .zip(&counts)
        .map(|(&at, &n)| {
            let start = usize::try_from(at).ok()?;
            let end = usize::try_from(at.checked_add(n)?).ok()?.min(file.len());
            file.get(start..end)
        })
        .collect())
}

/// Receives a strip's decoded rows as runs and paints them into the page.
struct FaxRows<'a> {
    pixels: &'a mut [u8],
    width: usize,
    /// Rows of the strip still to come, and the next one's offset in `pixels`.
    left: usize,
    at: usize,
    ink: u8,
}

impl hayro_ccitt::Decoder for FaxRows<'_> {
    fn push_row(&mut self, changes: &[u32]) {
        if self.left == 0 {
            return;
        }
        let row = &mut self.pixels[self.at..self.at + self.width];
        // Rows start white; each pair of changes bounds a black run (an odd last one runs to
        // the row's end).
        for run in changes.chunks(2) {
            let start = (run[0] as usize).min(self.width);
            let end = run.get(1).map_or(self.width, |&e| (e as usize).min(self.width));
            row[start..end.max(start)].fill(self.ink);
        }
        self.left -= 1;
        self.at += self.width;
    }
}

/// A Group 3 fax page's strips (absent where their bytes lie outside the file) -> its grey
/// pixels. Rows a damaged strip does not give stay white, and the warning says how many.
fn fax_strips_to_pixels(strips: &[Option<&[u8]>], fax: Fax) -> (GrayImage, Option<String>) {
    use hayro_ccitt::{DecodeSettings, DecoderContext, EncodingMode};
    let (paper, ink) = if fax.inverted { (0, 255) } else { (255, 0) };
    let (width, height) = (fax.width as usize, fax.height as usize);
    let mut pixels = vec![paper; width * height];
    let mut lost = 0usize;
    let mut first_problem = None;
    for (i, chunk) in pixels.chunks_mut(width * fax.rows_per_strip as usize).enumerate() {
        let rows = chunk.len() / width;
        let mut sink = FaxRows { pixels: chunk, width, left: rows, at: 0, ink };
        let settings = DecodeSettings {
            columns: fax.width,
            rows: rows as u32,
            end_of_block: !fax.modified_huffman,
            end_of_line: !fax.modified_huffman,
            rows_are_byte_aligned: fax.modified_huffman || fax.byte_aligned,
            encoding: match (fax.modified_huffman, fax.two_d) {
                (false, true) => EncodingMode::Group3_2D,
                _ => EncodingMode::Group3_1D,
            },
            strict: false,
        };
        let problem = match strips.get(i).copied().flatten() {
            None => Some("its bytes lie outside the file".to_string()),
            Some(data) => {
                let reversed: Vec<u8>;
                let data = if fax.lsb_first {
                    reversed = data.iter().map(|b| b.reverse_bits()).collect();
                    &reversed[..]
                } else {
                    data
                };
                let result = hayro_ccitt::decode(data, &mut sink, &mut DecoderContext::new(settings));
                result.err().map(|e| format!("{e:?}")).or_else(|| (sink.left > 0).then(|| "its data ends early".into()))
            }
        };
        if let Some(problem) = problem {
            lost += sink.left;
            first_problem.get_or_insert(format!("strip {}: {problem}", i + 1));
        }
    }
    let warning = first_problem
        .map(|why| format!("{lost} of the fax page's {height} rows could not be decoded and are left blank ({why})"));
    // Sizes checked by `page_size`: the buffer is exactly width×height.
    let image = GrayImage::from_raw(fax.width, fax.height, pixels).unwrap_or_default();
    (image, warning)
}

/// A palette-colour page whose photometric tag now reads grey -> RGB through `colormap`.
fn palette_page(file: &[u8], colormap: &[u16]) -> Result<(DynamicImage, Option<String>), OcrError> {
    let mut decoder = Decoder::new(Cursor::new(file)).map_err(tiff_error)?;
    let (width, height) = page_size(&mut decoder)?;
    let bits = decoder.find_tag_unsigned::<u32>(Tag::BitsPerSample).ok().flatten().unwrap_or(1);
    let indices = match decoder.read_image().map_err(tiff_error)? {
        DecodingResult::U8(bytes) => unpack_samples(&bytes, bits, width as usize),
        DecodingResult::U16(words) => words,
        _ => return Err(OcrError::Image(format!("TIFF palette: {bits}-bit indices are not read"))),
    };
    let rgb = indices_to_rgb(&indices, colormap);
    let image = RgbImage::from_raw(width, height, rgb)
        .ok_or_else(|| OcrError::Image("TIFF palette: fewer pixels than the page holds".into()))?;
    Ok((DynamicImage::ImageRgb8(image), None))
}

/// A grey page with an alpha sample (transparency, a mask), which `image` refuses -> its grey
/// and alpha, 8 or 16 bits a sample.
fn grey_alpha_page(file: &[u8], white_is_zero: bool) -> Result<(DynamicImage, Option<String>), OcrError> {
    let mut decoder = Decoder::new(Cursor::new(file)).map_err(tiff_error)?;
    let (width, height) = page_size(&mut decoder)?;
    let short = || OcrError::Image("TIFF grey with alpha: fewer pixels than the page holds".into());
    let image = match decoder.read_image().map_err(tiff_error)? {
        DecodingResult::U8(mut samples) => {
            if white_is_zero {
                samples.iter_mut().step_by(2).for_each(|v| *v = u8::MAX - *v);
            }
            DynamicImage::ImageLumaA8(image::GrayAlphaImage::from_raw(width, height, samples).ok_or_else(short)?)
        }
        DecodingResult::U16(mut samples) => {
            if white_is_zero {
                samples.iter_mut().step_by(2).for_each(|v| *v = u16::MAX - *v);
            }
            DynamicImage::ImageLumaA16(image::ImageBuffer::from_raw(width, height, samples).ok_or_else(short)?)
        }
        _ => {
            return Err(OcrError::Image(
                "TIFF grey with alpha: samples of other than 8 or 16 bits are not read".into(),
            ));
        }
    };
    Ok((image, None))
}

/// Rows of `bits`-bit samples packed into bytes (each row starting on a byte, first sample in
/// the highest bits) -> one number per sample.
fn unpack_samples(bytes: &[u8], bits: u32, width: usize) -> Vec<u16> {
    if !matches!(bits, 1 | 2 | 4) {
        return bytes.iter().map(|&b| u16::from(b)).collect();
    }
    let per_byte = 8 / bits as usize;
    let mask = (1u8 << bits) - 1;
    bytes
        .chunks(width.div_ceil(per_byte).max(1))
        .flat_map(|row| {
            let samples =
                row.iter().flat_map(move |&b| (0..per_byte).map(move |k| (b >> (8 - bits as usize * (k + 1))) & mask));
            samples.take(width).map(u16::from)
        })
        .collect()
}

/// Palette indices -> RGB through a TIFF colour map (all reds, then all greens, then all
/// blues, 16 bits each); an index past the map is black.
fn indices_to_rgb(indices: &[u16], colormap: &[u16]) -> Vec<u8> {
    let n = colormap.len() / 3;
    let channel = |c: usize, i: usize| colormap.get(c * n + i).map_or(0, |&v| (v >> 8) as u8);
    indices
        .iter()
        .flat_map(|&i| {
            let i = i as usize;
            if i < n { [channel(0, i), channel(1, i), channel(2, i)] } else { [0; 3] }
        })
        .collect()
}

/// The luma weights of red, green and blue that YCbCr pages use unless tagged otherwise
/// (TIFF 6.0, YCbCrCoefficients: ITU-R BT.601).
const BT601_LUMA: [f32; 3] = [0.299, 0.587, 0.114];

/// The codes of black and white for Y, Cb and Cr unless tagged otherwise (TIFF 6.0,
/// ReferenceBlackWhite for YCbCr: full-range JPEG-style samples).
const YCBCR_REFERENCE: [f32; 6] = [0.0, 255.0, 128.0, 255.0, 128.0, 255.0];

fn ycbcr_page(file: &[u8], decoder: &mut Decoder<Cursor<&[u8]>>) -> Result<(DynamicImage, Option<String>), OcrError> {
    let (width, height) = page_size(decoder)?;
    let mut rationals = |tag: Tag| decoder.get_tag(tag).ok().and_then(rationals_of);
    let luma = rationals(YCBCR_COEFFICIENTS).and_then(|v| v.try_into().ok()).unwrap_or(BT601_LUMA);
    let reference = rationals(REFERENCE_BLACK_WHITE).and_then(|v| v.try_into().ok()).unwrap_or(YCBCR_REFERENCE);
    let mut tag = |t: Tag| decoder.find_tag_unsigned::<u32>(t).ok().flatten();
    let compression = tag(Tag::Compression).unwrap_or(1);
    let rows_per_strip = tag(Tag::RowsPerStrip).unwrap_or(height).clamp(1, height);
    let predictor = tag(Tag::Predictor).unwrap_or(1);
    let subsampling = decoder.get_tag_u16_vec(Tag::ChromaSubsampling).ok();
    let (samples, warning) = match subsampling.as_deref().unwrap_or(&[2, 2]) {
        // `tiff` reads raw samples of one chroma pair per pixel, and JPEG-coded pages
        // (compression 7) of any subsampling (the JPEG decoder upsamples); it refuses raw
        // subsampled samples.
        unit if unit == [1, 1] || compression == 7 => (decoder.read_image().map_err(tiff_error)?, None),
        &[h @ (1 | 2 | 4), v @ (1 | 2 | 4)] if v <= h && predictor == 1 => {
            let units = YcbcrUnits {
                width: width as usize,
                height: height as usize,
                rows_per_strip: rows_per_strip as usize,
                h: h.into(),
                v: v.into(),
            };
            let coded = strips(file, decoder)?;
            let sizes = (0..coded.len()).map(|s| units.strip_bytes(s));
            let strips = coded
                .iter()
                .zip(sizes)
                .map(|(strip, size)| strip.map(|s| decompressed(s, compression, size)).transpose())
                .collect::<Result<Vec<_>, _>>()?;
            let strips: Vec<Option<&[u8]>> = strips.iter().map(Option::as_deref).collect();
            let (samples, warning) = units_to_samples(&strips, units);
            (DecodingResult::U8(samples), warning)
        }
        other => {
            let predictor = if predictor == 1 { "" } else { " and a predictor" };
            return Err(OcrError::Image(format!(
                "TIFF YCbCr: chroma subsampled {other:?} with compression {compression}{predictor} is not read"
            )));
        }
    };
    let DecodingResult::U8(samples) = samples else {
        return Err(OcrError::Image("TIFF YCbCr: only 8-bit samples are read".into()));
    };
    let image = RgbImage::from_raw(width, height, ycbcr_to_rgb(&samples, luma, reference))
        .ok_or_else(|| OcrError::Image("TIFF YCbCr: fewer pixels than the page holds".into()))?;
    Ok((DynamicImage::ImageRgb8(image), warning))
}

/// How a raw YCbCr page with subsampled chroma lays out its samples (TIFF 6.0 section 21):
/// data units of h × v luma samples, row by row, then one Cb and one Cr; units left to right
/// across the page (its width rounded up to h), strips of `rows_per_strip` rows.
#[derive(Clone, Copy, Debug)]
struct YcbcrUnits {
    width: usize,
    height: usize,
    rows_per_strip: usize,
    h: usize,
    v: usize,
}

impl YcbcrUnits {
    /// The bytes of strip `s` (the last may hold fewer rows).
    fn strip_bytes(&self, s: usize) -> usize {
        let rows = self.rows_per_strip.min(self.height.saturating_sub(s * self.rows_per_strip));
        rows.div_ceil(self.v) * self.width.div_ceil(self.h) * (self.h * self.v + 2)
    }
}

/// A strip's bytes as stored (compression 1), or decompressed — LZW (5), Deflate (8 and
/// 32946) or PackBits (32773) — up to `size` bytes, the strip's whole; a stream that breaks
/// off gives what came before (the rows past it are then left blank).
fn decompressed(strip: &[u8], compression: u32, size: usize) -> Result<std::borrow::Cow<'_, [u8]>, OcrError> {
    let mut out = vec![0; size];
    let len = match compression {
        1 => return Ok(std::borrow::Cow::Borrowed(strip)),
        5 => {
            let mut lzw = weezl::decode::Decoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8);
            let (mut read, mut written) = (0, 0);
            loop {
                let step = lzw.decode_bytes(&strip[read..], &mut out[written..]);
                (read, written) = (read + step.consumed_in, written + step.consumed_out);
                match step.status {
                    Ok(weezl::LzwStatus::Ok) if written < size && step.consumed_in + step.consumed_out > 0 => {}
                    _ => break written,
                }
            }
        }
        8 | 32946 => {
            let mut inflate = flate2::Decompress::new(true);
            let _ = inflate.decompress(strip, &mut out, flate2::FlushDecompress::Finish);
            inflate.total_out() as usize
        }
        32773 => unpack_bits(strip, &mut out),
        other => {
            return Err(OcrError::Image(format!("TIFF YCbCr: chroma subsampled with compression {other} is not read")));
        }
    };
    out.truncate(len);
    Ok(std::borrow::Cow::Owned(out))
}

/// `rows` coded as `compression` says — LZW (5), Deflate (8 and 32946) or PackBits (32773),
/// as `decompressed` reads them — so that a decoder reads them as the page's other strips;
/// `None` for other compressions.
fn coded(rows: &[u8], compression: u32) -> Option<Vec<u8>> {
    match compression {
        5 => weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8).encode(rows).ok(),
        8 | 32946 => {
            let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut zlib, rows).ok()?;
            zlib.finish().ok()
        }
        // Literal runs of up to 128 bytes, each after its length less one.
        32773 => Some(
            rows.chunks(128).flat_map(|run| [run.len() as u8 - 1].into_iter().chain(run.iter().copied())).collect(),
        ),
        _ => None,
    }
}

/// PackBits (Apple's run-length coding, TIFF 6.0 section 9) into `out`: how many bytes came.
fn unpack_bits(mut coded: &[u8], out: &mut [u8]) -> usize {
    let mut written = 0;
    while let [header, rest @ ..] = coded
        && written < out.len()
    {
        let room = out.len() - written;
        coded = match *header as i8 {
            n @ 0.. => {
                let n = (usize::from(n as u8) + 1).min(rest.len()).min(room);
                out[written..written + n].copy_from_slice(&rest[..n]);
                written += n;
                &rest[n..]
            }
            -128 => rest,
            n => {
                let Some((&byte, rest)) = rest.split_first() else { break };
                let n = (1 - isize::from(n)).unsigned_abs().min(room);
                out[written..written + n].fill(byte);
                written += n;
                rest
            }
        };
    }
    written
}

/// Raw subsampled YCbCr strips -> one Y, Cb, Cr triple per pixel, each unit's chroma on all
/// its pixels. Rows whose strip is missing or cut short are left white, with a warning.
fn units_to_samples(strips: &[Option<&[u8]>], u: YcbcrUnits) -> (Vec<u8>, Option<String>) {
    let mut samples = [u8::MAX, 128, 128].repeat(u.width * u.height);
    let (across, unit_bytes) = (u.width.div_ceil(u.h), u.h * u.v + 2);
    let mut blank_rows = 0;
    for (s, top) in (0..u.height).step_by(u.rows_per_strip).enumerate() {
        let strip = strips.get(s).copied().flatten().unwrap_or_default();
        let rows = u.rows_per_strip.min(u.height - top);
        for (r, unit_row) in (top..top + rows).step_by(u.v).enumerate() {
            let row_bytes = strip.get(r * across * unit_bytes..).unwrap_or_default();
            for (c, unit) in row_bytes.chunks_exact(unit_bytes).take(across).enumerate() {
                let (lumas, chroma) = unit.split_at(u.h * u.v);
                for (i, &y) in lumas.iter().enumerate() {
                    let (row, col) = (unit_row + i / u.h, c * u.h + i % u.h);
                    if row < top + rows && col < u.width {
                        samples[(row * u.width + col) * 3..][..3].copy_from_slice(&[y, chroma[0], chroma[1]]);
                    }
                }
            }
            if row_bytes.len() < across * unit_bytes {
                blank_rows += u.v.min(top + rows - unit_row);
            }
        }
    }
    let warning = (blank_rows > 0).then(|| {
        format!("{blank_rows} of the YCbCr page's {} rows are missing from its strips and are left blank", u.height)
    });
    (samples, warning)
}

/// The white of L*a*b* pages, CIE D65 (X, Z; Y is 1): the sRGB display's own, so that paper
/// (L* 100, no a* or b*) comes out white.
const LAB_WHITE: [f32; 2] = [0.950_47, 1.088_83];

/// An L*a*b* page whose photometric tag now reads grey or RGB -> sRGB. `offset`: a* and b*
/// stored plus half their range (ICC L*a*b*), else signed (CIE L*a*b*). 8-bit samples hold
/// L* over 255 and a*, b* in units; 16-bit ones L* over 65,535 and a*, b* in 256ths (TIFF 6.0
/// section 23; Adobe TIFF Technote 4).
fn lab_page(file: &[u8], offset: bool) -> Result<(DynamicImage, Option<String>), OcrError> {
    let mut decoder = Decoder::new(Cursor::new(file)).map_err(tiff_error)?;
    let (width, height) = page_size(&mut decoder)?;
    let channels = match decoder.colortype().map_err(tiff_error)? {
        tiff::ColorType::Gray(8 | 16) => 1,
        tiff::ColorType::RGB(8 | 16) => 3,
        tiff::ColorType::RGBA(8 | 16) => 4,
        other => return Err(OcrError::Image(format!("TIFF L*a*b*: {other:?} samples are not read"))),
    };
    let rgb = match decoder.read_image().map_err(tiff_error)? {
        DecodingResult::U8(samples) => lab_samples_to_srgb(
            &samples,
            channels,
            |v| f32::from(v) * 100.0 / 255.0,
            |v| {
                if offset { f32::from(v) - 128.0 } else { f32::from(v as i8) }
            },
        ),
        DecodingResult::U16(samples) => lab_samples_to_srgb(
            &samples,
            channels,
            |v| f32::from(v) * 100.0 / 65_535.0,
            |v| {
                if offset { f32::from(v) / 256.0 - 128.0 } else { f32::from(v as i16) / 256.0 }
            },
        ),
        _ => return Err(OcrError::Image("TIFF L*a*b*: only 8- and 16-bit samples are read".into())),
    };
    let image = RgbImage::from_raw(width, height, rgb)
        .ok_or_else(|| OcrError::Image("TIFF L*a*b*: fewer pixels than the page holds".into()))?;
    Ok((DynamicImage::ImageRgb8(image), None))
}

/// L*a*b* samples, `channels` a pixel (L* alone, or L*, a*, b* and any extra) -> sRGB bytes;
/// `lightness` and `chroma` read one sample as L* and as a* or b*.
fn lab_samples_to_srgb<T: Copy + Into<u32>>(
    samples: &[T],
    channels: usize,
    lightness: impl Fn(T) -> f32,
    chroma: impl Fn(T) -> f32,
) -> Vec<u8> {
    if channels == 1 {
        // Lightness alone has one colour per sample value: each converted once.
        let mut greys: Vec<Option<[u8; 3]>> = vec![None; 1 << (8 * std::mem::size_of::<T>())];
        return samples
            .iter()
            .flat_map(|&v| *greys[v.into() as usize].get_or_insert_with(|| lab_to_srgb(lightness(v), 0.0, 0.0)))
            .collect();
    }
    samples.chunks_exact(channels).flat_map(|p| lab_to_srgb(lightness(p[0]), chroma(p[1]), chroma(p[2]))).collect()
}

/// CIE L*a*b* (white `LAB_WHITE`) -> sRGB bytes: XYZ, then the sRGB matrix and transfer curve
/// (IEC 61966-2-1).
fn lab_to_srgb(l: f32, a: f32, b: f32) -> [u8; 3] {
    const DELTA: f32 = 6.0 / 29.0;
    let f_inv = |t: f32| if t > DELTA { t * t * t } else { 3.0 * DELTA * DELTA * (t - 4.0 / 29.0) };
    let fy = (l + 16.0) / 116.0;
    let (x, y, z) = (LAB_WHITE[0] * f_inv(fy + a / 500.0), f_inv(fy), LAB_WHITE[1] * f_inv(fy - b / 200.0));
    let linear = [
        3.240_454_2 * x - 1.537_138_5 * y - 0.498_531_4 * z,
        -0.969_266 * x + 1.876_010_8 * y + 0.041_556 * z,
        0.055_643_4 * x - 0.204_025_9 * y + 1.057_225_2 * z,
    ];
    linear.map(|c| {
        let c = c.clamp(0.0, 1.0);
        let v = if c <= 0.003_130_8 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
        (v * 255.0 + 0.5) as u8
    })
}

/// A RATIONAL field's values as numbers (YCbCrCoefficients, ReferenceBlackWhite).
fn rationals_of(value: Value) -> Option<Vec<f32>> {
    let one = |v: &Value| match *v {
        Value::Rational(n, d) if d != 0 => Some(n as f32 / d as f32),
        _ => None,
    };
    match value {
        Value::List(items) => items.iter().map(one).collect(),
        v => one(&v).map(|x| vec![x]),
    }
}

/// YCbCr samples -> RGB (TIFF 6.0 section 21): codes scaled by the reference black and white,
/// then the luma equation solved for red, blue and green.
fn ycbcr_to_rgb(samples: &[u8], [lr, lg, lb]: [f32; 3], reference: [f32; 6]) -> Vec<u8> {
    let scale = |code: u8, k: usize, full: f32| {
        let (black, white) = (reference[2 * k], reference[2 * k + 1]);
        let span = if (white - black).abs() > f32::EPSILON { white - black } else { full };
        (f32::from(code) - black) * full / span
    };
    let byte = |v: f32| v.round().clamp(0.0, 255.0) as u8;
    samples
        .chunks_exact(3)
        .flat_map(|p| {
            let (y, cb, cr) = (scale(p[0], 0, 255.0), scale(p[1], 1, 127.0), scale(p[2], 2, 127.0));
            let (r, b) = (cr * (2.0 - 2.0 * lr) + y, cb * (2.0 - 2.0 * lb) + y);
            let g = if lg > 0.0 { (y - lb * b - lr * r) / lg } else { y };
            [byte(r), byte(g), byte(b)]
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::raster::{DecodedPage, ImageFile};

    /// A field of a hand-built TIFF directory.
    #[derive(Clone)]
    pub(crate) enum Field {
        Short(Vec<u16>),
        Long(Vec<u32>),
        Rational(u32, u32),
    }

    const STRIP_OFFSETS: u16 = 273;
    const STRIP_BYTE_COUNTS: u16 = 279;

    /// A classic little-endian TIFF of one page: `fields` (sorted by tag, strip offsets and
    /// counts left out) and `strips` of coded pixels. A strip at `None` points past the end.
    pub(crate) fn tiff_with(fields: &[(u16, Field)], strips: &[Option<&[u8]>]) -> Vec<u8> {
        let mut out = b"II*\0\0\0\0\0".to_vec();
        let mut offsets = Vec::new();
        for strip in strips {
            offsets.push(strip.map_or(u32::MAX - 16, |_| out.len() as u32));
            out.extend_from_slice(strip.unwrap_or_default());
        }
        let counts = strips.iter().map(|s| s.map_or(16, |s| s.len() as u32)).collect();
        let mut all = fields.to_vec();
        all.push((STRIP_OFFSETS, Field::Long(offsets)));
        all.push((STRIP_BYTE_COUNTS, Field::Long(counts)));
        all.sort_by_key(|(t, _)| *t);
        // Values longer than the four bytes of an entry go after the directory.
        let directory = out.len() + out.len() % 2;
        out.resize(directory, 0);
        out[4..8].copy_from_slice(&(directory as u32).to_le_bytes());
        let mut spill = directory + 2 + 12 * all.len() + 4;
        let mut entries = (all.len() as u16).to_le_bytes().to_vec();
        let mut values = Vec::new();
        for (tag, field) in &all {
            let (kind, count, bytes): (u16, usize, Vec<u8>) = match field {
                Field::Short(v) => (3, v.len(), v.iter().flat_map(|x| x.to_le_bytes()).collect()),
                Field::Long(v) => (4, v.len(), v.iter().flat_map(|x| x.to_le_bytes()).collect()),
                Field::Rational(n, d) => (5, 1, [n.to_le_bytes(), d.to_le_bytes()].concat()),
            };
            entries.extend(tag.to_le_bytes());
            entries.extend(kind.to_le_bytes());
            entries.extend((count as u32).to_le_bytes());
            if bytes.len() <= 4 {
                entries.extend(bytes.iter().copied().chain([0; 4]).take(4));
            } else {
                entries.extend((spill as u32).to_le_bytes());
                spill += bytes.len();
                values.extend(bytes);
            }
        }
        out.extend(entries);
        out.extend([0; 4]);
        out.extend(values);
        out
    }

    /// '0'/'1' characters -> bytes, first bit highest; '|' pads with zeros to the next byte,
    /// spaces are for reading.
    fn bits(code: &str) -> Vec<u8> {
        let mut out = Vec::new();
        let mut n = 0usize;
        for c in code.chars() {
            match c {
                '0' | '1' => {
                    if n.is_multiple_of(8) {
                        out.push(0);
                    }
                    if c == '1' {
                        *out.last_mut().expect("a byte") |= 0x80 >> (n % 8);
                    }
                    n += 1;
                }
                '|' => n = n.div_ceil(8) * 8,
                _ => {}
            }
        }
        out
    }

    // Group 3 codes (ITU-T T.4 tables 2 and 3, and the two-dimensional modes) of the page
    // below: 4 white, 8 black, 4 white; the same; 6 black, 10 white.
    const W4_B8_W4: &str = "1011 000101 1011";
    const B6_W10: &str = "00110101 0010 00111";
    const EOL: &str = "000000000001";
    /// Against the row above: every change right below one (vertical 0).
    const SAME_AS_ABOVE: &str = "1 1 1";
    /// Against the 4-8-4 row: horizontal mode (white 0, black 6), then vertical 0 at the end.
    const B6_W10_BELOW_W4_B8_W4: &str = "001 00110101 0010 1";

    fn fax_rows() -> Vec<u8> {
        let row = |black: std::ops::Range<usize>| (0..16).map(move |x| if black.contains(&x) { 0 } else { 255 });
        row(4..12).chain(row(4..12)).chain(row(0..6)).collect()
    }

    fn fax_fields(compression: u16, t4: u32, more: Vec<(u16, Field)>) -> Vec<(u16, Field)> {
        let mut fields = vec![
            (256, Field::Short(vec![16])),
            (257, Field::Short(vec![3])),
            (258, Field::Short(vec![1])),
            (259, Field::Short(vec![compression])),
            (262, Field::Short(vec![0])),
            (277, Field::Short(vec![1])),
        ];
        if compression == 3 {
            fields.push((292, Field::Long(vec![t4])));
        }
        fields.extend(more);
        fields.sort_by_key(|(t, _)| *t);
        fields
    }

    fn grey(page: &DecodedPage) -> Vec<u8> {
        page.image.pixels().map(|p| p.0[0]).collect()
    }

    /// `tiff_with`'s strip lists retagged as tile lists (TileOffsets, TileByteCounts).
    fn strips_as_tiles(file: &mut [u8]) -> Result<(), OcrError> {
        let layout = TiffLayout::of(file).ok_or(OcrError::Image("layout".into()))?;
        let entries = layout.first_entries(file).unwrap_or_default();
        for (strip_tag, tile_tag) in [(273u64, 324u64), (279, 325)] {
            let at = layout.entry(file, entries.clone(), strip_tag).ok_or(OcrError::Image("entry".into()))?;
            layout.write(file, at, 2, tile_tag).ok_or(OcrError::Image("tag".into()))?;
        }
        Ok(())
    }

    fn read(file: &[u8]) -> Result<DecodedPage, OcrError> {
        ImageFile::open(file).page(0)
    }

    #[test]
    fn a_page_cut_short_after_its_directory_keeps_its_whole_strips() -> Result<(), OcrError> {
        // 4×6 grey, two rows a strip, each row one shade; plain and LZW-coded strips.
        let shade = |y: u8| 10 * y + 5;
        let strip = |s: u8| (2 * s..2 * s + 2).flat_map(|y| [shade(y); 4]).collect::<Vec<u8>>();
        let lzw = |s: u8| weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8).encode(&strip(s));
        let fields = |compression: u16, orientation: u16| {
            let mut fields = vec![
                (256, Field::Short(vec![4])),
                (257, Field::Short(vec![6])),
                (258, Field::Short(vec![8])),
                (259, Field::Short(vec![compression])),
                (262, Field::Short(vec![1])),
                (274, Field::Short(vec![orientation])),
                (277, Field::Short(vec![1])),
                (278, Field::Short(vec![2])),
            ];
            fields.sort_by_key(|(t, _)| *t);
            fields
        };
        let rows =
            |page: &DecodedPage| page.image.rows().map(|r| r.map(|p| p.0[0]).collect::<Vec<_>>()).collect::<Vec<_>>();
        let white = vec![255; 4];
        for compression in [1, 5] {
            let coded: Vec<Vec<u8>> = (0..3)
                .map(|s| if compression == 1 { Ok(strip(s)) } else { lzw(s) })
                .collect::<Result<_, _>>()
                .map_err(|e| OcrError::Image(e.to_string()))?;
            let page = read(&tiff_with(&fields(compression, 1), &[Some(&coded[0]), Some(&coded[1]), None]))?;
            let want = [0, 1, 2, 3].map(|y| vec![shade(y); 4]).into_iter().chain([white.clone(), white.clone()]);
            assert_eq!(rows(&page), want.collect::<Vec<_>>(), "compression {compression}");
            let warning = page.warning.unwrap_or_default();
            assert!(
                warning.contains("after 4 of its 6 rows (the file ends before its strip 3 of 3 does)"),
                "{warning}"
            );
            assert_eq!(page.unread, Some(Area { x: 0.0, y: 4.0, w: 4.0, h: 2.0 }));
            // One strip left: its offset and count now fit their entries' fields.
            let page = read(&tiff_with(&fields(compression, 1), &[Some(&coded[0]), None, None]))?;
            assert_eq!(rows(&page)[1..3], [vec![shade(1); 4], white.clone()], "compression {compression}");
            assert!(page.warning.is_some_and(|w| w.contains("its strip 2 of 3")));
        }
        // Turned upside down as tagged once whole: the stored top is the shown bottom.
        let page = read(&tiff_with(&fields(1, 3), &[Some(&strip(0)), None, None]))?;
        assert_eq!(rows(&page)[4..], [vec![shade(1); 4], vec![shade(0); 4]]);
        assert_eq!(rows(&page)[0], white);
        assert_eq!(page.unread, Some(Area { x: 0.0, y: 0.0, w: 4.0, h: 4.0 }));
        // Nothing before the cut: still an error.
        assert!(read(&tiff_with(&fields(1, 1), &[None, None, None])).is_err());
        // One raw strip after the directory, the file ending inside its fourth row: the three
        // whole rows are read.
        let mut one_strip = fields(1, 1);
        one_strip.retain(|(t, _)| *t != 278);
        let mut file = tiff_with(&one_strip, &[None]);
        let (layout, strip_at) = (TiffLayout::of(&file).ok_or(OcrError::Image("layout".into()))?, file.len());
        let entries = layout.entry_range(&file, u32::from_le_bytes([file[4], file[5], file[6], file[7]]) as usize);
        for (t, value) in [(273, strip_at as u64), (279, 24)] {
            layout
                .set_value(&mut file, entries.clone().unwrap_or_default(), t, 0, value)
                .ok_or(OcrError::Image("set".into()))?;
        }
        file.extend((0..6).flat_map(|y| [shade(y); 4]));
        file.truncate(strip_at + 3 * 4 + 2);
        let page = read(&file)?;
        assert_eq!(rows(&page)[2..4], [vec![shade(2); 4], white.clone()]);
        assert!(
            page.warning.is_some_and(|w| w.contains("after 3 of its 6 rows (the file ends before its strip 1 of 1"))
        );
        Ok(())
    }

    #[test]
    fn a_tiled_page_cut_short_after_its_directory_keeps_its_whole_rows_of_tiles() -> Result<(), OcrError> {
        // 32×48 grey in 16×16 raw tiles, two across and three down, each tile one shade.
        let shade = |t: usize| 30 * t as u8 + 20;
        let fields = [
            (256, Field::Short(vec![32])),
            (257, Field::Short(vec![48])),
            (258, Field::Short(vec![8])),
            (259, Field::Short(vec![1])),
            (262, Field::Short(vec![1])),
            (277, Field::Short(vec![1])),
            (322, Field::Short(vec![16])),
            (323, Field::Short(vec![16])),
        ];
        let mut file = tiff_with(&fields, &[None; 6]);
        let layout = TiffLayout::of(&file).ok_or(OcrError::Image("layout".into()))?;
        let entries = layout.first_entries(&file).unwrap_or_default();
        // The strip lists become the tile lists, the tiles after the directory.
        strips_as_tiles(&mut file)?;
        let tiles_at = file.len();
        for t in 0..6 {
            let set = |file: &mut Vec<u8>, tag, value| layout.set_value(file, entries.clone(), tag, t, value);
            set(&mut file, 324, (tiles_at + 256 * t) as u64).ok_or(OcrError::Image("offset".into()))?;
            set(&mut file, 325, 256).ok_or(OcrError::Image("count".into()))?;
            file.extend([shade(t); 256]);
        }
        // The file ends in the fifth tile: the first two rows of tiles are whole.
        file.truncate(tiles_at + 4 * 256 + 100);
        let page = read(&file)?;
        let at = |x, y| page.image.get_pixel(x, y).0[0];
        assert_eq!(
            [at(0, 0), at(31, 0), at(0, 31), at(31, 31), at(0, 32), at(31, 47)],
            [shade(0), shade(1), shade(2), shade(3), 255, 255]
        );
        let warning = page.warning.unwrap_or_default();
        assert!(warning.contains("after 32 of its 48 rows (the file ends before its tile 5 of 6 does)"), "{warning}");
        assert_eq!(page.unread, Some(Area { x: 0.0, y: 32.0, w: 32.0, h: 16.0 }));
        // Ending in the second tile, no row of tiles is whole: still an error.
        file.truncate(tiles_at + 300);
        assert!(read(&file).is_err());
        Ok(())
    }

    /// The fields of a 4×6 RGB page, 8 bits a sample, two rows a strip, its planes apart.
    fn planar_fields() -> Vec<(u16, Field)> {
        vec![
            (256, Field::Short(vec![4])),
            (257, Field::Short(vec![6])),
            (258, Field::Short(vec![8, 8, 8])),
            (259, Field::Short(vec![1])),
            (262, Field::Short(vec![2])),
            (277, Field::Short(vec![3])),
            (278, Field::Short(vec![2])),
            (284, Field::Short(vec![2])),
        ]
    }

    /// Plane `p`'s sample on row `y`: each plane and row its own.
    fn planar_sample(p: usize, y: usize) -> u8 {
        [10, 100, 200][p] + y as u8
    }

    /// The strips of `planar_fields`' page, each plane's three in turn; a plane's strips
    /// past `kept[plane]` lie past the file's end.
    fn planar_strips(kept: [usize; 3]) -> Vec<Option<Vec<u8>>> {
        let strip = |p: usize, s: usize| (2 * s..2 * s + 2).flat_map(|y| [planar_sample(p, y); 4]).collect();
        (0..3).flat_map(|p| (0..3).map(move |s| (s < kept[p]).then(|| strip(p, s)))).collect()
    }

    #[test]
    fn a_page_whose_colours_are_stored_apart_cut_short_keeps_them_above_and_grey_below() -> Result<(), OcrError> {
        let column = |page: &DecodedPage| page.image.rows().map(|mut r| r.next().map(|p| p.0)).collect::<Vec<_>>();
        let colour = |y: usize| Some([0, 1, 2].map(|p| planar_sample(p, y)));
        let grey = |y: usize, planes: &[usize]| {
            let mean = planes.iter().map(|&p| u32::from(planar_sample(p, y))).sum::<u32>() / planes.len() as u32;
            Some([mean as u8; 3])
        };
        // Each plane's strips kept, the page's rows as read, and what the warning says.
        let cases = [
            (
                [3, 3, 1],
                [colour(0), colour(1), grey(2, &[0, 1]), grey(3, &[0, 1]), grey(4, &[0, 1]), grey(5, &[0, 1])],
                "the file ends before its strip 8 of 9 does: 2 of its 6 rows are read in full colour, rows 2 to 6 in grey",
            ),
            (
                [3, 1, 0],
                [grey(0, &[0, 1]), grey(1, &[0, 1]), grey(2, &[0]), grey(3, &[0]), grey(4, &[0]), grey(5, &[0])],
                "strip 5 of 9 does: 0 of its 6 rows are read in full colour, rows 0 to 6 in grey",
            ),
            (
                [2, 0, 0],
                [grey(0, &[0]), grey(1, &[0]), grey(2, &[0]), grey(3, &[0]), Some([255; 3]), Some([255; 3])],
                "rows 0 to 4 in grey from the colours that reach them (print in the others may not show), the rest as blank",
            ),
        ];
        for (kept, rows, says) in cases {
            let strips = planar_strips(kept);
            let strips: Vec<Option<&[u8]>> = strips.iter().map(Option::as_deref).collect();
            let page = read(&tiff_with(&planar_fields(), &strips))?;
            assert_eq!(column(&page), rows, "{kept:?}");
            let warning = page.warning.unwrap_or_default();
            assert!(warning.contains(says), "{kept:?}: {warning}");
            let unread = (kept[0] < 3).then_some(Area { x: 0.0, y: 4.0, w: 4.0, h: 2.0 });
            assert_eq!(page.unread, unread, "{kept:?}");
        }
        Ok(())
    }

    #[test]
    fn an_lab_or_ycbcr_page_whose_colours_are_stored_apart_reads_as_its_lightness() -> Result<(), OcrError> {
        for photometric in [8, 6] {
            let mut fields = planar_fields();
            fields.retain(|(t, _)| *t != 262);
            fields.push((262, Field::Short(vec![photometric])));
            fields.sort_by_key(|(t, _)| *t);
            // Whole, and with the lightness plane's last strip lost.
            for (kept, rows) in [([3, 3, 3], 6), ([2, 0, 0], 4)] {
                let strips = planar_strips(kept);
                let strips: Vec<Option<&[u8]>> = strips.iter().map(Option::as_deref).collect();
                let page = read(&tiff_with(&fields, &strips))?;
                let want: Vec<u8> =
                    (0..6).flat_map(|y| [if y < rows { planar_sample(0, y) } else { 255 }; 4]).collect();
                assert_eq!(grey(&page), want, "{photometric} {kept:?}");
                let warning = page.warning.unwrap_or_default();
                assert!(
                    warning.starts_with("the TIFF page's colours are stored apart, which is read for its lightness")
                );
                assert_eq!(warning.contains("breaks off after 4 of its 6 rows"), rows == 4, "{warning}");
            }
        }
        Ok(())
    }

    #[test]
    fn a_page_whose_colours_are_stored_apart_in_tiles_reads_in_colour_not_a_panic() -> Result<(), OcrError> {
        // 32×16 RGB in 16×16 raw tiles, two a plane, each tile of each plane one shade: `tiff`
        // asserts on such a page.
        let shade = |p: usize, t: usize| [10, 100, 200][p] + 20 * t as u8;
        let mut fields = planar_fields();
        fields.retain(|(t, _)| ![256, 257, 278].contains(t));
        fields.extend([(256, Field::Short(vec![32])), (257, Field::Short(vec![16]))]);
        fields.extend([(322, Field::Short(vec![16])), (323, Field::Short(vec![16]))]);
        fields.sort_by_key(|(t, _)| *t);
        let tiles: Vec<Vec<u8>> = (0..3).flat_map(|p| (0..2).map(move |t| vec![shade(p, t); 256])).collect();
        let mut file = tiff_with(&fields, &tiles.iter().map(|t| Some(&t[..])).collect::<Vec<_>>());
        strips_as_tiles(&mut file)?;
        assert!(planes_in_tiles(&file));
        let page = read(&file)?;
        let at = |x, y| page.image.get_pixel(x, y).0;
        assert_eq!([at(0, 0), at(31, 15)], [[0, 1, 2].map(|p| shade(p, 0)), [0, 1, 2].map(|p| shade(p, 1))]);
        assert_eq!((page.warning, page.unread), (None, None));
        Ok(())
    }

    #[test]
    fn a_grey_page_with_alpha_reads_its_grey_on_white() -> Result<(), OcrError> {
        // Two pixels of grey 40, opaque and transparent; white is zero stores 215 for it.
        for (photometric, stored) in [(1, 40), (0, 215)] {
            let fields = [
                (256, Field::Short(vec![2])),
                (257, Field::Short(vec![1])),
                (258, Field::Short(vec![8, 8])),
                (259, Field::Short(vec![1])),
                (262, Field::Short(vec![photometric])),
                (277, Field::Short(vec![2])),
                (338, Field::Short(vec![2])),
            ];
            let page = read(&tiff_with(&fields, &[Some(&[stored, 255, stored, 0])]))?;
            assert_eq!(grey(&page), [40, 255], "photometric {photometric}");
        }
        Ok(())
    }

    #[test]
    fn a_palette_page_cut_short_keeps_its_whole_strips() -> Result<(), OcrError> {
        // 2×4 in two strips of 8-bit indices, each index its own grey; the second strip lost.
        let colormap: Vec<u16> = (0..3).flat_map(|_| (0..256).map(|i| i * 257)).collect();
        let fields = [
            (256, Field::Short(vec![2])),
            (257, Field::Short(vec![4])),
            (258, Field::Short(vec![8])),
            (259, Field::Short(vec![1])),
            (262, Field::Short(vec![3])),
            (277, Field::Short(vec![1])),
            (278, Field::Short(vec![2])),
            (320, Field::Short(colormap)),
        ];
        let page = read(&tiff_with(&fields, &[Some(&[10, 20, 30, 40]), None]))?;
        assert_eq!(grey(&page), [10, 20, 30, 40, 255, 255, 255, 255]);
        assert_eq!(page.unread, Some(Area { x: 0.0, y: 2.0, w: 2.0, h: 2.0 }));
        Ok(())
    }

    #[test]
    fn a_coded_strip_the_file_ends_in_keeps_the_rows_its_stream_holds() -> Result<(), OcrError> {
        // 64×6 grey in one strip, each row its own run of shades, cut 60% into its coded bytes.
        let (width, height) = (64u16, 6u16);
        let pixels: Vec<u8> =
            (0..height).flat_map(|y| (0..width).map(move |x| (x * 7 + y * 40) as u8 % 200 + 20)).collect();
        // Coded as a cut page's next strip is coded again; decoded by `image`.
        for compression in [5u16, 8, 32773] {
            let strip = coded(&pixels, compression.into()).ok_or(OcrError::Image("coded".into()))?;
            let fields = [
                (256, Field::Short(vec![width])),
                (257, Field::Short(vec![height])),
                (258, Field::Short(vec![8])),
                (259, Field::Short(vec![compression])),
                (262, Field::Short(vec![1])),
                (277, Field::Short(vec![1])),
            ];
            let mut file = tiff_with(&fields, &[None]);
            let (layout, strip_at) = (TiffLayout::of(&file).ok_or(OcrError::Image("layout".into()))?, file.len());
            let entries = layout.first_entries(&file).unwrap_or_default();
            for (t, value) in [(273, strip_at as u64), (279, strip.len() as u64)] {
                layout.set_value(&mut file, entries.clone(), t, 0, value).ok_or(OcrError::Image("set".into()))?;
            }
            file.extend(&strip);
            file.truncate(strip_at + strip.len() * 6 / 10);
            let page = read(&file)?;
            let row = |y: usize| page.image.rows().nth(y).map(|r| r.map(|p| p.0[0]).collect::<Vec<_>>());
            let whole = (0..6).take_while(|&y| row(y).as_deref() == pixels.get(y * 64..(y + 1) * 64)).count();
            assert!((1..6).contains(&whole), "compression {compression}: {whole} rows");
            assert!((whole..6).all(|y| row(y) == Some(vec![255; 64])), "compression {compression}");
            let warning = page.warning.unwrap_or_default();
            assert!(warning.contains(&format!("after {whole} of its 6 rows")), "{compression}: {warning}");
        }
        Ok(())
    }

    #[test]
    fn a_group_3_fax_page_reads_in_each_coding_tiff_allows() -> Result<(), OcrError> {
        let one_d = format!("{EOL}{W4_B8_W4}{EOL}{W4_B8_W4}{EOL}{B6_W10}{EOL}{EOL}{EOL}{EOL}{EOL}{EOL}");
        let two_d = format!("{EOL}1{W4_B8_W4}{EOL}0{SAME_AS_ABOVE}{EOL}0{B6_W10_BELOW_W4_B8_W4}");
        let aligned = format!("|{EOL}1{W4_B8_W4}|{EOL}0{SAME_AS_ABOVE}|{EOL}0{B6_W10_BELOW_W4_B8_W4}");
        let codings = [
            ("modified Huffman", 2, 0, format!("{W4_B8_W4}|{W4_B8_W4}|{B6_W10}|")),
            ("T.4 1D with RTC", 3, 0, one_d),
            ("T.4 2D", 3, 1, two_d),
            ("T.4 2D, EOLs byte-aligned", 3, 5, aligned),
        ];
        for (name, compression, t4, code) in codings {
            let file = tiff_with(&fax_fields(compression, t4, vec![]), &[Some(&bits(&code))]);
            let page = read(&file)?;
            assert_eq!((grey(&page), page.warning), (fax_rows(), None), "{name}");
        }
        Ok(())
    }

    #[test]
    fn fax_bit_order_polarity_strips_and_orientation_tags_are_honoured() -> Result<(), OcrError> {
        let code = format!("{W4_B8_W4}|{W4_B8_W4}|{B6_W10}|");
        let reversed: Vec<u8> = bits(&code).iter().map(|b| b.reverse_bits()).collect();
        let fill_order = fax_fields(2, 0, vec![(266, Field::Short(vec![2]))]);
        assert_eq!(grey(&read(&tiff_with(&fill_order, &[Some(&reversed)]))?), fax_rows());

        let mut black_is_zero = fax_fields(2, 0, vec![]);
        black_is_zero.retain(|(tag, _)| *tag != 262);
        black_is_zero.push((262, Field::Short(vec![1])));
        let inverted: Vec<u8> = fax_rows().iter().map(|v| 255 - v).collect();
        assert_eq!(grey(&read(&tiff_with(&black_is_zero, &[Some(&bits(&code))]))?), inverted);

        let two_strips = fax_fields(2, 0, vec![(278, Field::Short(vec![2]))]);
        let (top, bottom) = (bits(&format!("{W4_B8_W4}|{W4_B8_W4}|")), bits(B6_W10));
        assert_eq!(grey(&read(&tiff_with(&two_strips, &[Some(&top), Some(&bottom)]))?), fax_rows());

        let turned = fax_fields(2, 0, vec![(274, Field::Short(vec![3]))]);
        let upside_down: Vec<u8> = fax_rows().into_iter().rev().collect();
        assert_eq!(grey(&read(&tiff_with(&turned, &[Some(&bits(&code))]))?), upside_down);
        Ok(())
    }

    #[test]
    fn a_fax_in_standard_mode_is_stretched_to_square_pixels() -> Result<(), OcrError> {
        let code = bits(&format!("{W4_B8_W4}|{W4_B8_W4}|{B6_W10}|"));
        let tagged = |across: u32, down: u32, orientation: u16| {
            let more = vec![
                (274, Field::Short(vec![orientation])),
                (282, Field::Rational(across, 1)),
                (283, Field::Rational(down, 1)),
            ];
            read(&tiff_with(&fax_fields(2, 0, more), &[Some(&code)]))
        };
        // 204×98 dpi: each row twice as tall as a column is wide, so 3 rows show as 6.
        let page = tagged(204, 98, 1)?;
        assert_eq!(page.image.dimensions(), (16, 6));
        let row = |y: u32| (0..16).map(|x| page.image.get_pixel(x, y).0[0] < 128).collect::<Vec<_>>();
        let black = |r: std::ops::Range<usize>| (0..16).map(|x| r.contains(&x)).collect::<Vec<_>>();
        assert_eq!((row(0), row(2), row(5)), (black(4..12), black(4..12), black(0..6)));
        // Turned a quarter (orientation 6), the rows stand as columns, and those are widened.
        assert_eq!(tagged(204, 98, 6)?.image.dimensions(), (6, 16));
        // Fine mode (204×196) is square enough, and a 1×72 dpi tag is taken for a wrong one.
        assert_eq!(tagged(204, 196, 1)?.image.dimensions(), (16, 3));
        assert_eq!(tagged(1, 72, 1)?.image.dimensions(), (16, 3));
        Ok(())
    }

    #[test]
    fn a_fax_strip_outside_the_file_leaves_its_rows_blank_with_a_warning() -> Result<(), OcrError> {
        let two_strips = fax_fields(2, 0, vec![(278, Field::Short(vec![2]))]);
        let top = bits(&format!("{W4_B8_W4}|{W4_B8_W4}|"));
        let page = read(&tiff_with(&two_strips, &[Some(&top), None]))?;
        let mut want = fax_rows();
        want[32..].fill(255);
        assert_eq!(grey(&page), want);
        let warning = page.warning.unwrap_or_default();
        assert!(warning.starts_with("1 of the fax page's 3 rows could not be decoded"), "{warning}");
        Ok(())
    }

    #[test]
    fn garbage_fax_strips_decode_to_a_page_and_a_warning_never_a_panic() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..300 {
            let strip: Vec<u8> = (0..(next() % 200)).map(|_| next() as u8).collect();
            let fax = Fax {
                width: 1 + (next() % 300) as u32,
                height: 1 + (next() % 40) as u32,
                rows_per_strip: 1 + (next() % 40) as u32,
                modified_huffman: case % 3 == 0,
                two_d: case % 2 == 0,
                byte_aligned: case % 5 == 0,
                lsb_first: case % 7 == 0,
                inverted: false,
            };
            let strips = vec![Some(&strip[..]); fax.height.div_ceil(fax.rows_per_strip) as usize];
            let (image, _) = fax_strips_to_pixels(&strips, fax);
            assert_eq!(image.dimensions(), (fax.width, fax.height), "case {case}");
        }
    }

    #[test]
    fn a_palette_page_reads_its_colours_through_the_colour_map() -> Result<(), OcrError> {
        // 4-bit indices, 3 wide: rows pack into two bytes, the second half-used.
        let mut colormap = vec![0u16; 48];
        for (i, [r, g, b]) in [(1, [0xff00, 0, 0]), (2, [0, 0x8000, 0xffff]), (15, [0xffff, 0xffff, 0xffff])] {
            (colormap[i], colormap[16 + i], colormap[32 + i]) = (r, g, b);
        }
        let fields = [
            (256, Field::Short(vec![3])),
            (257, Field::Short(vec![2])),
            (258, Field::Short(vec![4])),
            (259, Field::Short(vec![1])),
            (262, Field::Short(vec![3])),
            (277, Field::Short(vec![1])),
            (320, Field::Short(colormap)),
        ];
        let page = read(&tiff_with(&fields, &[Some(&[0x12, 0xf0, 0xf1, 0x20])]))?;
        let rgb: Vec<[u8; 3]> = page.image.pixels().map(|p| p.0).collect();
        let (red, blue, white, black) = ([255, 0, 0], [0, 128, 255], [255; 3], [0; 3]);
        assert_eq!(rgb, [red, blue, white, white, red, blue]);
        assert_eq!(indices_to_rgb(&[99], &[0; 48]), black, "an index past the map");
        Ok(())
    }

    const RED: [u8; 3] = [220, 20, 30];
    const BLUE: [u8; 3] = [20, 40, 210];

    fn near(p: [u8; 3], want: [u8; 3]) -> bool {
        p.iter().zip(want).all(|(&a, b)| a.abs_diff(b) <= 12)
    }

    fn ycbcr_fields(width: u16, height: u16, compression: u16) -> Vec<(u16, Field)> {
        vec![
            (256, Field::Short(vec![width])),
            (257, Field::Short(vec![height])),
            (258, Field::Short(vec![8, 8, 8])),
            (259, Field::Short(vec![compression])),
            (262, Field::Short(vec![6])),
            (277, Field::Short(vec![3])),
        ]
    }

    #[test]
    fn a_ycbcr_page_reads_as_rgb_raw_or_jpeg_coded() -> Result<(), OcrError> {
        // Raw samples, one chroma pair per pixel: red and blue in BT.601.
        let ycbcr = |[r, g, b]: [u8; 3]| {
            let (r, g, b) = (f32::from(r), f32::from(g), f32::from(b));
            let y = 0.299 * r + 0.587 * g + 0.114 * b;
            [y, (b - y) / 1.772 + 128.0, (r - y) / 1.402 + 128.0].map(|v| v.round() as u8)
        };
        let samples: Vec<u8> = [RED, BLUE].into_iter().flat_map(ycbcr).collect();
        let mut raw = ycbcr_fields(2, 1, 1);
        raw.push((530, Field::Short(vec![1, 1])));
        let page = read(&tiff_with(&raw, &[Some(&samples)]))?;
        let rgb: Vec<[u8; 3]> = page.image.pixels().map(|p| p.0).collect();
        assert!(near(rgb[0], RED) && near(rgb[1], BLUE), "{rgb:?}");

        // A scanner's colour page: JPEG-coded YCbCr, chroma halved each way (the tag's default).
        let picture = RgbImage::from_fn(32, 16, |x, _| image::Rgb(if x < 16 { RED } else { BLUE }));
        let jpeg = jpeg_of(&picture)?;
        let coded = ycbcr_fields(32, 16, 7);
        let page = read(&tiff_with(&coded, &[Some(&jpeg)]))?;
        assert!(near(page.image.get_pixel(4, 8).0, RED), "{:?}", page.image.get_pixel(4, 8));
        assert!(near(page.image.get_pixel(27, 8).0, BLUE), "{:?}", page.image.get_pixel(27, 8));
        Ok(())
    }

    #[test]
    fn raw_ycbcr_with_chroma_subsampled_reads_as_rgb_and_a_cut_strip_leaves_white_rows() -> Result<(), OcrError> {
        // 5×3 pixels, chroma halved each way: units of 2×2 luma samples then Cb, Cr, three
        // units across (the width rounded up), strips of two rows; the last unit row and
        // column hang past the page.
        let unit = |[y, cb, cr]: [u8; 3]| [y, y, y, y, cb, cr];
        let (red, blue) = ([76, 85, 255], [29, 255, 107]);
        let row: Vec<u8> = [red, red, blue].into_iter().flat_map(unit).collect();
        let mut fields = ycbcr_fields(5, 3, 1);
        fields.extend([(278, Field::Short(vec![2])), (530, Field::Short(vec![2, 2]))]);
        let page = read(&tiff_with(&fields, &[Some(&row), Some(&row)]))?;
        assert_eq!(page.warning, None);
        for (x, y, pixel) in page.image.enumerate_pixels() {
            let want = if x < 4 { [255, 0, 0] } else { [0, 0, 255] };
            assert!(near(pixel.0, want), "({x}, {y}): {:?}", pixel.0);
        }
        let cut = read(&tiff_with(&fields, &[Some(&row), Some(&row[..5])]))?;
        assert!(cut.image.rows().nth(2).is_some_and(|r| r.into_iter().all(|p| p.0 == [255; 3])));
        assert!(cut.warning.is_some_and(|w| w.contains("1 of the YCbCr page's 3 rows")));
        // Raw samples subsampled by some other ratio are refused, saying why.
        fields.retain(|(tag, _)| *tag != 530);
        fields.push((530, Field::Short(vec![1, 2])));
        let refused = read(&tiff_with(&fields, &[Some(&row), Some(&row)]));
        assert!(refused.is_err_and(|e| e.to_string().contains("chroma subsampled [1, 2]")));
        Ok(())
    }

    #[test]
    fn compressed_ycbcr_with_chroma_subsampled_reads_as_its_raw_samples_do() -> Result<(), OcrError> {
        // The 5×3 page above, its two strips LZW-, Deflate- and PackBits-coded.
        let unit = |[y, cb, cr]: [u8; 3]| [y, y, y, y, cb, cr];
        let (red, blue) = ([76, 85, 255], [29, 255, 107]);
        let row: Vec<u8> = [red, red, blue].into_iter().flat_map(unit).collect();
        let fields = |compression: u16| {
            let mut fields = ycbcr_fields(5, 3, compression);
            fields.extend([(278, Field::Short(vec![2])), (530, Field::Short(vec![2, 2]))]);
            fields
        };
        let want = read(&tiff_with(&fields(1), &[Some(&row), Some(&row)]))?;
        let lzw = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
            .encode(&row)
            .map_err(|e| OcrError::Image(e.to_string()))?;
        let mut deflate = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut deflate, &row).map_err(|e| OcrError::Image(e.to_string()))?;
        let deflate = deflate.finish().map_err(|e| OcrError::Image(e.to_string()))?;
        // Runs of four lumas (a header of -3, then the byte), chroma pairs as literals (a
        // header of 1, then both), and a no-op header (-128).
        let packed = [0xFD, 76, 1, 85, 255, 0x80, 0xFD, 76, 1, 85, 255, 0xFD, 29, 1, 255, 107];
        for (compression, coded) in [(5, &lzw), (8, &deflate), (32946, &deflate), (32773, &packed.to_vec())] {
            let page = read(&tiff_with(&fields(compression), &[Some(coded), Some(coded)]))?;
            assert_eq!(page.image, want.image, "compression {compression}");
            assert_eq!(page.warning, None);
        }
        // A stream that breaks off keeps the rows before the break.
        let cut = read(&tiff_with(&fields(8), &[Some(&deflate), Some(&deflate[..deflate.len() / 2])]))?;
        assert_eq!(
            cut.image.rows().next().map(|r| r.copied().collect::<Vec<_>>()),
            want.image.rows().next().map(|r| r.copied().collect())
        );
        assert!(cut.warning.is_some_and(|w| w.contains("of the YCbCr page's 3 rows")));
        // Samples differenced by a predictor are refused, saying so.
        let mut predicted = fields(5);
        predicted.push((317, Field::Short(vec![2])));
        let refused = read(&tiff_with(&predicted, &[Some(&lzw), Some(&lzw)]));
        assert!(refused.is_err_and(|e| e.to_string().contains("compression 5 and a predictor")));
        Ok(())
    }

    /// A one-row, three-pixel L*a*b* page's tags: `samples` of `bits` each per pixel.
    fn lab_fields(photometric: u16, samples: u16, bits: u16) -> Vec<(u16, Field)> {
        vec![
            (256, Field::Short(vec![3])),
            (257, Field::Short(vec![1])),
            (258, Field::Short(vec![bits; usize::from(samples)])),
            (259, Field::Short(vec![1])),
            (262, Field::Short(vec![photometric])),
            (277, Field::Short(vec![samples])),
        ]
    }

    #[test]
    fn lab_pages_read_as_srgb_with_signed_or_offset_chroma_and_as_lightness_alone() -> Result<(), OcrError> {
        // White, black and sRGB red (L* 53.2, a* 80.1, b* 67.2).
        let pixels = [[255u8, 0, 0], [0, 0, 0], [136, 80, 67]];
        let want = [[255, 255, 255], [0, 0, 0], [255, 0, 0]];
        for (photometric, offset) in [(8, 0u8), (9, 128)] {
            let samples: Vec<u8> =
                pixels.iter().flat_map(|&[l, a, b]| [l, a.wrapping_add(offset), b.wrapping_add(offset)]).collect();
            let page = read(&tiff_with(&lab_fields(photometric, 3, 8), &[Some(&samples)]))?;
            let rgb: Vec<[u8; 3]> = page.image.pixels().map(|p| p.0).collect();
            assert!(rgb.iter().zip(want).all(|(&p, w)| near(p, w)), "photometric {photometric}: {rgb:?}");
        }
        // Lightness alone: L* 50 is sRGB grey 119.
        let page = read(&tiff_with(&lab_fields(8, 1, 8), &[Some(&[255, 0, 128])]))?;
        let rgb: Vec<[u8; 3]> = page.image.pixels().map(|p| p.0).collect();
        assert!(rgb.iter().zip([[255; 3], [0; 3], [119; 3]]).all(|(&p, w)| near(p, w)), "{rgb:?}");
        Ok(())
    }

    #[test]
    fn lab_pages_of_16_bit_samples_read_as_srgb_with_signed_or_offset_chroma_and_as_lightness_alone()
    -> Result<(), OcrError> {
        // White, black and sRGB red (L* 53.24, a* 80.09, b* 67.20), a* and b* in 256ths.
        let pixels: [[u16; 3]; 3] = [[65_535, 0, 0], [0, 0, 0], [34_891, 20_503, 17_203]];
        let want = [[255, 255, 255], [0, 0, 0], [255, 0, 0]];
        for (photometric, offset) in [(8, 0u16), (9, 32_768)] {
            let samples: Vec<u8> = pixels
                .iter()
                .flat_map(|&[l, a, b]| [l, a.wrapping_add(offset), b.wrapping_add(offset)])
                .flat_map(u16::to_le_bytes)
                .collect();
            let page = read(&tiff_with(&lab_fields(photometric, 3, 16), &[Some(&samples)]))?;
            let rgb: Vec<[u8; 3]> = page.image.pixels().map(|p| p.0).collect();
            assert!(rgb.iter().zip(want).all(|(&p, w)| near(p, w)), "photometric {photometric}: {rgb:?}");
        }
        // Lightness alone: L* 50 is sRGB grey 119.
        let samples: Vec<u8> = [65_535u16, 0, 32_768].into_iter().flat_map(u16::to_le_bytes).collect();
        let page = read(&tiff_with(&lab_fields(8, 1, 16), &[Some(&samples)]))?;
        let rgb: Vec<[u8; 3]> = page.image.pixels().map(|p| p.0).collect();
        assert!(rgb.iter().zip([[255; 3], [0; 3], [119; 3]]).all(|(&p, w)| near(p, w)), "{rgb:?}");
        Ok(())
    }

    pub(crate) fn jpeg_of(picture: &RgbImage) -> Result<Vec<u8>, OcrError> {
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 95)
            .encode_image(picture)
            .map_err(|e| OcrError::Image(e.to_string()))?;
        Ok(jpeg)
    }

    #[test]
    fn an_old_style_jpeg_page_reads_from_its_whole_stream_or_its_strips_of_whole_streams() -> Result<(), OcrError> {
        let picture = RgbImage::from_fn(32, 16, |x, _| image::Rgb(if x < 16 { RED } else { BLUE }));
        // JPEGInterchangeFormat points at a whole JPEG stream (offset 8: right after the
        // header); the strip after it is a bare scan, unreadable alone.
        let jpeg = jpeg_of(&picture)?;
        let bare = &jpeg[2..];
        let mut fields = ycbcr_fields(32, 16, 6);
        fields.extend([
            (278, Field::Short(vec![8])),
            (513, Field::Long(vec![8])),
            (514, Field::Long(vec![jpeg.len() as u32])),
        ]);
        let page = read(&tiff_with(&fields, &[Some(&jpeg), Some(bare)]))?;
        assert!(near(page.image.get_pixel(4, 8).0, RED) && near(page.image.get_pixel(27, 8).0, BLUE));
        assert!(page.warning.is_none());

        // No interchange stream: two strips of 8 rows, each a whole JPEG stream, stacked.
        let top = jpeg_of(&RgbImage::from_pixel(32, 8, image::Rgb(RED)))?;
        let bottom = jpeg_of(&RgbImage::from_pixel(32, 8, image::Rgb(BLUE)))?;
        // Tables the tags point to past the file's end do not matter to whole streams.
        let mut fields = ycbcr_fields(32, 16, 6);
        fields.push((278, Field::Short(vec![8])));
        fields.extend((519..=521).map(|t| (t, Field::Long(vec![u32::MAX - 8; 3]))));
        let page = read(&tiff_with(&fields, &[Some(&top), Some(&bottom)]))?;
        assert!(near(page.image.get_pixel(10, 2).0, RED) && near(page.image.get_pixel(10, 13).0, BLUE));

        Ok(())
    }

    /// A baseline JPEG stream taken apart as an old-style JPEG page stores it: each
    /// component's sampling and its quantization, DC and AC tables (as their segments hold
    /// them, less the table number), and the bare scan.
    struct JpegParts {
        sampling: Vec<u8>,
        tables: Vec<[Vec<u8>; 3]>,
        scan: Vec<u8>,
    }

    fn jpeg_parts(jpeg: &[u8]) -> JpegParts {
        let (mut q, mut huffman) = (HashMap::new(), HashMap::new());
        let mut frame: Vec<(u8, u8)> = Vec::new();
        let mut at = 2;
        loop {
            let (marker, len) = (jpeg[at + 1], usize::from(u16::from_be_bytes([jpeg[at + 2], jpeg[at + 3]])));
            let body = &jpeg[at + 4..at + 2 + len];
            match marker {
                0xDB => body.chunks(65).for_each(|t| drop(q.insert(t[0], t[1..].to_vec()))),
                0xC4 => {
                    let mut t = body;
                    while !t.is_empty() {
                        let n = 17 + t[1..17].iter().map(|&c| usize::from(c)).sum::<usize>();
                        huffman.insert(t[0], t[1..n].to_vec());
                        t = &t[n..];
                    }
                }
                0xC0 => frame = body[6..].chunks(3).map(|c| (c[1], c[2])).collect(),
                0xDA => {
                    let selectors: Vec<u8> = body[1..1 + 2 * usize::from(body[0])].chunks(2).map(|c| c[1]).collect();
                    let scan = jpeg[at + 2 + len..jpeg.len() - 2].to_vec();
                    let tables = frame
                        .iter()
                        .zip(&selectors)
                        .map(|(&(_, tq), &s)| {
                            [q[&tq].clone(), huffman[&(s >> 4)].clone(), huffman[&(0x10 | s & 15)].clone()]
                        })
                        .collect();
                    return JpegParts { sampling: frame.iter().map(|f| f.0).collect(), tables, scan };
                }
                _ => {}
            }
            at += 2 + len;
        }
    }

    #[test]
    fn an_old_style_jpeg_page_of_bare_scans_reads_with_the_tables_its_tags_point_to() -> Result<(), OcrError> {
        // Two strips of 16 rows, red over blue, each encoded alone with chroma subsampled
        // 2×2 (the usual old-style JPEG) and the standard tables, which the scans then share.
        let strip = |colour: [u8; 3]| {
            let mut jpeg = Vec::new();
            let mut encoder = jpeg_encoder::Encoder::new(&mut jpeg, 90);
            encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::F_2_2);
            let rgb: Vec<u8> = colour.repeat(32 * 16);
            encoder.encode(&rgb, 32, 16, jpeg_encoder::ColorType::Rgb).map_err(|e| OcrError::Image(e.to_string()))?;
            Ok::<_, OcrError>(jpeg_parts(&jpeg))
        };
        let (top, bottom) = (strip(RED)?, strip(BLUE)?);
        assert_eq!(top.tables, bottom.tables);
        let &[luma, ..] = top.sampling.as_slice() else { panic!("no components") };
        assert_eq!(luma, 0x22);
        // The tables go after the rest of the file, whose length does not depend on where.
        let page = |process: u16, offsets: [Vec<u32>; 3]| {
            let mut fields = ycbcr_fields(32, 32, 6);
            fields.extend([
                (278, Field::Short(vec![16])),
                (512, Field::Short(vec![process])),
                (530, Field::Short(vec![u16::from(luma >> 4), u16::from(luma & 15)])),
            ]);
            fields.extend((519..).zip(offsets).map(|(t, o)| (t, Field::Long(o))));
            tiff_with(&fields, &[Some(&top.scan), Some(&bottom.scan)])
        };
        let file = |process| {
            let start = page(process, [vec![0; 3], vec![0; 3], vec![0; 3]]).len() as u32;
            let mut offsets: [Vec<u32>; 3] = Default::default();
            let mut blob: Vec<u8> = Vec::new();
            for tables in &top.tables {
                for (list, table) in offsets.iter_mut().zip(tables) {
                    list.push(start + blob.len() as u32);
                    blob.extend(table);
                }
            }
            let mut file = page(process, offsets);
            assert_eq!(file.len() as u32, start);
            file.extend(blob);
            file
        };
        let page = read(&file(1))?;
        assert!(near(page.image.get_pixel(10, 4).0, RED) && near(page.image.get_pixel(10, 27).0, BLUE));
        assert!(page.warning.is_none());

        // A lossless process is refused, saying so; so are bare scans without tables.
        let lossless = read(&file(14));
        assert!(lossless.is_err_and(|e| e.to_string().contains("not lossless")));
        let bare = read(&tiff_with(&ycbcr_fields(32, 16, 6), &[Some(&top.scan)]));
        assert!(bare.is_err_and(|e| e.to_string().contains("nor a scan its tables decode")));
        Ok(())
    }

    #[test]
    fn tiff_numbers_read_as_written_in_either_byte_order() {
        for (header, written) in [(b"MM\0*", [9, 9, 1, 2, 3, 4, 9, 9]), (b"II*\0", [9, 9, 4, 3, 2, 1, 9, 9])] {
            let layout = TiffLayout::of(header).expect("a TIFF header");
            let mut file = [9u8; 8];
            layout.write(&mut file, 2, 4, 0x0102_0304);
            assert_eq!(file, written);
            assert_eq!(layout.number(&file, 2, 4), Some(0x0102_0304));
            assert_eq!(layout.number(&file, 6, 4), None, "past the end");
        }
    }
}
