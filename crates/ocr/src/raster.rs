//! Raster input: image files decoded with the `image` crate, PDF pages rendered with hayro
//! (a pure-Rust renderer that decodes DCT, Flate, CCITT, JBIG2 and JPX images).

use std::sync::Arc;
use std::time::Duration;

use hayro::hayro_interpret::InterpreterSettings;
use hayro::hayro_syntax::Pdf;
use hayro::vello_cpu::color::palette::css::WHITE;
use hayro::{PixmapSettings, RenderCache, RenderSettings};
use image::RgbImage;

use crate::OcrError;
use crate::det::Area;
use crate::jpeg2000::{decode_jpeg2000, is_jpeg2000, jp2_pixel_aspect};
use crate::tiff_file::{
    TiffLayout, TiffPage, decode_refused, exif_pixel_aspect, page_from_its_strips, planes_in_tiles, single_page_tiff,
    tiff_pages, tiff_pixel_aspect,
};
use crate::webp_file::frame_cut_short;

/// A page larger than this is refused rather than allocated: a 600 dpi A2 sheet, whose RGB
/// copy stays under `image`'s default 512 MiB allocation limit.
pub const MAX_PAGE_PIXELS: u64 = 1 << 27;

/// Refuses a page of more than `MAX_PAGE_PIXELS` from its header's size, before its pixels
/// are allocated: a few hundred bytes of PNG or JPEG can claim gigabytes, more than a
/// browser tab's wasm memory holds.
pub(crate) fn page_within_limit(width: u32, height: u32) -> Result<(), OcrError> {
    if u64::from(width) * u64::from(height) > MAX_PAGE_PIXELS {
        return Err(OcrError::PageTooLarge { width, height });
    }
    Ok(())
}

/// PNG, JPEG, TIFF (its first page), WebP, GIF (its first frame), BMP, PNM or JPEG 2000
/// bytes -> RGB pixels (grey and 1-bit images widened, transparent ones laid on white).
pub fn decode_image(bytes: &[u8]) -> Result<RgbImage, OcrError> {
    ImageFile::open(bytes).page(0).map(|p| p.image)
}

/// An image file's pages: a TIFF's page directories in order (multi-page scans and faxes),
/// or the one picture of the other formats. Pages are decoded one at a time, on demand.
pub struct ImageFile<'a> {
    bytes: &'a [u8],
    /// A TIFF's pages; empty for the other formats.
    tiff_pages: Vec<TiffPage>,
    /// Why a TIFF's chain of directories broke off, when it did: pages after the break
    /// cannot be found.
    pub broken_chain: Option<String>,
}

impl<'a> ImageFile<'a> {
    pub fn open(bytes: &'a [u8]) -> ImageFile<'a> {
        let (tiff_pages, broken_chain) = TiffLayout::of(bytes).map(|l| tiff_pages(bytes, l)).unwrap_or_default();
        ImageFile { bytes, tiff_pages, broken_chain }
    }

    pub fn page_count(&self) -> usize {
        self.tiff_pages.len().max(1)
    }

    /// Page `index` (0-based) as RGB pixels, square as shown (see `square_pixels`).
    pub fn page(&self, index: usize) -> Result<DecodedPage, OcrError> {
        let (img, aspect, warning, unread) = match self.tiff_pages.get(index) {
            None if index == 0 && is_jpeg2000(self.bytes) => {
                let (img, warning) = guarded("JPEG 2000", || decode_jpeg2000(self.bytes))??;
                (img, jp2_pixel_aspect(self.bytes), warning, None)
            }
            // A TIFF whose first directory cannot be read: `image` would fail at it too.
            None if index == 0
                && self.tiff_pages.is_empty()
                && let Some(why) = &self.broken_chain =>
            {
                return Err(OcrError::Corrupt(why.clone()));
            }
            // A WebP cut short, which `image` decodes whole or not at all (and whose
            // container it may refuse, the chunks it declares after the frame missing).
            None if index == 0
                && self.tiff_pages.is_empty()
                && let Some((img, warning, unread)) = frame_cut_short(self.bytes) =>
            {
                (img, None, Some(warning.to_string()), unread)
            }
            // A PNG, JPEG, WebP, GIF, BMP or PNM; or a TIFF of nothing but thumbnails, read as
            // its first.
            None if index == 0 && self.tiff_pages.is_empty() => {
                let reader = image::ImageReader::new(std::io::Cursor::new(self.bytes))
                    .with_guessed_format()
                    .map_err(|e| image_error(e.into()))?;
                let format = reader.format();
                let mut decoder = reader.into_decoder().map_err(image_error)?;
                let aspect = match format {
                    Some(image::ImageFormat::Png) => png_pixel_aspect(self.bytes),
                    Some(image::ImageFormat::Jpeg) => jfif_pixel_aspect(self.bytes)
                        .or_else(|| exif_pixel_aspect(&image::ImageDecoder::exif_metadata(&mut decoder).ok()??)),
                    Some(image::ImageFormat::Bmp) => bmp_pixel_aspect(self.bytes),
                    _ => None,
                };
                let stored = image::ImageDecoder::dimensions(&decoder);
                // An interlaced PNG or GIF broken off is read again pass by pass; whole, as
                // `image` reads it, three times as fast.
                let jpeg_cut = format == Some(image::ImageFormat::Jpeg) && jpeg_cut_short(self.bytes);
                let (img, orientation, (broken, unread)) = upright(decoder, |d| match decoded(d) {
                    Ok((img, None)) if jpeg_cut => Ok(undecoded_blocks_to_white(img)),
                    Ok((img, None)) => Ok((img, (None, None))),
                    broken => match in_passes(format, self.bytes) {
                        Some(passes) => passes.map(|(img, broken)| (img, (broken, None))),
                        None => broken.map(|(img, broken)| {
                            let unread = unwritten_rows(self.bytes, &img);
                            (img, (broken, unread))
                        }),
                    },
                })?;
                let cut_short =
                    jpeg_cut.then(|| "the JPEG ends before its picture does (the file was cut short)".to_string());
                let unread = unread.map(|a| turned(a, stored, orientation));
                (img, aspect.map(|a| shown_aspect(a, orientation)), broken.or(cut_short), unread)
            }
            None => return Err(OcrError::Image(format!("no page {} in the image file", index + 1))),
            Some(&page) => {
                let file = TiffLayout::of(self.bytes)
                    .and_then(|layout| single_page_tiff(self.bytes, layout, page))
                    .ok_or_else(|| OcrError::Image("TIFF: a page directory outside the file".into()))?;
                let aspect = tiff_pixel_aspect(&file);
                // `tiff` asserts (a panic, which ends a browser's worker) on planes stored
                // apart in tiles: those are read plane by plane.
                let decoded = match planes_in_tiles(&file) {
                    true => Err(OcrError::Image(
                        "TIFF: planes stored apart in tiles are read on grey, RGB, L*a*b* and YCbCr pages only".into(),
                    )),
                    false => tiff_page(&file),
                };
                match decoded {
                    Ok((img, broken)) => (img, aspect, broken, None),
                    // Faxes, palette, YCbCr and L*a*b* pages `image` does not decode, and
                    // pages whose file ends among their strips or whose planes it refuses.
                    Err(e) => match decode_refused(&file) {
                        Some(Ok((img, warning))) => (img, aspect, warning, None),
                        // Cut short, or stored in planes, it is read from its strips
                        // (`page_from_its_strips`).
                        refused => {
                            let e = refused.and_then(Result::err).unwrap_or(e);
                            let (img, warning, unread) = page_from_its_strips(&file).unwrap_or(Err(e))?;
                            (img, aspect, warning, unread)
                        }
                    },
                }
            }
        };
        let stored = (img.width(), img.height());
        let (image, stretch_warning) = square_pixels(on_white(img), aspect)?;
        let warning = match (warning, stretch_warning) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
        let (sx, sy) = (image.width() as f32 / stored.0 as f32, image.height() as f32 / stored.1 as f32);
        let unread = unread.map(|a| Area { x: a.x * sx, y: a.y * sy, w: a.w * sx, h: a.h * sy });
        Ok(DecodedPage { image, warning, unread })
    }
}

/// Pixels whose resolutions differ by less than this are read as stored: a fine-mode fax's
/// 204×196 dpi are 4% apart, and stretching them would only blur.
const SQUARE_ENOUGH: f32 = 1.1;

/// Pixels said to be more than this many times taller than wide, or wider than tall, are
/// read as stored: a fax in standard mode is 2.08 (204×98 dpi), and a larger ratio is more
/// likely a wrong tag than a scan.
const MAX_PIXEL_ASPECT: f32 = 4.0;

/// `img`, whose pixels are `aspect` times taller than wide as shown, stretched along its
/// coarser axis to square pixels: a fax in standard mode (204×98 dpi) stores its rows at
/// half the density of its columns, and read as stored its print is squashed to half height,
/// which the models misread. Each stored pixel is repeated (nearest), not blended down: a
/// bilevel fax so blended read 0.106 CER against 0.094 (grey pages alike, 0.027); it is
/// smoothed both ways as it is read instead (`stairs`: 0.082). A stretch past
/// `MAX_PAGE_PIXELS` leaves the page as stored, with a warning.
fn square_pixels(img: RgbImage, aspect: Option<f32>) -> Result<(RgbImage, Option<String>), OcrError> {
    let Some(aspect) = aspect.filter(|a| (1.0 / MAX_PIXEL_ASPECT..=MAX_PIXEL_ASPECT).contains(a)) else {
        return Ok((img, None));
    };
    if (1.0 / SQUARE_ENOUGH..SQUARE_ENOUGH).contains(&aspect) {
        return Ok((img, None));
    }
    let (w, h) = img.dimensions();
    let (sw, sh) =
        if aspect > 1.0 { (w, (h as f32 * aspect).round() as u32) } else { ((w as f32 / aspect).round() as u32, h) };
    if page_within_limit(sw, sh).is_err() {
        let warning = format!(
            "the picture's pixels are not square ({aspect:.2} times as tall as wide) and it was read as stored: \
             stretched to {sw}×{sh} it would pass the page size limit"
        );
        return Ok((img, Some(warning)));
    }
    Ok((image::imageops::resize(&img, sw, sh, image::imageops::FilterType::Nearest), None))
}

/// How much taller than wide a pixel stored `aspect` times taller than wide shows once the
/// picture is turned as `orientation` says: a quarter turn swaps its sides.
pub(crate) fn shown_aspect(aspect: f32, orientation: image::metadata::Orientation) -> f32 {
    use image::metadata::Orientation::{Rotate90, Rotate90FlipH, Rotate270, Rotate270FlipH};
    if matches!(orientation, Rotate90 | Rotate270 | Rotate90FlipH | Rotate270FlipH) { 1.0 / aspect } else { aspect }
}

/// A stored pixel's height over its width from its densities across and down (pixels per
/// unit), where both are given.
pub(crate) fn aspect_of_densities(across: f32, down: f32) -> Option<f32> {
    (across > 0.0 && down > 0.0 && across.is_finite() && down.is_finite()).then(|| across / down)
}

/// A PNG's stored pixel shape, from its `pHYs` chunk (pixels per unit across and down; the
/// unit may be unknown, the ratio still holds).
fn png_pixel_aspect(bytes: &[u8]) -> Option<f32> {
    let reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().ok()?;
    let dims = reader.info().pixel_dims?;
    aspect_of_densities(dims.xppu as f32, dims.yppu as f32)
}

/// A JPEG's stored pixel shape, from its JFIF header (APP0: "JFIF", version, units, then the
/// densities across and down; with units 0 they are the pixel's aspect ratio alone).
fn jfif_pixel_aspect(bytes: &[u8]) -> Option<f32> {
    // SOI, then APP0's marker and length, and the JFIF identifier.
    let app0 = bytes.get(..18)?;
    if app0[..4] != [0xFF, 0xD8, 0xFF, 0xE0] || &app0[6..11] != b"JFIF\0" {
        return None;
    }
    let density = |at: usize| f32::from(u16::from_be_bytes([app0[at], app0[at + 1]]));
    aspect_of_densities(density(14), density(16))
}

/// A BMP's stored pixel shape, from its info header's pixels per metre across and down (the
/// Windows header of 40 bytes and its later versions, and OS/2's of 64; the core header of
/// 12 has none).
fn bmp_pixel_aspect(bytes: &[u8]) -> Option<f32> {
    let int = |at: usize| Some(i32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    if bytes.get(..2)? != b"BM" || int(14)? < 40 {
        return None;
    }
    aspect_of_densities(int(38)? as f32, int(42)? as f32)
}

/// RGB pixels of the picture, its transparent parts laid on white: a logo or a scan with an
/// alpha channel shows on a white page, whereas dropping the alpha leaves the colour under
/// it (often black, under dark text).
fn on_white(img: image::DynamicImage) -> RgbImage {
    if !img.color().has_alpha() {
        return img.to_rgb8();
    }
    let rgba = img.to_rgba8();
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let image::Rgba([r, g, b, a]) = *rgba.get_pixel(x, y);
        let a = u32::from(a);
        image::Rgb([r, g, b].map(|c| ((u32::from(c) * a + 255 * (255 - a) + 127) / 255) as u8))
    })
}

