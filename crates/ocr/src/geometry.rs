//! Points, quadrilaterals and the minimum-area rectangle of a point set.

pub type Point = [f32; 2];

/// A text region as four corners in the reading order of its text: top-left, top-right,
/// bottom-right, bottom-left of the upright glyphs (so TL→TR is the reading direction).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quad(pub [Point; 4]);

pub(crate) fn sub(a: Point, b: Point) -> Point {
    [a[0] - b[0], a[1] - b[1]]
}

pub(crate) fn dot(a: Point, b: Point) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}

/// Which of four directions (to the nearest quarter turn, 0 = left to right) an angle is.
pub(crate) fn quarter_turns(angle: f32) -> usize {
    ((angle / std::f32::consts::FRAC_PI_2).round() as i32).rem_euclid(4) as usize
}

/// The turn from angle `b` to angle `a`, in [-π, π).
pub(crate) fn turn_between(a: f32, b: f32) -> f32 {
    (a - b + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI
}

/// The reading direction of most of the quads' text, to within its skew: the quadrant their
/// lengths beyond a square's vote for, and the median angle of the voters there. A box about
/// as long as high (a lone figure, "0") reads either way and DB leaves it unturned; on
/// nics-background-checks' page shown turned a quarter, 669 such boxes outnumbered its 549
/// turned lines of figures, and the page was read across its columns. Where no box is longer
/// than high, each counts once.
pub(crate) fn reading_angle<'a>(quads: impl Iterator<Item = &'a Quad>) -> f32 {
    use std::f32::consts::FRAC_PI_2;
    let votes: Vec<(f32, f32)> =
        quads.map(|q| (q.angle(), (q.width() / q.height().max(1e-3) - 1.0).max(0.0))).collect();
    let directed = votes.iter().any(|&(_, v)| v > 0.0);
    let weight = |v: f32| if directed { v } else { 1.0 };
    let mut tally = [0.0f32; 4];
    for &(a, v) in &votes {
        tally[quarter_turns(a)] += weight(v);
    }
    let best = (0..4).max_by(|&a, &b| tally[a].total_cmp(&tally[b]).then(b.cmp(&a))).unwrap_or(0);
    let base = best as f32 * FRAC_PI_2;
    let offsets: Vec<f32> = votes
        .iter()
        .filter(|&&(a, v)| quarter_turns(a) == best && weight(v) > 0.0)
        .map(|&(a, _)| turn_between(a, base))
        .collect();
    base + docsift_layout::median(offsets)
}

fn len(v: Point) -> f32 {
    v[0].hypot(v[1])
}

fn cross(o: Point, a: Point, b: Point) -> f32 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

impl Quad {
    /// Length of the reading-direction edge.
    pub fn width(&self) -> f32 {
        len(sub(self.0[1], self.0[0])).max(len(sub(self.0[2], self.0[3])))
    }

    /// Length of the edge across the text.
    pub fn height(&self) -> f32 {
        len(sub(self.0[3], self.0[0])).max(len(sub(self.0[2], self.0[1])))
    }

    /// The point at fractions (u along the text, v across it) of the quad, bilinearly.
    pub fn at(&self, u: f32, v: f32) -> Point {
        let [a, b, c, d] = self.0;
        let top = [a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u];
        let bottom = [d[0] + (c[0] - d[0]) * u, d[1] + (c[1] - d[1]) * u];
        [top[0] + (bottom[0] - top[0]) * v, top[1] + (bottom[1] - top[1]) * v]
    }

    /// The piece of the quad between fractions u0 and u1 along the text.
    pub fn slice(&self, u0: f32, u1: f32) -> Quad {
        Quad([self.at(u0, 0.0), self.at(u1, 0.0), self.at(u1, 1.0), self.at(u0, 1.0)])
    }

    /// Turned a quarter turn: the text is read down the old right edge (a crop rotated 90°
    /// counter-clockwise).
    pub fn quarter_turn(&self) -> Quad {
        let [a, b, c, d] = self.0;
        Quad([b, c, d, a])
    }

    /// Turned upside down.
    pub fn half_turn(&self) -> Quad {
        let [a, b, c, d] = self.0;
        Quad([c, d, a, b])
    }

    /// Reading direction as an angle in radians (0 = left to right, π/2 = downwards).
    pub fn angle(&self) -> f32 {
        let [a, b, c, d] = self.0;
        let dx = (b[0] - a[0]) + (c[0] - d[0]);
        let dy = (b[1] - a[1]) + (c[1] - d[1]);
        dy.atan2(dx)
    }

    pub fn centre(&self) -> Point {
        let s = self.0.iter().fold([0.0, 0.0], |a, p| [a[0] + p[0], a[1] + p[1]]);
        [s[0] / 4.0, s[1] / 4.0]
    }

    /// Unit vector along the text (the top edge) and that edge's length.
    pub fn axis(&self) -> (Point, f32) {
        let d = sub(self.0[1], self.0[0]);
        let l = len(d).max(f32::MIN_POSITIVE);
        ([d[0] / l, d[1] / l], l)
    }

