//! Layout regions (PicoDet trained on CDLA): page image -> 608×800 input, per-stride class
//! scores and box distributions -> boxes, per-class non-maximum suppression.

use image::RgbImage;
use serde::Serialize;

use crate::OcrError;
use crate::backend::Tensor;

/// The model's fixed input (width, height).
const INPUT_W: usize = 608;
const INPUT_H: usize = 800;
/// Feature-map strides of the four output levels, finest first.
const STRIDES: [usize; 4] = [8, 16, 32, 64];
/// ImageNet statistics the detector was trained with (RGB).
const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];
/// Regions less sure than this are dropped (rapid-layout's default).
const SCORE_THRESH: f32 = 0.5;
/// Boxes of one class overlapping a better one by more than this IoU are duplicates.
const NMS_IOU: f32 = 0.5;
/// Candidates per level kept before suppression, and regions per page after it.
const TOP_K_PER_LEVEL: usize = 1000;
const MAX_REGIONS: usize = 100;

/// CDLA's ten classes, in the model's output order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RegionKind {
    Text,
    Title,
    Figure,
    FigureCaption,
    Table,
    TableCaption,
    Header,
    Footer,
    Reference,
    Equation,
}

const KINDS: [RegionKind; 10] = [
    RegionKind::Text,
    RegionKind::Title,
    RegionKind::Figure,
    RegionKind::FigureCaption,
    RegionKind::Table,
    RegionKind::TableCaption,
    RegionKind::Header,
    RegionKind::Footer,
    RegionKind::Reference,
    RegionKind::Equation,
];

/// A layout region in image pixels: [x0, y0, x1, y1].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayoutRegion {
    pub kind: RegionKind,
    pub bbox: [f32; 4],
    pub score: f32,
}

pub fn image_to_input(img: &RgbImage) -> Result<Tensor, OcrError> {
    let resized = crate::raster::resized(img, INPUT_W as u32, INPUT_H as u32)?;
    let plane = INPUT_W * INPUT_H;
    let mut t = Tensor::zeros(vec![1, 3, INPUT_H, INPUT_W]);
    for (x, y, px) in resized.enumerate_pixels() {
        let i = y as usize * INPUT_W + x as usize;
        for c in 0..3 {
            t.data[c * plane + i] = (px[c] as f32 / 255.0 - MEAN[c]) / STD[c];
        }
    }
    Ok(t)
}

/// Outputs (4 score tensors [1, cells, classes], then 4 distribution tensors [1, cells,
/// 4×bins]) -> regions scaled to a `w`×`h` image.
pub fn outputs_to_regions(out: &[Tensor], w: u32, h: u32) -> Vec<LayoutRegion> {
    if out.len() != 2 * STRIDES.len() {
        return Vec::new();
    }
    let mut candidates: Vec<LayoutRegion> = Vec::new();
    for (level, &stride) in STRIDES.iter().enumerate() {
        let (scores, dists) = (&out[level], &out[level + STRIDES.len()]);
        let (Some(&classes), Some(&dist_w)) = (scores.shape.last(), dists.shape.last()) else { continue };
        let bins = dist_w / 4;
        let cols = INPUT_W.div_ceil(stride);
        let cells = scores.data.len() / classes.max(1);
        let mut level_candidates: Vec<LayoutRegion> = Vec::new();
        for cell in 0..cells {
            let row = &scores.data[cell * classes..(cell + 1) * classes];
            let Some((best, &score)) = row.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) else { continue };
            if score <= SCORE_THRESH || best >= KINDS.len() {
                continue;
            }
            let (cx, cy) = (((cell % cols) as f32 + 0.5) * stride as f32, ((cell / cols) as f32 + 0.5) * stride as f32);
            let d = &dists.data[cell * dist_w..(cell + 1) * dist_w];
            let side = |k: usize| expected_bin(&d[k * bins..(k + 1) * bins]) * stride as f32;
            let (sx, sy) = (w as f32 / INPUT_W as f32, h as f32 / INPUT_H as f32);
            let bbox = [
                ((cx - side(0)) * sx).clamp(0.0, w as f32),
                ((cy - side(1)) * sy).clamp(0.0, h as f32),
                ((cx + side(2)) * sx).clamp(0.0, w as f32),
                ((cy + side(3)) * sy).clamp(0.0, h as f32),
            ];
            level_candidates.push(LayoutRegion { kind: KINDS[best], bbox, score });
        }
        level_candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
        level_candidates.truncate(TOP_K_PER_LEVEL);
        candidates.extend(level_candidates);
    }
    suppress(candidates)
}

/// Expected value of a softmax over distance bins (generalised focal loss regression).
fn expected_bin(logits: &[f32]) -> f32 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|&v| (v - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.iter().enumerate().map(|(i, e)| i as f32 * e).sum::<f32>() / sum
}

fn iou(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let iw = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let ih = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = iw * ih;
    let area = |r: &[f32; 4]| (r[2] - r[0]) * (r[3] - r[1]);
    let union = area(a) + area(b) - inter;
    if union <= 0.0 { 0.0 } else { inter / union }
}

/// Per-class hard non-maximum suppression, best first.
fn suppress(mut candidates: Vec<LayoutRegion>) -> Vec<LayoutRegion> {
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut kept: Vec<LayoutRegion> = Vec::new();
    for c in candidates {
        if kept.len() >= MAX_REGIONS {
            break;
        }
        if !kept.iter().any(|k| k.kind == c.kind && iou(&k.bbox, &c.bbox) > NMS_IOU) {
            kept.push(c);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_boxes_of_one_class_collapse_to_the_best() {
        let r = |kind, bbox, score| LayoutRegion { kind, bbox, score };
        let kept = suppress(vec![
            r(RegionKind::Text, [0.0, 0.0, 10.0, 10.0], 0.7),
            r(RegionKind::Text, [1.0, 1.0, 10.0, 10.0], 0.9),
            r(RegionKind::Table, [1.0, 1.0, 10.0, 10.0], 0.6),
        ]);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].score, 0.9);
        assert_eq!(kept[1].kind, RegionKind::Table);
    }

    #[test]
    fn distance_is_the_expected_bin() {
        assert!((expected_bin(&[0.0, 0.0]) - 0.5).abs() < 1e-6);
        assert!(expected_bin(&[-20.0, -20.0, 20.0]) > 1.99);
    }
}