/// A page of an image file, and what of it could not be decoded (rows of a damaged fax).
pub struct DecodedPage {
    pub image: RgbImage,
    pub warning: Option<String>,
    /// The rows (or, turned, columns) of the page its file ends before, left white: a file cut
    /// short. The line the break runs through holds only part of its print (`lines_clear_of`).
    pub unread: Option<Area>,
}

/// The stored rows a decoder broken off never wrote, or wrote in part, as an area of the stored
/// picture: read again into a black buffer, they are those holding bytes both reads left as
/// filled (`decoded` fills white). A decoder writes its rows in order (a BMP's from the
/// bottom), so they are one run.
fn unwritten_rows(bytes: &[u8], white: &image::DynamicImage) -> Option<Area> {
    let reader = image::ImageReader::new(std::io::Cursor::new(bytes)).with_guessed_format().ok()?;
    let decoder = reader.into_decoder().ok()?;
    let mut black = vec![0; usize::try_from(image::ImageDecoder::total_bytes(&decoder)).ok()?];
    // Broken off where the first read was.
    let _ = image::ImageDecoder::read_image(decoder, &mut black);
    let (width, height) = (white.width(), white.height());
    let row_bytes = black.len() / height.max(1) as usize;
    let white = white.as_bytes();
    // A row the break is in was written in part.
    let unwritten = |y: &u32| {
        let row = *y as usize * row_bytes..(*y as usize + 1) * row_bytes;
        let (white, black) = (white.get(row.clone()).unwrap_or_default(), black.get(row).unwrap_or_default());
        white.iter().zip(black).any(|(&w, &b)| w == u8::MAX && b == 0)
    };
    let first = (0..height).find(unwritten)?;
    let last = (0..height).rev().find(unwritten)?;
    Some(Area { x: 0.0, y: first as f32, w: width as f32, h: (last + 1 - first) as f32 })
}

/// The grey a JPEG decoder leaves where a file cut short ends: blocks whose coefficients never
/// came are zero, the middle of each channel.
const UNDECODED_GREY: [u8; 3] = [128; 3];

/// A JPEG picture cut short -> the picture with its blocks from the break on white, as other
/// pictures cut short are (`decoded`), and those rows as an area of the stored picture. They
/// are the rows from which each ends in undecoded grey: the break's row of blocks was decoded
/// from its left only, and is left out whole. No area where the picture does not end so (a
/// progressive JPEG's later scans missing: every block was decoded, coarser).
fn undecoded_blocks_to_white(img: image::DynamicImage) -> (image::DynamicImage, (Option<String>, Option<Area>)) {
    let rgb = img.into_rgb8();
    let (w, h) = rgb.dimensions();
    let ends_grey = |y: &u32| w > 0 && rgb.get_pixel(w - 1, *y).0 == UNDECODED_GREY;
    let from = (0..h).rev().take_while(ends_grey).last();
    let mut img = image::DynamicImage::ImageRgb8(rgb);
    let unread = from.map(|from| rows_to_white(&mut img, from));
    (img, (None, unread))
}

