//! JPEG 2000 pictures, as JP2 files or bare codestreams (J2K), decoded with hayro-jpeg2000:
//! the decoder hayro reads a PDF's JPX images with. Libraries and archives store page scans
//! this way.

use hayro_jpeg2000::{DecodeSettings, DecoderContext, Image};
use image::{DynamicImage, GrayAlphaImage, GrayImage, RgbImage, RgbaImage};

use crate::OcrError;
use crate::raster::{MAX_PAGE_PIXELS, aspect_of_densities};

/// The JP2 signature box, and a bare codestream's first markers (SOC, then SIZ).
const JP2_SIGNATURE: &[u8] = b"\0\0\0\x0cjP  \r\n\x87\n";
const CODESTREAM_START: &[u8] = b"\xff\x4f\xff\x51";

/// A codestream numbers its tiles in 16 bits (SOT's Isot): a header declaring more is
/// malformed, and hayro sets up every declared tile before it reads one (a 3 KB file declaring
/// a million took 12 s and 1.8 GB; in a PDF, which the renderer decodes at full size, 24 GB).
pub const MAX_JPEG2000_TILES: u64 = 65_535;

/// What a JPEG 2000 picture's main header (its SIZ marker, ISO/IEC 15444-1 A.5.1) declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jpeg2000Header {
    /// The image area of the reference grid (a subsampled component has fewer samples).
    pub width: u32,
    pub height: u32,
    pub tiles: u64,
}

/// The main header of a JP2 file or a bare codestream; None where it cannot be read.
pub fn jpeg2000_header(bytes: &[u8]) -> Option<Jpeg2000Header> {
    let codestream = if bytes.starts_with(JP2_SIGNATURE) { jp2_box(bytes, b"jp2c")? } else { bytes };
    let siz = codestream.strip_prefix(CODESTREAM_START)?;
    let field = |i: usize| Some(u32::from_be_bytes(siz.get(4 + 4 * i..8 + 4 * i)?.try_into().ok()?));
    let [x, y, x_origin, y_origin, tile_w, tile_h, tile_x, tile_y] = [0, 1, 2, 3, 4, 5, 6, 7].map(field);
    let (x, y, tile_w, tile_h) = (x?, y?, tile_w?, tile_h?);
    let across = u64::from(x.checked_sub(tile_x?)?).div_ceil(u64::from(tile_w).max(1));
    let down = u64::from(y.checked_sub(tile_y?)?).div_ceil(u64::from(tile_h).max(1));
    Some(Jpeg2000Header { width: x.checked_sub(x_origin?)?, height: y.checked_sub(y_origin?)?, tiles: across * down })
}

/// The contents of the first box of type `kind` among `boxes` (a JP2 file's top level, or a
/// superbox's contents).
fn jp2_box<'a>(boxes: &'a [u8], kind: &[u8; 4]) -> Option<&'a [u8]> {
    let mut rest = boxes;
    while rest.len() >= 8 {
        let length = u32::from_be_bytes(rest[..4].try_into().ok()?) as u64;
        let (header, length) = match length {
            0 => (8, rest.len() as u64),
            1 => (16, u64::from_be_bytes(rest.get(8..16)?.try_into().ok()?)),
            n => (8, n),
        };
        let end = usize::try_from(length).ok()?.min(rest.len());
        if &rest[4..8] == kind {
            return rest.get(header..end);
        }
        rest = rest.get(end.max(header)..)?;
    }
    None
}

/// A JP2 file's stored pixel shape, from the resolution box in its header (`jp2h`, `res `):
/// the display grid's densities (`resd`) where given, else the capture grid's (`resc`), each
/// vertical then horizontal, as numerator, denominator and a power of ten (ISO/IEC 15444-1
/// I.5.3.7).
pub(crate) fn jp2_pixel_aspect(bytes: &[u8]) -> Option<f32> {
    let res = jp2_box(jp2_box(bytes, b"jp2h")?, b"res ")?;
    let grid = jp2_box(res, b"resd").or_else(|| jp2_box(res, b"resc"))?;
    let half = |at: usize| Some(f32::from(u16::from_be_bytes(grid.get(at..at + 2)?.try_into().ok()?)));
    let ten_to = |at: usize| Some(10f32.powi(i32::from(i8::from_be_bytes([*grid.get(at)?]))));
    let down = half(0)? / half(2)? * ten_to(8)?;
    let across = half(4)? / half(6)? * ten_to(9)?;
    aspect_of_densities(across, down)
}

