//! Raster input: image files decoded with the `image` crate, PDF pages rendered with hayro
//! (a pure-Rust renderer that decodes DCT, Flate, CCITT, JBIG2 and JPX images).

use std::sync::Arc;

use hayro::hayro_interpret::InterpreterSettings;
use hayro::hayro_syntax::Pdf;
use hayro::vello_cpu::color::palette::css::WHITE;
use hayro::{PixmapSettings, RenderCache, RenderSettings};
use image::RgbImage;

use crate::OcrError;
use crate::det::Area;

/// PNG, JPEG or TIFF (first page) bytes -> RGB pixels (grey, 1-bit and alpha images are
/// flattened).
pub fn decode_image(bytes: &[u8]) -> Result<RgbImage, OcrError> {
    let img = image::load_from_memory(bytes).map_err(|e| OcrError::Image(e.to_string()))?;
    Ok(img.to_rgb8())
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

/// The renderer is a large third-party body of code fed hostile files: a panic in it
/// becomes an error for that page, not a crash of the extraction.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, OcrError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|_| OcrError::Image("PDF render: the renderer failed on this page".into()))
}

/// A PDF page as pixels, and how many pixels one PDF point spans.
pub struct RenderedPage {
    pub image: RgbImage,
    pub scale: f32,
}

/// Pixels are capped at this many per side: a poster-sized page is not rendered at full dpi.
const MAX_RENDER_SIDE: f32 = 8192.0;

/// An open PDF for rendering pages one at a time.
pub struct PdfRenderer {
    pdf: Pdf,
}

impl PdfRenderer {
    pub fn open(bytes: &[u8], password: &str) -> Result<PdfRenderer, OcrError> {
        let pdf = guarded(|| Pdf::new_with_password(Arc::new(bytes.to_vec()), password))?
            .map_err(|e| OcrError::Image(format!("PDF render: {e:?}")))?;
        Ok(PdfRenderer { pdf })
    }

    /// Renders page `index` (0-based) at `dpi`, rotation applied, on white.
    pub fn render(&self, index: usize, dpi: f32) -> Result<RenderedPage, OcrError> {
        let pages = self.pdf.pages();
        let page = pages.get(index).ok_or_else(|| OcrError::Image(format!("PDF render: no page {}", index + 1)))?;
        let (w, h) = page.render_dimensions();
        let scale = (dpi / 72.0).min(MAX_RENDER_SIDE / w.max(h).max(1.0));
        let settings = PixmapSettings { x_scale: scale, y_scale: scale, bg_color: WHITE };
        let cache = RenderCache::new();
        let pixmap =
            hayro::render(page, &cache, &InterpreterSettings::default(), &RenderSettings::default(), &settings);
        let (pw, ph) = (pixmap.width() as u32, pixmap.height() as u32);
        let rgb: Vec<u8> = pixmap.data_as_u8_slice().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        let image = RgbImage::from_raw(pw, ph, rgb).ok_or_else(|| OcrError::Image("PDF render: bad pixmap".into()))?;
        Ok(RenderedPage { image, scale })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::imageops::{FilterType, resize};

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