    /// Signed distance of `p` from the quad's centre, across its text (positive below it).
    pub fn across(&self, p: Point) -> f32 {
        let (e, _) = self.axis();
        dot(sub(p, self.centre()), [-e[1], e[0]])
    }

    /// A point in the quad's frame: along its text from its start and across it from its top,
    /// in its heights.
    pub fn in_frame(&self, p: Point) -> Point {
        let (e, _) = self.axis();
        let d = sub(p, self.0[0]);
        let h = self.height().max(f32::MIN_POSITIVE);
        [dot(d, e) / h, dot(d, [-e[1], e[0]]) / h]
    }

    /// The image point at `[u, v]` in the quad's frame.
    pub fn from_frame(&self, [u, v]: Point) -> Point {
        let (e, _) = self.axis();
        let h = self.height();
        let o = self.0[0];
        [o[0] + h * (u * e[0] - v * e[1]), o[1] + h * (u * e[1] + v * e[0])]
    }

    /// The quad of `[u0, v0, u1, v1]` in this quad's frame.
    pub fn frame_quad(&self, [u0, v0, u1, v1]: [f32; 4]) -> Quad {
        Quad([[u0, v0], [u1, v0], [u1, v1], [u0, v1]].map(|p| self.from_frame(p)))
    }

    /// Grown by `d` on every side.
    pub fn grown(&self, d: f32) -> Quad {
        let (e, _) = self.axis();
        let n = [-e[1], e[0]];
        let shift = |p: Point, a: f32, b: f32| [p[0] + d * (a * e[0] + b * n[0]), p[1] + d * (a * e[1] + b * n[1])];
        let [tl, tr, br, bl] = self.0;
        Quad([shift(tl, -1.0, -1.0), shift(tr, 1.0, -1.0), shift(br, 1.0, 1.0), shift(bl, -1.0, 1.0)])
    }

    pub fn bounds(&self) -> [f32; 4] {
        let xs = self.0.map(|p| p[0]);
        let ys = self.0.map(|p| p[1]);
        let min = |v: [f32; 4]| v.into_iter().fold(f32::INFINITY, f32::min);
        let max = |v: [f32; 4]| v.into_iter().fold(f32::NEG_INFINITY, f32::max);
        [min(xs), min(ys), max(xs), max(ys)]
    }

    pub fn map(&self, f: impl Fn(Point) -> Point) -> Quad {
        Quad(self.0.map(f))
    }

    /// Whether `p` lies inside (or on) the quad, which must be convex.
    pub fn contains(&self, p: Point) -> bool {
        let q = &self.0;
        let signs: Vec<f32> = (0..4).map(|i| cross(q[i], q[(i + 1) % 4], p)).collect();
        signs.iter().all(|&s| s >= -1e-3) || signs.iter().all(|&s| s <= 1e-3)
    }
}