pub fn is_jpeg2000(bytes: &[u8]) -> bool {
    bytes.starts_with(JP2_SIGNATURE) || bytes.starts_with(CODESTREAM_START)
}

fn jpeg2000_error(e: impl std::fmt::Display) -> OcrError {
    OcrError::Image(format!("JPEG 2000: {e}"))
}

/// The picture, and a warning when it was read below its full resolution: one larger than
/// `MAX_PAGE_PIXELS` is decoded at the finest of its stored halvings that fits, as JPEG 2000
/// lets a reader skip resolution levels.
pub fn decode_jpeg2000(bytes: &[u8]) -> Result<(DynamicImage, Option<String>), OcrError> {
    decode_within(bytes, MAX_PAGE_PIXELS)
}

/// `decode_jpeg2000` with a pixel limit of `max_pixels`.
fn decode_within(bytes: &[u8], max_pixels: u64) -> Result<(DynamicImage, Option<String>), OcrError> {
    if let Some(header) = jpeg2000_header(bytes).filter(|h| h.tiles > MAX_JPEG2000_TILES) {
        return Err(jpeg2000_error(format!(
            "its header declares {} tiles, more than a codestream can number ({MAX_JPEG2000_TILES})",
            header.tiles
        )));
    }
    let settings = DecodeSettings::default();
    let image = Image::new(bytes, &settings).map_err(jpeg2000_error)?;
    let (w, h) = (image.width(), image.height());
    if w == 0 || h == 0 {
        return Err(jpeg2000_error(format!("a {w}×{h} picture is empty")));
    }
    let halvings = (0..u32::BITS).find(|&k| u64::from(w >> k) * u64::from(h >> k) <= max_pixels).unwrap_or(0);
    if halvings == 0 {
        return Ok((pixels(&image)?, None));
    }
    let target = Some(((w >> halvings).max(1), (h >> halvings).max(1)));
    let reduced =
        Image::new(bytes, &DecodeSettings { target_resolution: target, ..settings }).map_err(jpeg2000_error)?;
    let (rw, rh) = (reduced.width(), reduced.height());
    if u64::from(rw) * u64::from(rh) > max_pixels {
        return Err(jpeg2000_error(format!("a {w}×{h} picture is too large to decode and has no smaller resolution")));
    }
    let warning = format!("the {w}×{h} JPEG 2000 picture was read at its reduced resolution {rw}×{rh}");
    Ok((pixels(&reduced)?, Some(warning)))
}

/// The decoded samples as an `image` picture, by their colour space's channel count: an ICC
/// profile's colours are read as the device colours of that count, four as CMYK.
fn pixels(image: &Image) -> Result<DynamicImage, OcrError> {
    let (w, h, alpha) = (image.width(), image.height(), image.has_alpha());
    let colours = image.color_space().num_channels();
    let mut context = DecoderContext::default();
    let data = image.decode(&mut context).map_err(jpeg2000_error)?.data_u8();
    let short = || jpeg2000_error("fewer samples than the picture's size");
    Ok(match (colours, alpha) {
        (1, false) => GrayImage::from_raw(w, h, data).ok_or_else(short)?.into(),
        (1, true) => GrayAlphaImage::from_raw(w, h, data).ok_or_else(short)?.into(),
        (3, false) => RgbImage::from_raw(w, h, data).ok_or_else(short)?.into(),
        (3, true) => RgbaImage::from_raw(w, h, data).ok_or_else(short)?.into(),
        (4, _) => {
            let step = 4 + usize::from(alpha);
            let rgba = data.chunks_exact(step).flat_map(|p| {
                let [r, g, b] = cmyk_to_rgb([p[0], p[1], p[2], p[3]]);
                [r, g, b, if alpha { p[4] } else { 255 }]
            });
            RgbaImage::from_raw(w, h, rgba.collect()).ok_or_else(short)?.into()
        }
        _ => return Err(jpeg2000_error(format!("a picture of {colours} colour channels"))),
    })
}

