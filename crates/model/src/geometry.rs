use serde::{Deserialize, Serialize};

/// `f32::min`, NaN-ignoring like it, compared inline: in wasm `f32::min`/`max` are calls to
/// libm's fminf/fmaxf (wasm's own instructions propagate NaN), which took 6% of a page's
/// time there, mostly in the boxes below.
#[inline]
fn min(a: f32, b: f32) -> f32 {
    if b < a || a.is_nan() { b } else { a }
}

/// `f32::max`, as `min`.
#[inline]
fn max(a: f32, b: f32) -> f32 {
    if b > a || a.is_nan() { b } else { a }
}

/// An axis-aligned box: `x0 <= x1`, `top <= bottom`, y measured down from the page top.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BBox {
    pub x0: f32,
    pub top: f32,
    pub x1: f32,
    pub bottom: f32,
}

impl BBox {
    pub fn new(x0: f32, top: f32, x1: f32, bottom: f32) -> Self {
        BBox { x0: min(x0, x1), top: min(top, bottom), x1: max(x0, x1), bottom: max(top, bottom) }
    }

    /// The smallest box holding all `points`.
    pub fn from_points(points: &[(f32, f32)]) -> Self {
        let mut b = BBox { x0: f32::INFINITY, top: f32::INFINITY, x1: f32::NEG_INFINITY, bottom: f32::NEG_INFINITY };
        for &(x, y) in points {
            b.x0 = min(b.x0, x);
            b.x1 = max(b.x1, x);
            b.top = min(b.top, y);
            b.bottom = max(b.bottom, y);
        }
        b
    }

    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }

    pub fn height(&self) -> f32 {
        self.bottom - self.top
    }

    pub fn union(&self, o: &BBox) -> BBox {
        BBox {
            x0: min(self.x0, o.x0),
            top: min(self.top, o.top),
            x1: max(self.x1, o.x1),
            bottom: max(self.bottom, o.bottom),
        }
    }

    pub fn intersects(&self, o: &BBox) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.top < o.bottom && o.top < self.bottom
    }

    pub fn center(&self) -> (f32, f32) {
        ((self.x0 + self.x1) / 2.0, (self.top + self.bottom) / 2.0)
    }
}

/// A PDF affine matrix `[a b c d e f]`: a point maps to `(a x + c y + e, b x + d y + f)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Matrix(pub [f32; 6]);

impl Default for Matrix {
    fn default() -> Self {
        Matrix::IDENTITY
    }
}

impl Matrix {
    pub const IDENTITY: Matrix = Matrix([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    pub fn translate(tx: f32, ty: f32) -> Matrix {
        Matrix([1.0, 0.0, 0.0, 1.0, tx, ty])
    }

    /// `self` applied first, then `then` (PDF's `self × then`).
    pub fn then(&self, then: &Matrix) -> Matrix {
        let [a, b, c, d, e, f] = self.0;
        let [a2, b2, c2, d2, e2, f2] = then.0;
        Matrix([
            a * a2 + b * c2,
            a * b2 + b * d2,
            c * a2 + d * c2,
            c * b2 + d * d2,
            e * a2 + f * c2 + e2,
            e * b2 + f * d2 + f2,
        ])
    }

    pub fn apply(&self, x: f32, y: f32) -> (f32, f32) {
        let [a, b, c, d, e, f] = self.0;
        (a * x + c * y + e, b * x + d * y + f)
    }

    /// Applies only the linear part (for vectors).
    pub fn apply_vector(&self, x: f32, y: f32) -> (f32, f32) {
        let [a, b, c, d, _, _] = self.0;
        (a * x + c * y, b * x + d * y)
    }

    pub fn is_finite(&self) -> bool {
        self.0.iter().all(|v| v.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_then_applies_left_first() {
        let scale = Matrix([2.0, 0.0, 0.0, 2.0, 0.0, 0.0]);
        let shift = Matrix::translate(10.0, 0.0);
        assert_eq!(scale.then(&shift).apply(1.0, 1.0), (12.0, 2.0));
        assert_eq!(shift.then(&scale).apply(1.0, 1.0), (22.0, 2.0));
    }

    #[test]
    fn bbox_new_orders_corners() {
        let b = BBox::new(5.0, 9.0, 1.0, 2.0);
        assert_eq!((b.x0, b.top, b.x1, b.bottom), (1.0, 2.0, 5.0, 9.0));
        assert!(b.intersects(&BBox::new(4.0, 8.0, 6.0, 10.0)));
        assert!(!b.intersects(&BBox::new(5.0, 0.0, 6.0, 10.0)));
    }

    #[test]
    fn inline_min_max_ignore_nan_like_f32s_own() {
        for (a, b) in [(1.0, 2.0), (2.0, 1.0), (f32::NAN, 1.0), (1.0, f32::NAN), (-3.0, f32::INFINITY)] {
            assert_eq!(min(a, b), a.min(b), "min({a}, {b})");
            assert_eq!(max(a, b), a.max(b), "max({a}, {b})");
        }
        assert!(min(f32::NAN, f32::NAN).is_nan() && max(f32::NAN, f32::NAN).is_nan());
        let b = BBox::from_points(&[(1.0, f32::NAN), (f32::NAN, 2.0), (3.0, 4.0)]);
        assert_eq!((b.x0, b.top, b.x1, b.bottom), (1.0, 2.0, 3.0, 4.0));
    }
}