/// `img` white (and opaque) from row `from` down, and those rows as an area: the rows a
/// picture cut short holds no data for.
pub(crate) fn rows_to_white(img: &mut image::DynamicImage, from: u32) -> Area {
    if !matches!(img, image::DynamicImage::ImageRgba8(_)) {
        *img = image::DynamicImage::ImageRgb8(img.to_rgb8());
    }
    match img {
        image::DynamicImage::ImageRgba8(rgba) => {
            rgba.rows_mut().skip(from as usize).flatten().for_each(|p| p.0 = [u8::MAX; 4])
        }
        image::DynamicImage::ImageRgb8(rgb) => {
            rgb.rows_mut().skip(from as usize).flatten().for_each(|p| p.0 = [u8::MAX; 3])
        }
        _ => {}
    }
    let (w, h) = (img.width(), img.height());
    Area { x: 0.0, y: from as f32, w: w as f32, h: h.saturating_sub(from) as f32 }
}

/// `area` of a picture stored `width`×`height`, where it lies once the picture is turned as
/// `orientation` says (as `DynamicImage::apply_orientation` turns it).
pub(crate) fn turned(area: Area, (width, height): (u32, u32), orientation: image::metadata::Orientation) -> Area {
    use image::metadata::Orientation as O;
    let (w, h) = (width as f32, height as f32);
    let Area { x, y, w: aw, h: ah } = area;
    // Where the area's near corner goes, and whether its sides swap.
    let (x, y, swapped) = match orientation {
        O::NoTransforms => (x, y, false),
        O::Rotate90 => (h - (y + ah), x, true),
        O::Rotate180 => (w - (x + aw), h - (y + ah), false),
        O::Rotate270 => (y, w - (x + aw), true),
        O::FlipHorizontal => (w - (x + aw), y, false),
        O::FlipVertical => (x, h - (y + ah), false),
        O::Rotate90FlipH => (y, x, true),
        O::Rotate270FlipH => (h - (y + ah), w - (x + aw), true),
    };
    if swapped { Area { x, y, w: ah, h: aw } } else { Area { x, y, w: aw, h: ah } }
}

/// A single-page TIFF decoded by `image`, whose `tiff` asserts on some valid files (planes
/// stored apart in tiles): a panic there is an error.
pub(crate) fn tiff_page(file: &[u8]) -> Result<(image::DynamicImage, Option<String>), OcrError> {
    guarded("the TIFF decoder", || {
        let mut decoder = image::codecs::tiff::TiffDecoder::new(std::io::Cursor::new(file)).map_err(image_error)?;
        image::ImageDecoder::set_limits(&mut decoder, image::Limits::default()).map_err(image_error)?;
        upright(decoder, decoded).map(|(img, _, broken)| (img, broken))
    })?
}

/// A file the decoder could not read through is malformed (cut short, corrupt); one it
/// cannot read at all, of a kind or a feature it does not know, is unsupported.
fn image_error(e: image::ImageError) -> OcrError {
    match e {
        image::ImageError::Decoding(_) | image::ImageError::IoError(_) => OcrError::Corrupt(e.to_string()),
        _ => OcrError::Image(e.to_string()),
    }
}

/// Whether a JPEG's last scan goes on to the file's end with no end-of-image marker after
/// it: the file was cut short. `image` decodes what is there, without an error. The marker
/// cannot occur inside a scan's data, where a 0xFF byte is followed by 0x00 or a restart
/// marker, and a thumbnail's (in EXIF) comes before the picture's own scans; the last one
/// lies near the end of a whole file, so the search from there is short.
fn jpeg_cut_short(bytes: &[u8]) -> bool {
    let after_end = bytes.windows(2).rposition(|w| w == [0xFF, 0xD9]).map_or(bytes, |end| &bytes[end..]);
    after_end.windows(2).any(|w| w == [0xFF, 0xDA])
}

/// The decoded picture turned as its orientation tag (EXIF in a JPEG or PNG, the TIFF tag)
/// says, as a browser or an image viewer shows it: a phone's photo of a page is stored
/// sideways with a tag, and its boxes must match the picture the user sees. An unreadable
/// tag leaves the picture as stored. With the picture `decode` makes, how it was turned, and
/// why its data broke off where it did (see `decoded`).
fn upright<D: image::ImageDecoder, B>(
    mut decoder: D,
    decode: impl FnOnce(D) -> Result<(image::DynamicImage, B), OcrError>,
) -> Result<(image::DynamicImage, image::metadata::Orientation, B), OcrError> {
    let (width, height) = decoder.dimensions();
    page_within_limit(width, height)?;
    let orientation = decoder.orientation().unwrap_or(image::metadata::Orientation::NoTransforms);
    let (mut img, broken) = decode(decoder)?;
    img.apply_orientation(orientation);
    Ok((img, orientation, broken))
}

/// The decoder's picture. Where its data breaks off (a file cut short by a download or a
/// copy, a corrupt stretch), the rows it decoded before the break, the rest white, and a
/// warning that says so: PNG, BMP and GIF decoders fill the picture's rows in order (`image`
/// reads a TIFF page whole before it writes a row; an interlaced PNG's or GIF's passes are read
/// again, `in_passes`). Nothing decoded (or samples of floating point, which white cannot be
/// written into as bytes) is an error.
fn decoded(decoder: impl image::ImageDecoder) -> Result<(image::DynamicImage, Option<String>), OcrError> {
    let (width, height) = decoder.dimensions();
    let colour = decoder.color_type();
    let too_large = || OcrError::PageTooLarge { width, height };
    let mut bytes = vec![u8::MAX; usize::try_from(decoder.total_bytes()).map_err(|_| too_large())?];
    let broken = match decoder.read_image(&mut bytes) {
        Ok(()) => None,
        Err(e @ (image::ImageError::Decoding(_) | image::ImageError::IoError(_)))
            if colour.bytes_per_pixel() <= 2 * colour.channel_count() && bytes.iter().any(|&b| b != u8::MAX) =>
        {
            Some(format!("the picture breaks off ({e}): the rest of it is read as blank"))
        }
        Err(e) => return Err(image_error(e)),
    };
    let img = picture_of(width, height, colour, bytes)
        .ok_or_else(|| OcrError::Image(format!("pixels of type {colour:?} are not read")))?;
    Ok((img, broken))
}