/// Convex hull (Andrew's monotone chain), counter-clockwise in y-down coordinates' mirror;
/// collinear points dropped.
pub fn convex_hull(mut pts: Vec<Point>) -> Vec<Point> {
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut hull: Vec<Point> = Vec::with_capacity(pts.len() * 2);
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &Point>> =
            if pass == 0 { Box::new(pts.iter()) } else { Box::new(pts.iter().rev()) };
        for &p in iter {
            while hull.len() >= start + 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// A rotated rectangle: centre, unit axis along its width (within 45° of +x), sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RotatedRect {
    pub center: Point,
    pub axis: Point,
    pub width: f32,
    pub height: f32,
}

impl RotatedRect {
    /// Corners TL, TR, BR, BL with the width along the near-horizontal axis.
    pub fn quad(&self) -> Quad {
        let [cx, cy] = self.center;
        let [ux, uy] = self.axis;
        // Perpendicular pointing down the page (y grows downward).
        let (vx, vy) = (-uy, ux);
        let (hw, hh) = (self.width / 2.0, self.height / 2.0);
        let p = |su: f32, sv: f32| [cx + su * hw * ux + sv * hh * vx, cy + su * hw * uy + sv * hh * vy];
        Quad([p(-1.0, -1.0), p(1.0, -1.0), p(1.0, 1.0), p(-1.0, 1.0)])
    }

    /// Grown by `d` on every side.
    pub fn grow(&self, d: f32) -> RotatedRect {
        RotatedRect { width: self.width + 2.0 * d, height: self.height + 2.0 * d, ..*self }
    }
}

/// Minimum-area enclosing rectangle of a point set (rotating calipers over hull edges).
pub fn min_area_rect(points: Vec<Point>) -> Option<RotatedRect> {
    let hull = convex_hull(points);
    match hull.len() {
        0 => return None,
        1 => return Some(RotatedRect { center: hull[0], axis: [1.0, 0.0], width: 0.0, height: 0.0 }),
        _ => {}
    }
    let mut best: Option<(f32, RotatedRect)> = None;
    for i in 0..hull.len() {
        let e = sub(hull[(i + 1) % hull.len()], hull[i]);
        let l = len(e);
        if l == 0.0 {
            continue;
        }
        let u = [e[0] / l, e[1] / l];
        let v = [-u[1], u[0]];
        let (mut u0, mut u1, mut v0, mut v1) = (f32::INFINITY, f32::NEG_INFINITY, f32::INFINITY, f32::NEG_INFINITY);
        for p in &hull {
            let pu = p[0] * u[0] + p[1] * u[1];
            let pv = p[0] * v[0] + p[1] * v[1];
            u0 = u0.min(pu);
            u1 = u1.max(pu);
            v0 = v0.min(pv);
            v1 = v1.max(pv);
        }
        let area = (u1 - u0) * (v1 - v0);
        if best.as_ref().is_none_or(|(a, _)| area < *a) {
            let (cu, cv) = ((u0 + u1) / 2.0, (v0 + v1) / 2.0);
            let center = [cu * u[0] + cv * v[0], cu * u[1] + cv * v[1]];
            best = Some((area, normalise_axis(center, u, u1 - u0, v1 - v0)));
        }
    }
    best.map(|(_, r)| r)
}

/// Picks, of the rectangle's two axes and their directions, the one within 45° of +x.
fn normalise_axis(center: Point, u: Point, w: f32, h: f32) -> RotatedRect {
    let candidates = [(u, w, h), ([-u[1], u[0]], h, w), ([-u[0], -u[1]], w, h), ([u[1], -u[0]], h, w)];
    let (axis, width, height) =
        candidates.into_iter().fold(candidates[0], |best, c| if c.0[0] > best.0[0] { c } else { best });
    RotatedRect { center, axis, width, height }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_area_rect_of_an_axis_aligned_box_is_the_box() {
        let pts = vec![[0.0, 0.0], [10.0, 0.0], [10.0, 4.0], [0.0, 4.0], [5.0, 2.0]];
        let r = min_area_rect(pts).unwrap();
        assert!((r.width - 10.0).abs() < 1e-4 && (r.height - 4.0).abs() < 1e-4, "{r:?}");
        let q = r.quad();
        assert!((q.0[0][0] - 0.0).abs() < 1e-4 && (q.0[0][1] - 0.0).abs() < 1e-4, "{q:?}");
        assert!((q.0[2][0] - 10.0).abs() < 1e-4 && (q.0[2][1] - 4.0).abs() < 1e-4, "{q:?}");
    }

    #[test]
    fn min_area_rect_follows_a_tilted_line() {
        // A 100×10 bar tilted by 10°.
        let (s, c) = 10f32.to_radians().sin_cos();
        let mut pts = Vec::new();
        for i in 0..=100 {
            for j in 0..=10 {
                let (x, y) = (i as f32, j as f32);
                pts.push([x * c - y * s, x * s + y * c]);
            }
        }
        let r = min_area_rect(pts).unwrap();
        assert!((r.width - 100.0).abs() < 0.1 && (r.height - 10.0).abs() < 0.1, "{r:?}");
        assert!((r.axis[1].atan2(r.axis[0]).to_degrees() - 10.0).abs() < 0.1, "{r:?}");
    }

    #[test]
    fn quarter_and_half_turns_move_the_reading_edge() {
        let q = Quad([[0.0, 0.0], [10.0, 0.0], [10.0, 2.0], [0.0, 2.0]]);
        assert!((q.angle() - 0.0).abs() < 1e-6);
        assert!((q.quarter_turn().angle() - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
        assert!((q.half_turn().angle().abs() - std::f32::consts::PI).abs() < 1e-6);
        assert_eq!(q.slice(0.0, 0.5).0[1], [5.0, 0.0]);
        assert!(q.contains([5.0, 1.0]) && !q.contains([11.0, 1.0]));
    }

    fn boxes(n: usize, w: f32, h: f32, turned: bool) -> Vec<Quad> {
        (0..n)
            .map(|i| {
                let q = Quad([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]]).map(|[x, y]| [x + 20.0 * i as f32, y]);
                if turned { q.quarter_turn() } else { q }
            })
            .collect()
    }

    #[test]
    fn lone_figures_do_not_outvote_the_lines_of_a_page_turned_a_quarter() {
        // nics-background-checks turned a quarter: more boxes of one figure, about as long as
        // high and left unturned, than turned lines of figures.
        let quads = [boxes(12, 14.0, 15.0, false), boxes(8, 15.0, 40.0, true)].concat();
        assert!((reading_angle(quads.iter()) - std::f32::consts::FRAC_PI_2).abs() < 1e-4);
        // Where no box is longer than high, each counts once.
        let quads = [boxes(3, 15.0, 15.0, false), boxes(2, 15.0, 15.0, true)].concat();
        assert!(reading_angle(quads.iter()).abs() < 1e-4);
    }
}
