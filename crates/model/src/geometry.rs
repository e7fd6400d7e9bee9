use serde::{Deserialize, Serialize};

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
        BBox { x0: x0.min(x1), top: top.min(bottom), x1: x0.max(x1), bottom: top.max(bottom) }
    }

    /// The smallest box holding all `points`.
    pub fn from_points(points: &[(f32, f32)]) -> Self {
        let mut b = BBox { x0: f32::INFINITY, top: f32::INFINITY, x1: f32::NEG_INFINITY, bottom: f32::NEG_INFINITY };
        for &(x, y) in points {
            b.x0 = b.x0.min(x);
            b.x1 = b.x1.max(x);
            b.top = b.top.min(y);
            b.bottom = b.bottom.max(y);
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
            x0: self.x0.min(o.x0),
            top: self.top.min(o.top),
            x1: self.x1.max(o.x1),
            bottom: self.bottom.max(o.bottom),
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
}