/// Adam7's passes over a PNG's pixels, in order: the first column and row each samples, and
/// its steps across and down (PNG specification, 8.2).
const ADAM7: [[u32; 4]; 7] =
    [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

/// Whether a PNG's header says its pixels are interlaced (Adam7): the signature, IHDR's length
/// and type, then width, height, depth, colour, compression and filter before the method.
fn png_interlaced(bytes: &[u8]) -> bool {
    bytes.get(12..16) == Some(b"IHDR") && bytes.get(28) == Some(&1)
}

/// An interlaced PNG's or GIF's picture read pass by pass (`interlaced_png`, `interlaced_gif`);
/// `None` for other pictures.
fn in_passes(
    format: Option<image::ImageFormat>,
    bytes: &[u8],
) -> Option<Result<(image::DynamicImage, Option<String>), OcrError>> {
    match format? {
        image::ImageFormat::Png => png_interlaced(bytes).then(|| interlaced_png(bytes)),
        image::ImageFormat::Gif => interlaced_gif(bytes),
        _ => None,
    }
}

/// An interlaced PNG's picture, each pixel a pass brings spread over the pixels later passes
/// would bring (`png::splat_interlaced_row`), as a browser shows one loading. Where the file
/// breaks off, the picture so far is the passes before the break, whole and coarser (after the
/// sixth pass every other row, after the fifth every other pixel of those): `image` writes
/// each pass's pixels in place and leaves white between them, print that reads faint and dotted.
fn interlaced_png(bytes: &[u8]) -> Result<(image::DynamicImage, Option<String>), OcrError> {
    let corrupt = |e: png::DecodingError| match e {
        png::DecodingError::IoError(_) | png::DecodingError::Format(_) => OcrError::Corrupt(format!("PNG: {e}")),
        _ => OcrError::Image(format!("PNG: {e}")),
    };
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    // Palettes, transparency and bit depths made 8-bit grey or RGB, with alpha or not; the
    // pages are read as 8-bit RGB.
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    // The picture's own size is held to `MAX_PAGE_PIXELS` before; this bounds what its chunks
    // may make the decoder allocate besides, as `image`'s default limit does.
    decoder.set_limits(png::Limits { bytes: PNG_ALLOCATION_LIMIT });
    let mut reader = decoder.read_info().map_err(corrupt)?;
    let (width, height) = (reader.info().width, reader.info().height);
    let (colour, samples) = match reader.output_color_type().0 {
        png::ColorType::Grayscale => (image::ColorType::L8, 1),
        png::ColorType::GrayscaleAlpha => (image::ColorType::La8, 2),
        png::ColorType::Rgb | png::ColorType::Indexed => (image::ColorType::Rgb8, 3),
        png::ColorType::Rgba => (image::ColorType::Rgba8, 4),
    };
    let stride = width as usize * samples;
    let mut pixels = vec![u8::MAX; stride * height as usize];
    let mut rows = 0;
    let broken = loop {
        match reader.next_interlaced_row() {
            Ok(None) => break None,
            Ok(Some(row)) => {
                if let png::InterlaceInfo::Adam7(pass) = row.interlace() {
                    png::splat_interlaced_row(&mut pixels, stride, row.data(), pass, 8 * samples as u8);
                }
                rows += 1;
            }
            Err(e) if rows > 0 => break Some(interlaced_break(width, height, rows, &e)),
            Err(e) => return Err(corrupt(e)),
        }
    };
    let img = picture_of(width, height, colour, pixels)
        .ok_or_else(|| OcrError::Image(format!("PNG: {width}×{height} pixels of type {colour:?} do not fit")))?;
    Ok((img, broken))
}

/// The allocation an interlaced PNG's decoder may make besides its picture's pixels, `image`'s
/// default: text and colour profile chunks are inflated, and a few bytes could claim gigabytes.
const PNG_ALLOCATION_LIMIT: usize = 512 << 20;

/// What an interlaced PNG of `width`×`height` broken off after `rows` rows of its passes
/// shows from where: the pass it broke in, the first row that pass had not reached, and how
/// coarse the passes before leave the picture from there.
fn interlaced_break(width: u32, height: u32, rows: u32, e: &png::DecodingError) -> String {
    let mut left = rows;
    for (pass, [x0, y0, _, dy]) in ADAM7.into_iter().enumerate() {
        let lines = if width > x0 { height.saturating_sub(y0).div_ceil(dy) } else { 0 };
        if left < lines {
            // Each pass doubles the pixels received: after pass k, one pixel in 2^(7 - k).
            let coarse = (pass > 0).then(|| format!("one pixel in {}", 1u32 << (7 - pass)));
            return pass_break(pass, ADAM7.len(), y0 + left * dy, coarse, e);
        }
        left -= lines;
    }
    format!("the interlaced picture breaks off after its last pass ({e})")
}

/// The warning for an interlaced picture broken off in its `pass` (0-based) of `passes`: its
/// rows from `from` on are read from what the passes before brought (`coarse`), or blank.
fn pass_break(pass: usize, passes: usize, from: u32, coarse: Option<String>, e: &dyn std::fmt::Display) -> String {
    let shown = coarse.map_or("are read as blank".to_string(), |c| format!("are read from {c} (the passes before)"));
    format!(
        "the interlaced picture breaks off in its pass {} of {passes} ({e}): its rows from {from} on {shown}",
        pass + 1
    )
}

/// GIF's interlaced passes: the first row each brings, and its step down (GIF89a, appendix E).
const GIF_PASSES: [u32; 4] = [0, 4, 2, 1];

/// An interlaced GIF's first frame laid on its screen (transparent around it, as `image` lays
/// it), each row a pass brings repeated down over the rows later passes would bring; `None`
/// where the frame is not interlaced. Broken off, its rows keep the passes before the break
/// (after the first every eighth row, after the third every other): `image` writes each row
/// in place and leaves white between them.
fn interlaced_gif(bytes: &[u8]) -> Option<Result<(image::DynamicImage, Option<String>), OcrError>> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(std::io::Cursor::new(bytes)).ok()?;
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let frame = decoder.next_frame_info().ok()??;
    if !frame.interlaced {
        return None;
    }
    let [left, top, frame_width, frame_height] = [frame.left, frame.top, frame.width, frame.height].map(u32::from);
    let mut screen = image::RgbaImage::new(width, height);
    let mut row = vec![0; decoder.line_length()];
    let mut rows = 0;
    let mut broken = None;
    'passes: for (pass, first) in GIF_PASSES.into_iter().enumerate() {
        // Each pass halves the step of the one before; the first two step by 8.
        let step = 8 >> pass.saturating_sub(1);
        for y in (first..frame_height).step_by(step) {
            match decoder.fill_buffer(&mut row) {
                Ok(true) => {}
                end => {
                    let e = end.map_or_else(|e| e.to_string(), |_| "its data ends".to_string());
                    let coarse = (pass > 0).then(|| format!("one row in {}", 8 >> (pass - 1)));
                    broken = Some(pass_break(pass, GIF_PASSES.len(), top + y, coarse, &e));
                    break 'passes;
                }
            }
            rows += 1;
            // Down to the next row an earlier or this pass brings, within the frame and screen.
            let repeat = if pass == 0 { 8 } else { step as u32 - first };
            let across = frame_width.min(width.saturating_sub(left)) as usize * 4;
            for y in (top + y..top + (y + repeat).min(frame_height)).filter(|&y| y < height) {
                let at = (y as usize * width as usize + left as usize) * 4;
                if let Some(to) = screen.get_mut(at..at + across) {
                    to.copy_from_slice(&row[..across]);
                }
            }
        }
    }
    if rows == 0 {
        return Some(Err(OcrError::Corrupt("GIF: the picture breaks off before its first row".into())));
    }
    Some(Ok((image::DynamicImage::ImageRgba8(screen), broken)))
}

/// A picture of `colour` samples from a decoder's bytes (in native byte order).
fn picture_of(width: u32, height: u32, colour: image::ColorType, bytes: Vec<u8>) -> Option<image::DynamicImage> {
    use image::{ColorType as C, DynamicImage as D, ImageBuffer as B};
    let wide = || bytes.chunks_exact(2).map(|b| u16::from_ne_bytes([b[0], b[1]])).collect::<Vec<u16>>();
    let float = || bytes.chunks_exact(4).map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]])).collect::<Vec<f32>>();
    match colour {
        C::L8 => B::from_raw(width, height, bytes).map(D::ImageLuma8),
        C::La8 => B::from_raw(width, height, bytes).map(D::ImageLumaA8),
        C::Rgb8 => B::from_raw(width, height, bytes).map(D::ImageRgb8),
        C::Rgba8 => B::from_raw(width, height, bytes).map(D::ImageRgba8),
        C::L16 => B::from_raw(width, height, wide()).map(D::ImageLuma16),
        C::La16 => B::from_raw(width, height, wide()).map(D::ImageLumaA16),
        C::Rgb16 => B::from_raw(width, height, wide()).map(D::ImageRgb16),
        C::Rgba16 => B::from_raw(width, height, wide()).map(D::ImageRgba16),
        C::Rgb32F => B::from_raw(width, height, float()).map(D::ImageRgb32F),
        C::Rgba32F => B::from_raw(width, height, float()).map(D::ImageRgba32F),
        _ => None,
    }
}

/// `img` resampled to w×h with a bilinear (triangle) filter whose support grows with the
/// reduction, as `image`'s Triangle resize, but with SIMD (SSE4/AVX2, NEON, wasm simd128):
/// a 300 dpi page shrinks for detection in a quarter of the time.
pub fn resized(img: &RgbImage, w: u32, h: u32) -> Result<RgbImage, OcrError> {
    resized_area(img, Area::whole(img.width(), img.height()), w, h)
}