/// Ink coverage to light without a profile: each ink and black take their share of white.
fn cmyk_to_rgb([c, m, y, k]: [u8; 4]) -> [u8; 3] {
    let light = |ink: u8| ((255 - u32::from(ink)) * (255 - u32::from(k)) / 255) as u8;
    [light(c), light(m), light(y)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jpeg_2000_is_told_by_its_signature_box_or_its_codestream_markers() {
        assert!(is_jpeg2000(b"\0\0\0\x0cjP  \r\n\x87\n\0\0\0\x14ftypjp2 "));
        assert!(is_jpeg2000(b"\xff\x4f\xff\x51\0\x2f"));
        assert!(!is_jpeg2000(b"\xff\xd8\xff\xe0"));
        assert!(decode_jpeg2000(b"\xff\x4f\xff\x51\0\x2f").is_err());
    }

    /// A codestream of one 8-bit grey component, `levels` wavelet halvings (reversible 5/3),
    /// one tile, one layer, and every packet empty (ISO/IEC 15444-1 annex A): all
    /// coefficients zero, so every sample is the level shift, 128.
    fn flat_grey_codestream(w: u32, h: u32, levels: u8) -> Vec<u8> {
        let mut siz = vec![0, 0];
        for v in [w, h, 0, 0, w, h, 0, 0] {
            siz.extend(v.to_be_bytes());
        }
        siz.extend([0, 1, 7, 1, 1]);
        let cod = [0, 0, 0, 1, 0, levels, 4, 4, 0, 1];
        // No quantisation, two guard bits; each subband's exponent: bit depth plus its gain.
        let mut qcd = vec![0x40, 8 << 3];
        for _ in 0..levels {
            qcd.extend([9 << 3, 9 << 3, 10 << 3]);
        }
        let packets = vec![0u8; usize::from(levels) + 1];
        let marker = |code: u8, body: &[u8]| {
            let mut m = vec![0xff, code];
            m.extend((body.len() as u16 + 2).to_be_bytes());
            m.extend(body);
            m
        };
        let tile_part = 12 + 2 + packets.len() as u32;
        let sot = [[0, 0].as_slice(), &tile_part.to_be_bytes(), &[0, 1]].concat();
        [&[0xff, 0x4f][..], &marker(0x51, &siz), &marker(0x52, &cod), &marker(0x5c, &qcd), &marker(0x90, &sot)]
            .concat()
            .into_iter()
            .chain([0xff, 0x93])
            .chain(packets)
            .chain([0xff, 0xd9])
            .collect()
    }

    #[test]
    fn a_grey_codestream_reads_at_full_resolution_within_the_limit_and_halved_past_it() -> Result<(), OcrError> {
        let bytes = flat_grey_codestream(64, 40, 2);
        let (full, warning) = decode_within(&bytes, 64 * 40)?;
        assert_eq!((full.width(), full.height(), warning), (64, 40, None));
        assert!(full.to_luma8().pixels().all(|p| p.0 == [128]));
        let (half, warning) = decode_within(&bytes, 64 * 40 - 1)?;
        assert_eq!((half.width(), half.height()), (32, 20));
        assert!(warning.is_some_and(|w| w.contains("64×40") && w.contains("32×20")));
        let (quarter, _) = decode_within(&bytes, 16 * 10)?;
        assert_eq!((quarter.width(), quarter.height()), (16, 10));
        // Two halvings are all the picture stores.
        assert!(decode_within(&bytes, 16 * 10 - 1).is_err());
        Ok(())
    }

    /// `codestream` in a JP2 file: the signature and file type boxes, then the codestream box
    /// with its length in the 64-bit field, or as 0 (up to the end of the file).
    fn jp2(codestream: &[u8], long_length: bool) -> Vec<u8> {
        let ftyp = [&20u32.to_be_bytes()[..], b"ftypjp2 \0\0\0\0jp2 "].concat();
        let jp2c = if long_length {
            [&1u32.to_be_bytes()[..], b"jp2c", &(16 + codestream.len() as u64).to_be_bytes(), codestream].concat()
        } else {
            [&0u32.to_be_bytes()[..], b"jp2c", codestream].concat()
        };
        [JP2_SIGNATURE, &ftyp, &jp2c].concat()
    }

    #[test]
    fn a_header_declaring_more_tiles_than_a_codestream_can_number_is_refused_before_decoding() {
        let one_tile = flat_grey_codestream(300, 300, 0);
        let header = Jpeg2000Header { width: 300, height: 300, tiles: 1 };
        for bytes in [one_tile.clone(), jp2(&one_tile, true), jp2(&one_tile, false)] {
            assert_eq!(jpeg2000_header(&bytes), Some(header));
        }
        // Tiles of one sample each (XTsiz, YTsiz): 90,000 of them.
        let mut tiny_tiles = one_tile;
        tiny_tiles[24..32].copy_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1]);
        for bytes in [tiny_tiles.clone(), jp2(&tiny_tiles, false)] {
            assert_eq!(jpeg2000_header(&bytes).map(|h| h.tiles), Some(90_000));
            let refused = decode_jpeg2000(&bytes).map(|_| ()).map_err(|e| e.to_string());
            assert!(refused.as_ref().is_err_and(|e| e.contains("declares 90000 tiles")), "{refused:?}");
        }
        assert_eq!(jpeg2000_header(&jp2(b"\xff\x4f\xff\x51\0\x2f", false)), None, "a cut header");
    }

    #[test]
    fn a_jp2_whose_grid_is_not_square_is_read_stretched_square() -> Result<(), OcrError> {
        let boxed =
            |kind: &[u8; 4], contents: &[u8]| [&(8 + contents.len() as u32).to_be_bytes()[..], kind, contents].concat();
        // A capture grid of 100 down (10 over 1, times 10¹) and 200 across (2 over 1, times
        // 10²): pixels twice as tall as wide. A display grid, where given, is read first.
        let resc = boxed(b"resc", &[0, 10, 0, 1, 0, 2, 0, 1, 1, 2]);
        let resd = boxed(b"resd", &[0, 1, 0, 1, 0, 1, 0, 1, 0, 0]);
        let ihdr = boxed(b"ihdr", &[0, 0, 0, 40, 0, 0, 0, 64, 0, 1, 7, 7, 0, 0]);
        let colr = boxed(b"colr", &[1, 0, 0, 0, 0, 0, 17]);
        let codestream = flat_grey_codestream(64, 40, 2);
        let with_header = |res: &[u8]| {
            let jp2h = boxed(b"jp2h", &[ihdr.clone(), colr.clone(), boxed(b"res ", res)].concat());
            let file = jp2(&codestream, false);
            // The header box goes after the signature and file type boxes, before the codestream.
            [&file[..32], &jp2h, &file[32..]].concat()
        };
        let captured = with_header(&resc);
        assert_eq!(jp2_pixel_aspect(&captured), Some(2.0));
        assert_eq!(crate::raster::ImageFile::open(&captured).page(0)?.image.dimensions(), (64, 80));
        assert_eq!(jp2_pixel_aspect(&with_header(&[resd, resc].concat())), Some(1.0));
        assert_eq!(jp2_pixel_aspect(&jp2(&codestream, false)), None);
        Ok(())
    }

    #[test]
    fn cmyk_inks_take_their_share_of_white() {
        assert_eq!(cmyk_to_rgb([0, 0, 0, 0]), [255, 255, 255]);
        assert_eq!(cmyk_to_rgb([0, 0, 0, 255]), [0, 0, 0]);
        assert_eq!(cmyk_to_rgb([255, 0, 0, 0]), [0, 255, 255]);
        assert_eq!(cmyk_to_rgb([0, 128, 0, 51]), [204, 101, 204]);
    }
}