/// The `area` of `img` resampled to w×h as `resized` does (copied when the sizes match).
pub fn resized_area(img: &RgbImage, area: Area, w: u32, h: u32) -> Result<RgbImage, OcrError> {
    use fast_image_resize::images::{Image, ImageRef};
    use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
    let err = |e: &dyn std::fmt::Display| OcrError::Image(format!("resize: {e}"));
    let src = ImageRef::new(img.width(), img.height(), img.as_raw(), PixelType::U8x3).map_err(|e| err(&e))?;
    let mut dst = Image::new(w.max(1), h.max(1), PixelType::U8x3);
    // Single-precision sums can put the area's far edge a hair beyond the image's.
    let (x, y) = (area.x as f64, area.y as f64);
    let (cw, ch) = ((area.w as f64).min(img.width() as f64 - x), (area.h as f64).min(img.height() as f64 - y));
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Bilinear)).crop(x, y, cw, ch);
    Resizer::new().resize(&src, &mut dst, &options).map_err(|e| err(&e))?;
    RgbImage::from_raw(w.max(1), h.max(1), dst.into_vec()).ok_or_else(|| err(&"buffer size"))
}

pub fn encode_png(img: &RgbImage) -> Result<Vec<u8>, OcrError> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).map_err(|e| OcrError::Image(e.to_string()))?;
    Ok(out.into_inner())
}

/// The renderer and the JPEG 2000, TIFF and WebP decoders are large third-party bodies of code fed
/// hostile files: a panic in one (`what`) becomes an error for that page, not a crash of the
/// extraction.
pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, OcrError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|_| OcrError::Image(format!("{what} failed on this page")))
}

/// A PDF page as pixels, and how many pixels one PDF point spans.
pub struct RenderedPage {
    pub image: RgbImage,
    pub scale: f32,
}

/// Pixels are capped at this many per side: a poster-sized page is not rendered at full dpi.
const MAX_RENDER_SIDE: f32 = 8192.0;

/// Rendering a page is given up after this long (natively; in the browser the docsift
/// worker ends the OCR worker instead). hayro cannot be stopped, and some malformed pictures
/// make it loop: a JBIG2 symbol dictionary of empty height classes kept hayro-jbig2 0.4
/// decoding for 345 s (a mutated corpus scan), while the corpus's scans render in under 2 s.
pub const MAX_RENDER_TIME: Duration = Duration::from_secs(30);

/// The stack of the thread a page renders on: the main thread's, as deeply nested content
/// rendered on the calling thread before.
#[cfg(not(target_arch = "wasm32"))]
const RENDER_STACK_BYTES: usize = 8 << 20;

/// An open PDF for rendering pages one at a time.
pub struct PdfRenderer {
    pdf: Arc<Pdf>,
}

impl PdfRenderer {
    pub fn open(bytes: &[u8], password: &str) -> Result<PdfRenderer, OcrError> {
        let pdf = guarded("PDF render", || Pdf::new_with_password(Arc::new(bytes.to_vec()), password))?
            .map_err(|e| OcrError::Image(format!("PDF render: {e:?}")))?;
        Ok(PdfRenderer { pdf: Arc::new(pdf) })
    }

    /// Renders page `index` (0-based) at `dpi`, rotation applied, on white; natively it is
    /// given up after `MAX_RENDER_TIME`.
    pub fn render(&self, index: usize, dpi: f32) -> Result<RenderedPage, OcrError> {
        self.render_within(index, dpi, MAX_RENDER_TIME)
    }

    /// `render`, given up after `limit`.
    pub fn render_within(&self, index: usize, dpi: f32, limit: Duration) -> Result<RenderedPage, OcrError> {
        let pdf = Arc::clone(&self.pdf);
        within(limit, move || render_page(&pdf, index, dpi))
    }
}

/// `render` on a thread of its own, waited for `limit` at most. A render given up is left
/// to end (or loop) on its own, holding only its page and the document: Rust cannot stop a
/// thread, and an answer late beats none.
#[cfg(not(target_arch = "wasm32"))]
fn within(
    limit: Duration,
    render: impl FnOnce() -> Result<RenderedPage, OcrError> + Send + 'static,
) -> Result<RenderedPage, OcrError> {
    use std::sync::mpsc::{RecvTimeoutError, channel};
    let (done, answer) = channel();
    std::thread::Builder::new()
        .name("docsift-render".into())
        .stack_size(RENDER_STACK_BYTES)
        .spawn(move || done.send(render()))
        .map_err(|e| OcrError::Image(format!("PDF render: no thread to render on: {e}")))?;
    match answer.recv_timeout(limit) {
        Ok(rendered) => rendered,
        Err(RecvTimeoutError::Timeout) => {
            Err(OcrError::Image(format!("PDF render: the page took more than {} s to render", limit.as_secs_f32())))
        }
        Err(RecvTimeoutError::Disconnected) => Err(OcrError::Image("PDF render failed on this page".into())),
    }
}

/// The browser builds render on the calling thread: the worker's watchdog ends a render that
/// takes too long (pkg/worker.js).
#[cfg(target_arch = "wasm32")]
fn within(_: Duration, render: impl FnOnce() -> Result<RenderedPage, OcrError>) -> Result<RenderedPage, OcrError> {
    render()
}

fn render_page(pdf: &Pdf, index: usize, dpi: f32) -> Result<RenderedPage, OcrError> {
    let pages = pdf.pages();
    let page = pages.get(index).ok_or_else(|| OcrError::Image(format!("PDF render: no page {}", index + 1)))?;
    let (w, h) = page.render_dimensions();
    let scale = (dpi / 72.0).min(MAX_RENDER_SIDE / w.max(h).max(1.0));
    let settings = PixmapSettings { x_scale: scale, y_scale: scale, bg_color: WHITE };
    let cache = RenderCache::new();
    let pixmap = guarded("PDF render", || {
        hayro::render(page, &cache, &InterpreterSettings::default(), &RenderSettings::default(), &settings)
    })?;
    let (pw, ph) = (pixmap.width() as u32, pixmap.height() as u32);
    let rgb: Vec<u8> = pixmap.data_as_u8_slice().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    let image = RgbImage::from_raw(pw, ph, rgb).ok_or_else(|| OcrError::Image("PDF render: bad pixmap".into()))?;
    Ok(RenderedPage { image, scale })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::imageops::{FilterType, resize};

    /// A TIFF of pages (RGB w×h of one colour, or, marked, a thumbnail) in one chain.
    fn tiff_of(big: bool, pages: &[(u32, u32, [u8; 3], bool)]) -> Vec<u8> {
        use tiff::encoder::{TiffEncoder, TiffKind, colortype::RGB8};
        fn write<K: TiffKind>(
            mut enc: TiffEncoder<&mut std::io::Cursor<Vec<u8>>, K>,
            pages: &[(u32, u32, [u8; 3], bool)],
        ) {
            for &(w, h, rgb, thumbnail) in pages {
                let mut img = enc.new_image::<RGB8>(w, h).expect("directory");
                if thumbnail {
                    img.encoder().write_tag(tiff::tags::Tag::NewSubfileType, 1u32).expect("tag");
                }
                img.write_data(&rgb.repeat((w * h) as usize)).expect("pixels");
            }
        }
        let mut out = std::io::Cursor::new(Vec::new());
        if big {
            write(TiffEncoder::new_big(&mut out).expect("encoder"), pages);
        } else {
            write(TiffEncoder::new(&mut out).expect("encoder"), pages);
        }
        out.into_inner()
    }

    const RED: [u8; 3] = [200, 10, 10];
    const GREEN: [u8; 3] = [10, 200, 10];
    const BLUE: [u8; 3] = [10, 10, 200];

    #[test]
    fn every_page_of_a_multi_page_tiff_is_read_and_thumbnails_are_not_pages() -> Result<(), OcrError> {
        for big in [false, true] {
            let bytes = tiff_of(big, &[(30, 20, RED, false), (8, 5, GREEN, true), (40, 10, BLUE, false)]);
            let file = ImageFile::open(&bytes);
            assert_eq!((file.page_count(), file.broken_chain.as_deref()), (2, None), "BigTIFF: {big}");
            let (first, second) = (file.page(0)?.image, file.page(1)?.image);
            assert_eq!((first.dimensions(), first.get_pixel(3, 3).0), ((30, 20), RED));
            assert_eq!((second.dimensions(), second.get_pixel(39, 9).0), ((40, 10), BLUE));
            assert!(file.page(2).is_err());
            assert_eq!(decode_image(&bytes)?.dimensions(), (30, 20));
        }
        Ok(())
    }

    /// Where the next-directory link of a classic little-endian TIFF's last directory lies.
    fn last_link(bytes: &[u8]) -> usize {
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes")) as usize;
        let mut at = u32_at(4);
        loop {
            let link = at + 2 + 12 * u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
            match u32_at(link) {
                0 => return link,
                next => at = next,
            }
        }
    }

    #[test]
    fn a_tiff_chain_that_loops_or_points_past_the_end_keeps_the_pages_before_the_break() -> Result<(), OcrError> {
        let good = tiff_of(false, &[(30, 20, RED, false), (40, 10, BLUE, false)]);
        let link = last_link(&good);
        let first = good[4..8].to_vec();
        for target in [first, (good.len() as u32 + 100).to_le_bytes().to_vec()] {
            let mut bytes = good.clone();
            bytes[link..link + 4].copy_from_slice(&target);
            let file = ImageFile::open(&bytes);
            assert_eq!(file.page_count(), 2);
            assert!(file.broken_chain.is_some());
            assert_eq!(file.page(1)?.image.get_pixel(0, 0).0, BLUE);
        }
        // Cut before its first directory (libtiff writes it after the pixels): an error that
        // says so, not the decoder's "failed to fill whole buffer".
        let first = u32::from_le_bytes([good[4], good[5], good[6], good[7]]) as usize;
        match ImageFile::open(&good[..first - 1]).page(0) {
            Err(OcrError::Corrupt(why)) => {
                assert!(why.contains(&format!("no page directory to read: a directory at byte {first}")), "{why}");
            }
            other => panic!("{:?}", other.map(|p| p.image.dimensions())),
        }
        Ok(())
    }

    /// The bytes of `bytes` from `at` replaced by `with`.
    fn patched(mut bytes: Vec<u8>, at: usize, with: &[u8]) -> Vec<u8> {
        bytes[at..at + with.len()].copy_from_slice(with);
        bytes
    }

    /// A TIFF of one grey page of `width`×`height` in one Deflate strip of a few zero rows:
    /// a header that claims more than its data holds.
    fn deflated_grey_tiff(width: u32, height: u32) -> Result<Vec<u8>, OcrError> {
        deflated_grey_tiff_with(width, height, vec![])
    }

    /// `deflated_grey_tiff` with `more` fields.
    fn deflated_grey_tiff_with(
        width: u32,
        height: u32,
        more: Vec<(u16, crate::tiff_file::tests::Field)>,
    ) -> Result<Vec<u8>, OcrError> {
        use crate::tiff_file::tests::{Field, tiff_with};
        let mut strip = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut strip, &[0; 64]).map_err(|e| OcrError::Image(e.to_string()))?;
        let strip = strip.finish().map_err(|e| OcrError::Image(e.to_string()))?;
        // Sizes, 8 bits, Deflate, black is zero, one sample, one strip.
        let mut fields = vec![
            (256, Field::Long(vec![width])),
            (257, Field::Long(vec![height])),
            (258, Field::Short(vec![8])),
            (259, Field::Short(vec![8])),
            (262, Field::Short(vec![1])),
            (277, Field::Short(vec![1])),
            (278, Field::Long(vec![height])),
        ];
        fields.extend(more);
        fields.sort_by_key(|(t, _)| *t);
        Ok(tiff_with(&fields, &[Some(&strip)]))
    }

    #[test]
    fn a_header_claiming_more_pixels_than_a_page_may_have_is_refused_before_decoding() -> Result<(), OcrError> {
        use crate::tiff_file::tests::jpeg_of;
        let small = RgbImage::from_pixel(16, 16, image::Rgb(RED));
        let huge = 60_000u32;
        // PNG: IHDR's width and height, then its CRC over type and data.
        let png = patched(encode_png(&small)?, 16, &[huge.to_be_bytes(), huge.to_be_bytes()].concat());
        let mut crc = flate2::Crc::new();
        crc.update(&png[12..29]);
        let png = patched(png, 29, &crc.sum().to_be_bytes());
        // JPEG: the baseline frame header's height and width.
        let jpeg = jpeg_of(&small)?;
        let sof = jpeg.windows(2).position(|m| m == [0xff, 0xc0]).ok_or(OcrError::Image("no baseline frame".into()))?;
        let side = (huge as u16).to_be_bytes();
        let jpeg = patched(jpeg, sof + 5, &[side, side].concat());
        for (name, bytes) in [("PNG", png), ("JPEG", jpeg), ("TIFF", deflated_grey_tiff(huge, huge)?)] {
            match ImageFile::open(&bytes).page(0) {
                Err(OcrError::PageTooLarge { width, height }) => assert_eq!((width, height), (huge, huge), "{name}"),
                other => panic!("{name}: {:?}", other.map(|p| p.image.dimensions())),
            }
        }
        // The same files at their true sizes read.
        assert_eq!(decode_image(&jpeg_of(&small)?)?.dimensions(), (16, 16));
        assert_eq!(decode_image(&deflated_grey_tiff(8, 8)?)?.dimensions(), (8, 8));
        Ok(())
    }

    #[test]
    fn a_photo_tagged_as_turned_is_read_upright_as_viewers_show_it() -> Result<(), OcrError> {
        // Stored 30×20, red above blue, tagged "turn 90° clockwise to view" (EXIF orientation 6).
        let stored = RgbImage::from_fn(30, 20, |_, y| image::Rgb(if y < 10 { RED } else { BLUE }));
        let mut jpeg = crate::tiff_file::tests::jpeg_of(&stored)?;
        let tiff: [u8; 26] =
            [b'M', b'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0];
        let mut app1 = vec![0xff, 0xe1, 0, 2 + 6 + tiff.len() as u8];
        app1.extend_from_slice(b"Exif\0\0");
        app1.extend_from_slice(&tiff);
        jpeg.splice(2..2, app1);
        let shown = decode_image(&jpeg)?;
        assert_eq!(shown.dimensions(), (20, 30));
        let near = |p: [u8; 3], want: [u8; 3]| p.iter().zip(want).all(|(&a, b)| a.abs_diff(b) < 40);
        // Turned clockwise, the top (red) is on the right.
        assert!(near(shown.get_pixel(17, 15).0, RED) && near(shown.get_pixel(2, 15).0, BLUE));
        Ok(())
    }

    #[test]
    fn pictures_whose_pixels_are_not_square_are_read_stretched_square() -> Result<(), OcrError> {
        use crate::tiff_file::tests::Field;
        let err = |e: &dyn std::fmt::Display| OcrError::Image(e.to_string());
        let stored = RgbImage::from_pixel(16, 8, image::Rgb(RED));
        // PNG: pHYs of 8000×4000 pixels a metre, each pixel twice as tall as wide.
        let mut png = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut png, 16, 8);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_pixel_dims(Some(png::PixelDimensions { xppu: 8000, yppu: 4000, unit: png::Unit::Meter }));
            let mut writer = encoder.write_header().map_err(|e| err(&e))?;
            writer.write_image_data(stored.as_raw()).map_err(|e| err(&e))?;
        }
        // JPEG: JFIF densities 200 across and 100 down (units: dots an inch).
        let mut jpeg = crate::tiff_file::tests::jpeg_of(&stored)?;
        assert_eq!(&jpeg[6..11], b"JFIF\0");
        jpeg[13] = 1;
        jpeg[14..18].copy_from_slice(&[0, 200, 0, 100]);
        // JPEG without JFIF: EXIF's XResolution 200 and YResolution 100 (big-endian TIFF
        // fields, each rational after the directory).
        let mut exif_jpeg = crate::tiff_file::tests::jpeg_of(&stored)?;
        let jfif_end = 4 + usize::from(u16::from_be_bytes([exif_jpeg[4], exif_jpeg[5]]));
        let entry = |tag: u16, at: u32| [&tag.to_be_bytes()[..], &[0, 5, 0, 0, 0, 1], &at.to_be_bytes()].concat();
        let tiff_fields =
            [&b"MM\0*\0\0\0\x08\0\x02"[..], &entry(282, 38), &entry(283, 46), &[0; 4], &[0, 0, 0, 200, 0, 0, 0, 1]]
                .concat();
        let exif = [&b"Exif\0\0"[..], &tiff_fields, &[0, 0, 0, 100, 0, 0, 0, 1]].concat();
        let app1 = [&[0xff, 0xe1][..], &(exif.len() as u16 + 2).to_be_bytes(), &exif].concat();
        exif_jpeg.splice(2..jfif_end, app1);
        // BMP: 4000 pixels a metre across, 8000 down, each pixel half as tall as wide.
        let mut bmp = std::io::Cursor::new(Vec::new());
        stored.write_to(&mut bmp, image::ImageFormat::Bmp).map_err(|e| err(&e))?;
        let mut bmp = bmp.into_inner();
        bmp[38..46].copy_from_slice(&[4000i32.to_le_bytes(), 8000i32.to_le_bytes()].concat());
        // TIFF read by `image`: XResolution 98, YResolution 204, each pixel wider than tall.
        let tiff = deflated_grey_tiff_with(8, 8, vec![(282, Field::Rational(98, 1)), (283, Field::Rational(204, 1))])?;
        let files =
            [("PNG", png, (16, 16)), ("JPEG", jpeg, (16, 16)), ("EXIF", exif_jpeg, (16, 16)), ("BMP", bmp, (32, 8))];
        for (name, bytes, shown) in files.into_iter().chain([("TIFF", tiff, (17, 8))]) {
            assert_eq!(ImageFile::open(&bytes).page(0)?.image.dimensions(), shown, "{name}");
        }
        Ok(())
    }

    #[test]
    fn webp_gif_bmp_and_pnm_pictures_read_as_their_pixels() -> Result<(), OcrError> {
        let picture = RgbImage::from_fn(9, 5, |x, y| image::Rgb([RED, GREEN, BLUE][((x + y) % 3) as usize]));
        for format in
            [image::ImageFormat::WebP, image::ImageFormat::Gif, image::ImageFormat::Bmp, image::ImageFormat::Pnm]
        {
            let mut bytes = std::io::Cursor::new(Vec::new());
            picture.write_to(&mut bytes, format).map_err(|e| OcrError::Image(e.to_string()))?;
            let file = ImageFile::open(bytes.get_ref());
            assert_eq!(file.page_count(), 1);
            assert!(file.page(0)?.image == picture, "{format:?}");
        }
        Ok(())
    }

    #[test]
    fn transparent_pixels_read_as_a_white_page_whatever_colour_they_hide() -> Result<(), OcrError> {
        // Dark ink on a transparent background whose hidden colour is black, as drawing
        // programs save it; a half-transparent pixel blends halfway to white.
        let ink = image::Rgba([20, 20, 20, 255]);
        let picture = image::RgbaImage::from_fn(6, 2, |x, y| match (x, y) {
            (0, 0) => ink,
            (1, 0) => image::Rgba([0, 0, 200, 128]),
            _ => image::Rgba([0, 0, 0, 0]),
        });
        let mut png = std::io::Cursor::new(Vec::new());
        picture.write_to(&mut png, image::ImageFormat::Png).map_err(|e| OcrError::Image(e.to_string()))?;
        let page = decode_image(png.get_ref())?;
        assert_eq!([0, 1, 5].map(|x| page.get_pixel(x, 0).0), [[20, 20, 20], [127, 127, 227], [255, 255, 255]]);
        let grey = image::DynamicImage::ImageLumaA8(
            image::GrayAlphaImage::from_raw(2, 1, vec![0, 0, 0, 255]).ok_or_else(|| OcrError::Image("size".into()))?,
        );
        assert_eq!(on_white(grey).as_raw(), &[255, 255, 255, 0, 0, 0]);
        Ok(())
    }

    /// A 200×200 picture, each pixel its own colour, in `format`, and its bytes cut to `keep`
    /// of them.
    fn rows_cut_short(format: image::ImageFormat, keep: f32) -> Result<(RgbImage, Vec<u8>), OcrError> {
        let picture = RgbImage::from_fn(200, 200, |x, y| image::Rgb([y as u8, x as u8, ((x * y) % 251) as u8]));
        let mut bytes = std::io::Cursor::new(Vec::new());
        picture.write_to(&mut bytes, format).map_err(|e| OcrError::Image(e.to_string()))?;
        let mut bytes = bytes.into_inner();
        bytes.truncate((bytes.len() as f32 * keep) as usize);
        Ok((picture, bytes))
    }

    #[test]
    fn a_picture_cut_short_is_read_as_far_as_it_goes_with_a_warning() -> Result<(), OcrError> {
        // PNG rows come top first, BMP's bottom first: the rows before the break are kept.
        for (format, kept_row) in [(image::ImageFormat::Png, 0), (image::ImageFormat::Bmp, 199)] {
            let (picture, bytes) = rows_cut_short(format, 0.6)?;
            let page = ImageFile::open(&bytes).page(0)?;
            assert!(
                page.warning.as_deref().is_some_and(|w| w.contains("breaks off")),
                "{format:?}: {:?}",
                page.warning
            );
            let row = |img: &RgbImage, y: u32| (0..200).map(|x| img.get_pixel(x, y).0).collect::<Vec<_>>();
            assert_eq!(row(&page.image, kept_row), row(&picture, kept_row), "{format:?}");
            assert_eq!(row(&page.image, 199 - kept_row), vec![[255; 3]; 200], "{format:?}");
            // The rows never decoded, and the one the break is in, are told exactly: each row
            // before them is the picture's.
            let unread = page.unread.ok_or_else(|| OcrError::Image(format!("{format:?}: no rows told unread")))?;
            let (first, end) = (unread.y as u32, (unread.y + unread.h) as u32);
            assert_eq!((unread.x, unread.w), (0.0, 200.0), "{format:?}");
            assert!(first < end && (first == 0 || end == 200), "{format:?}: {unread:?}");
            let decoded = if first == 0 { end..200 } else { 0..first };
            assert!(decoded.clone().all(|y| row(&page.image, y) == row(&picture, y)), "{format:?}: {unread:?}");
            let blank = if first == 0 { 0..end - 1 } else { first + 1..end };
            assert!(blank.into_iter().all(|y| row(&page.image, y) == vec![[255; 3]; 200]), "{format:?}: {unread:?}");
        }
        let (_, whole) = rows_cut_short(image::ImageFormat::Png, 1.0)?;
        assert_eq!(ImageFile::open(&whole).page(0)?.unread, None);
        // Cut before any row: nothing to read, and the file is called corrupt, not unsupported.
        let (_, mut header_only) = rows_cut_short(image::ImageFormat::Png, 1.0)?;
        header_only.truncate(33);
        assert!(matches!(ImageFile::open(&header_only).page(0), Err(OcrError::Corrupt(_))));
        Ok(())
    }

    #[test]
    fn an_interlaced_picture_broken_off_is_told_by_the_pass_it_broke_in() {
        let e = png::DecodingError::IoError(std::io::ErrorKind::UnexpectedEof.into());
        // 16×16: passes 1–3 bring 2, 2 and 2 rows, pass 4 4, pass 5 4, pass 6 8, pass 7 8.
        let told = |rows| interlaced_break(16, 16, rows, &e);
        assert!(told(1).contains("pass 1 of 7") && told(1).contains("rows from 8 on are read as blank"), "{}", told(1));
        assert!(
            told(6).contains("pass 4 of 7") && told(6).contains("from 0 on") && told(6).contains("one pixel in 16")
        );
        assert!(
            told(15).contains("pass 6 of 7") && told(15).contains("from 2 on") && told(15).contains("one pixel in 4")
        );
        assert!(
            told(23).contains("pass 7 of 7") && told(23).contains("from 3 on") && told(23).contains("one pixel in 2")
        );
        // A picture one pixel wide has no second, fourth or sixth pass.
        assert!(interlaced_break(1, 16, 5, &e).contains("pass 5 of 7"), "{}", interlaced_break(1, 16, 5, &e));
        assert!(!png_interlaced(&encode_png(&RgbImage::new(2, 2)).unwrap_or_default()));
    }

    /// The picture of `rows_cut_short` in 64 colours as an interlaced GIF, its rows stored in
    /// the passes' order.
    fn interlaced_gif_of(picture: &RgbImage) -> Result<(RgbImage, Vec<u8>), OcrError> {
        let err = |e: &dyn std::fmt::Display| OcrError::Image(e.to_string());
        let palette: Vec<u8> = (0..64u8).flat_map(|i| [i * 4, 255 - i * 4, (i % 8) * 32]).collect();
        let (w, h) = picture.dimensions();
        let index = |x: u32, y: u32| (picture.get_pixel(x, y).0[0] / 4 + x as u8) % 64;
        let shown = RgbImage::from_fn(w, h, |x, y| {
            let i = usize::from(index(x, y)) * 3;
            image::Rgb([palette[i], palette[i + 1], palette[i + 2]])
        });
        let order = GIF_PASSES
            .into_iter()
            .enumerate()
            .flat_map(|(pass, first)| (first..h).step_by(8 >> pass.saturating_sub(1)));
        let pixels: Vec<u8> = order.flat_map(|y| (0..w).map(move |x| index(x, y))).collect();
        let mut frame = gif::Frame::from_palette_pixels(w as u16, h as u16, pixels, palette.clone(), None);
        frame.interlaced = true;
        let mut out = Vec::new();
        let mut encoder = gif::Encoder::new(&mut out, w as u16, h as u16, &[]).map_err(|e| err(&e))?;
        encoder.write_frame(&frame).map_err(|e| err(&e))?;
        drop(encoder);
        Ok((shown, out))
    }

    #[test]
    fn an_interlaced_gif_cut_short_keeps_its_earlier_passes_whole() -> Result<(), OcrError> {
        let (picture, _) = rows_cut_short(image::ImageFormat::Png, 1.0)?;
        let (shown, gif) = interlaced_gif_of(&picture)?;
        let page = ImageFile::open(&gif).page(0)?;
        assert!(page.image == shown && page.warning.is_none(), "{:?}", page.warning);
        for (keep, pass, step) in [(0.4, 2, 8), (0.6, 3, 4), (0.85, 4, 2)] {
            let page = ImageFile::open(&gif[..(gif.len() as f32 * keep) as usize]).page(0)?;
            let warning = page.warning.unwrap_or_default();
            assert!(warning.contains(&format!("pass {pass} of 4")), "{keep}: {warning}");
            assert!(warning.contains(&format!("one row in {step}")), "{keep}: {warning}");
            let from: u32 =
                warning.split("rows from ").nth(1).and_then(|w| w.split(' ').next()?.parse().ok()).unwrap_or(0);
            // Below the break each row is the last an earlier pass brought.
            for y in from..200 {
                assert!(
                    (0..200).all(|x| page.image.get_pixel(x, y) == shown.get_pixel(x, y & !(step - 1))),
                    "{keep}: row {y}"
                );
            }
        }
        Ok(())
    }

    #[test]
    fn a_jpeg_cut_short_is_read_with_a_warning_and_one_with_bytes_after_its_end_without() -> Result<(), OcrError> {
        let (_, whole) = rows_cut_short(image::ImageFormat::Jpeg, 1.0)?;
        let (picture, cut) = rows_cut_short(image::ImageFormat::Jpeg, 0.7)?;
        let warning = |bytes: &[u8]| ImageFile::open(bytes).page(0).map(|p| p.warning);
        assert!(warning(&cut)?.is_some_and(|w| w.contains("cut short")));
        // The blocks never decoded, which the decoder leaves grey, are white from the row of
        // blocks the break is in, and told unread; the rows above are the picture's.
        let page = ImageFile::open(&cut).page(0)?;
        let unread = page.unread.ok_or_else(|| OcrError::Image("no rows told unread".into()))?;
        let from = unread.y as u32;
        assert!(from > 0 && from < 200 && from.is_multiple_of(8) && unread.h == (200 - from) as f32, "{unread:?}");
        assert!(page.image.rows().skip(from as usize).flatten().all(|p| p.0 == [255; 3]));
        // Its rows and columns run as the red and green samples do; JPEG keeps them near.
        let near = |a: &image::Rgb<u8>, b: &image::Rgb<u8>| a.0[..2].iter().zip(b.0).all(|(&a, b)| a.abs_diff(b) < 24);
        assert!((0..from).all(|y| near(page.image.get_pixel(100, y), picture.get_pixel(100, y))));
        assert_eq!(ImageFile::open(&whole).page(0)?.unread, None);
        assert_eq!(warning(&whole)?, None);
        // A camera's trailer after the end-of-image marker.
        assert_eq!(warning(&[whole.as_slice(), b"trailer"].concat())?, None);
        Ok(())
    }

    #[test]
    fn an_area_turns_with_its_picture_as_apply_orientation_turns_it() {
        use image::metadata::Orientation as O;
        let area = Area { x: 1.0, y: 2.0, w: 3.0, h: 1.0 };
        for orientation in [
            O::NoTransforms,
            O::Rotate90,
            O::Rotate180,
            O::Rotate270,
            O::FlipHorizontal,
            O::FlipVertical,
            O::Rotate90FlipH,
            O::Rotate270FlipH,
        ] {
            let mut picture = image::GrayImage::from_pixel(7, 4, image::Luma([255]));
            for (x, y) in (1..4).map(|x| (x, 2)) {
                picture.put_pixel(x, y, image::Luma([0]));
            }
            let mut picture = image::DynamicImage::ImageLuma8(picture);
            picture.apply_orientation(orientation);
            let dark: Vec<(u32, u32)> =
                picture.to_luma8().enumerate_pixels().filter(|(_, _, p)| p.0[0] == 0).map(|(x, y, _)| (x, y)).collect();
            let [x0, y0] =
                [dark.iter().map(|d| d.0).min(), dark.iter().map(|d| d.1).min()].map(Option::unwrap_or_default);
            let [x1, y1] =
                [dark.iter().map(|d| d.0).max(), dark.iter().map(|d| d.1).max()].map(Option::unwrap_or_default);
            let shown = Area { x: x0 as f32, y: y0 as f32, w: (x1 + 1 - x0) as f32, h: (y1 + 1 - y0) as f32 };
            assert_eq!(turned(area, (7, 4), orientation), shown, "{orientation:?}");
        }
    }

    #[test]
    fn a_png_is_one_page() -> Result<(), OcrError> {
        let png = encode_png(&RgbImage::from_pixel(7, 3, image::Rgb(GREEN)))?;
        let file = ImageFile::open(&png);
        assert_eq!((file.page_count(), file.page(0)?.image.dimensions()), (1, (7, 3)));
        assert!(file.page(1).is_err());
        Ok(())
    }

    #[test]
    fn resized_samples_as_the_image_crates_triangle_filter() -> Result<(), OcrError> {
        // Text-like content: thin dark strokes on white, shrunk about as much as a 300 dpi page.
        let img = RgbImage::from_fn(510, 330, |x, y| {
            let ink = (x % 17 < 3 || y % 23 < 2) as u8;
            image::Rgb([255 - 230 * ink, 255 - 200 * ink, 255 - 180 * ink])
        });
        let ours = resized(&img, 250, 161)?;
        let theirs = resize(&img, 250, 161, FilterType::Triangle);
        let worst = ours.as_raw().iter().zip(theirs.as_raw()).map(|(a, b)| a.abs_diff(*b)).max();
        assert!(worst.is_some_and(|d| d <= 2), "largest difference {worst:?}");
        Ok(())
    }
}
