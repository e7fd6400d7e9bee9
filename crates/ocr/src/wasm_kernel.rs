//! An 8×8 f32 matrix-product kernel for tract on wasm SIMD, preferred over tract's own 8×8
//! for every f32 product with more than one column.
//!
//! Why: tract's wasm kernel keeps all 16 accumulators of the tile live through the inner
//! loop, as many vector registers as V8 has on x86-64, so the engine spills inside it. This
//! one runs the tile's product in two passes of four rows (8 accumulators, A read by
//! `v128.load32_splat`, B's panel read twice from cache). The whole tile program (clear,
//! product, fused ops, store) runs once per pass, so those accumulators stay in registers
//! from the clear to the store; a whole tile's sixteen went through memory between the
//! operations (a tile of depth 32, on its own, spent as long on that as on its products).
//! Detection's products at 1248×1600 take 433–516 ms so instead of 573–577 ms, and
//! recognition's at width 800 36–39 ms instead of 42–44 ms (wasm32-wasip1 builds in Node
//! 20, per-node times, two alternating runs). The products are 69% of a page's OCR time in
//! wasm; with this kernel the single-threaded OCR build reads the three bench scans in
//! Chromium 156 in 9.6 s instead of 14.1 s (same machine, interleaved runs; 10.3 s
//! with 4×8 tiles, whose twice as many kernel calls cost tract a tenth of the time). Same
//! multiply-adds in the same order (no fused multiply-add), so results are bit-identical to
//! tract's kernel; the builds with relaxed SIMD use `f32x4.relaxed_madd` instead, which the
//! engine fuses where the CPU can (rounding once).
//!
//! The kernel interprets tract's fused tile program (`FusedKerSpec`): clear, load, the
//! element-wise scalar / per-row / per-column ops, unicast add, the matrix product and the
//! store.
//!
//! And a row convolution kernel (tract's `conv_w4`: four output channels along a row), which
//! tract has for x86-64 and ARM but not for wasm. With it tract computes the convolutions of
//! few input channels (ic·kh·kw ≤ 576: the models' 3×3 and 2×2 ones) directly on the input,
//! as it does natively, instead of padding the input into a copy and gathering its patches
//! for a matrix product whose few output channels (8 or 16) fill one or two tiles. The taps
//! go a block at a time over a row, so that the block's input rows stay in the L1 cache
//! (without blocks, detection's 64→16 3×3 convolution took 0.26 s instead of the product's 0.19 s).
//! Measured in Node 20 (wasm32-wasip1 build of the same code, per-op best of 15 runs): the
//! detection model on a 1248×1600 map takes 0.87 s instead of 0.93 s; recognition (its first
//! two convolutions) is unchanged within noise.
//!
//! At stride 2 (each model's first convolutions) a point's four channels share a vector and
//! its input value is broadcast. Vectors of points, as at stride 1, took two loads and a
//! shuffle per tap there, V8 spilled the accumulators (seen in its generated code), and the
//! rows' last points ran one at a time: those convolutions ran at half the speed of stride 1.
//! Measured the same way (three alternating runs): recognition's two at width 800 take 3.0–4.1 ms
//! instead of 4.3–5.3 ms, detection's two at 1248×1600 105–131 ms instead of 130–150 ms; the
//! five bench pages in Node 20, bit-identical text, 20.6 s instead of 23.5 s (best of four
//! alternating rounds; medians 22.3 s and 24.5 s).
//!
//! Both are written once over `Lanes` (four f32 lanes): wasm `v128` in the browser build,
//! plain arrays in the native unit tests, which pin their semantics to a scalar reference.

use tract_linalg::mmm::{FusedKerSpec, OutputStoreKer};

/// Rows of the tile (A's packing width).
const MR: usize = 8;
/// Rows per pass of the product: 4 rows × 2 vectors = 8 accumulators, half V8's registers.
const PASS_ROWS: usize = 4;
/// Columns of the tile (B's packing width): two vectors per row.
const NR: usize = 8;

/// Output points of a row the convolution computes at once per channel: two vectors, so four
/// channels keep 8 accumulators, as a pass of the product does.
const CONV_POINTS: usize = 8;
/// Taps the row convolution applies per sweep of a row: four input channels of a 3×3 kernel,
/// twelve input rows, which stay in a 32 KiB L1 cache for rows up to ~600 values.
const TAP_BLOCK: usize = 36;
/// Points the strided convolution computes at once: six accumulators, six broadcasts and the
/// weights stay within V8's registers (with eight it spilled accumulators on every tap).
const STRIDED_POINTS: usize = 6;

/// Four f32 lanes and the operations the kernels need.
trait Lanes: Copy {
    fn splat(x: f32) -> Self;
    /// # Safety
    /// `p` points at four readable f32 (any alignment).
    unsafe fn load(p: *const f32) -> Self;
    /// # Safety
    /// `p` points at one readable f32.
    unsafe fn load_splat(p: *const f32) -> Self;
    /// # Safety
    /// `p` points at four writable f32 (any alignment).
    unsafe fn store(self, p: *mut f32);
    fn lanes(self) -> [f32; 4];
    fn from_lanes(v: [f32; 4]) -> Self;
    /// Four vectors' lanes transposed: lane `c` of vector `r` becomes lane `r` of vector `c`.
    fn transpose(v: [Self; 4]) -> [Self; 4] {
        let lanes = v.map(Self::lanes);
        std::array::from_fn(|c| Self::from_lanes(std::array::from_fn(|r| lanes[r][c])))
    }
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// `self + a·b`, fused where the build has relaxed SIMD (the engine may round once).
    fn mul_add(self, a: Self, b: Self) -> Self {
        self.add(a.mul(b))
    }
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    /// `self` where it is positive, `self * alpha` elsewhere.
    fn leaky(self, alpha: Self) -> Self;
}

/// A pass's accumulators: row `r` of the pass is `acc[2r]` (columns 0–3) and `acc[2r + 1]`
/// (columns 4–7).
type PassAcc<L> = [L; PASS_ROWS * 2];

/// `acc = f(operand of its row or column, acc)` over a pass, the argument order of tract's
/// fused ops (a `Sub` is operand − acc, a `SubF` acc − operand); `operand` takes the
/// accumulator's index in the whole tile (row i/2, columns (i % 2)·4…).
fn each<L: Lanes>(acc: &mut PassAcc<L>, pass: usize, operand: impl Fn(usize) -> L, f: impl Fn(L, L) -> L) {
    for (j, a) in acc.iter_mut().enumerate() {
        *a = f(operand(pass * PASS_ROWS * 2 + j), *a);
    }
}

/// Where lane `c` of accumulator `i` (row i/2, column (i % 2)·4 + c) lives in a tile.
///
/// # Safety
/// `tile` addresses an MR×NR block of f32 through its strides.
unsafe fn tile_at(tile: &OutputStoreKer, i: usize, c: usize) -> *mut f32 {
    let (row, col) = ((i / 2) as isize, (i % 2 * 4 + c) as isize);
    unsafe { tile.ptr.offset(tile.row_byte_stride * row + tile.col_byte_stride * col) as *mut f32 }
}

/// Accumulator `i`'s four values in a tile (one load when its columns are contiguous).
///
/// # Safety
/// As `tile_at`.
unsafe fn tile_load<L: Lanes>(tile: &OutputStoreKer, i: usize) -> L {
    unsafe {
        if tile.col_byte_stride == 4 {
            L::load(tile_at(tile, i, 0))
        } else {
            L::from_lanes(std::array::from_fn(|c| *tile_at(tile, i, c)))
        }
    }
}

/// Writes accumulator `i` into a tile.
///
/// # Safety
/// As `tile_at`, the block writable.
unsafe fn tile_store<L: Lanes>(tile: &OutputStoreKer, i: usize, v: L) {
    unsafe {
        if tile.col_byte_stride == 4 {
            v.store(tile_at(tile, i, 0));
        } else {
            for (c, x) in v.lanes().into_iter().enumerate() {
                *tile_at(tile, i, c) = x;
            }
        }
    }
}

/// Runs one tile program; non-zero for an operation this kernel does not implement (tract
/// then fails the product rather than computing it wrong). Every operation acts on each
/// accumulator alone, so the whole program runs once per pass of four rows: a pass's eight
/// accumulators stay in registers from the clear to the store (B's panel is read once per
/// pass, from cache). A whole tile's sixteen do not fit V8's registers, and went through
/// memory between the operations.
///
/// # Safety
/// `specs` is a program tract built for an 8×8 f32 kernel: its pointers address the packed
/// panels, per-row/per-column operands and tiles it describes, and it ends with `Done`.
unsafe fn run_tile<L: Lanes>(specs: *const FusedKerSpec<f32>) -> isize {
    for pass in 0..MR / PASS_ROWS {
        let status = unsafe { run_pass::<L>(specs, pass) };
        if status != 0 {
            return status;
        }
    }
    0
}

/// `run_tile` on the rows of one pass.
///
/// # Safety
/// As `run_tile`.
#[inline(always)]
unsafe fn run_pass<L: Lanes>(specs: *const FusedKerSpec<f32>, pass: usize) -> isize {
    let mut acc: PassAcc<L> = [L::splat(0.0); PASS_ROWS * 2];
    let first = pass * PASS_ROWS * 2;
    let mut pnl = specs;
    unsafe {
        loop {
            match *pnl {
                FusedKerSpec::Done => return 0,
                FusedKerSpec::Clear => acc = [L::splat(0.0); PASS_ROWS * 2],
                FusedKerSpec::LoadTile(_col_major, row_major) => {
                    for (j, a) in acc.iter_mut().enumerate() {
                        *a = L::load(row_major.add((first + j) * 4));
                    }
                }
                FusedKerSpec::ScalarMin(s) => each(&mut acc, pass, |_| L::splat(s), L::min),
                FusedKerSpec::ScalarMax(s) => each(&mut acc, pass, |_| L::splat(s), L::max),
                FusedKerSpec::ScalarAdd(s) => each(&mut acc, pass, |_| L::splat(s), L::add),
                FusedKerSpec::ScalarMul(s) => each(&mut acc, pass, |_| L::splat(s), L::mul),
                FusedKerSpec::ScalarSub(s) => each(&mut acc, pass, |_| L::splat(s), L::sub),
                FusedKerSpec::ScalarSubF(s) => each(&mut acc, pass, |_| L::splat(s), |s, a| a.sub(s)),
                FusedKerSpec::LeakyRelu(alpha) => each(&mut acc, pass, |_| L::splat(alpha), |s, a| a.leaky(s)),
                FusedKerSpec::PerRowMin(p) => each(&mut acc, pass, |i| L::load_splat(p.add(i / 2)), L::min),
                FusedKerSpec::PerRowMax(p) => each(&mut acc, pass, |i| L::load_splat(p.add(i / 2)), L::max),
                FusedKerSpec::PerRowAdd(p) => each(&mut acc, pass, |i| L::load_splat(p.add(i / 2)), L::add),
                FusedKerSpec::PerRowMul(p) => each(&mut acc, pass, |i| L::load_splat(p.add(i / 2)), L::mul),
                FusedKerSpec::PerRowSub(p) => each(&mut acc, pass, |i| L::load_splat(p.add(i / 2)), L::sub),
                FusedKerSpec::PerRowSubF(p) => each(&mut acc, pass, |i| L::load_splat(p.add(i / 2)), |s, a| a.sub(s)),
                FusedKerSpec::PerColMin(p) => each(&mut acc, pass, |i| L::load(p.add(i % 2 * 4)), L::min),
                FusedKerSpec::PerColMax(p) => each(&mut acc, pass, |i| L::load(p.add(i % 2 * 4)), L::max),
                FusedKerSpec::PerColAdd(p) => each(&mut acc, pass, |i| L::load(p.add(i % 2 * 4)), L::add),
                FusedKerSpec::PerColMul(p) => each(&mut acc, pass, |i| L::load(p.add(i % 2 * 4)), L::mul),
                FusedKerSpec::PerColSub(p) => each(&mut acc, pass, |i| L::load(p.add(i % 2 * 4)), L::sub),
                FusedKerSpec::PerColSubF(p) => each(&mut acc, pass, |i| L::load(p.add(i % 2 * 4)), |s, a| a.sub(s)),
                FusedKerSpec::AddRowColProducts(rows, cols) => {
                    let (lo, hi) = (L::load(cols), L::load(cols.add(4)));
                    for r in 0..PASS_ROWS {
                        let s = L::load_splat(rows.add(pass * PASS_ROWS + r));
                        acc[2 * r] = acc[2 * r].mul_add(s, lo);
                        acc[2 * r + 1] = acc[2 * r + 1].mul_add(s, hi);
                    }
                }
                // Only f32 tiles: a program asking for another item size fails.
                FusedKerSpec::AddUnicast(tile) | FusedKerSpec::Store(tile) if tile.item_size != 4 => return 1,
                FusedKerSpec::AddUnicast(tile) => each(&mut acc, pass, |i| tile_load(&tile, i), L::add),
                FusedKerSpec::Store(tile) => {
                    for (j, v) in acc.iter().enumerate() {
                        tile_store(&tile, first + j, *v);
                    }
                }
                FusedKerSpec::AddMatMul { k, pa, pb, packing: 0 } => {
                    add_mat_mul(&mut acc, k, (pa as *const f32).add(pass * PASS_ROWS), pb as _)
                }
                // Quantised and mixed-precision programs are never given to an f32 kernel.
                FusedKerSpec::AddMatMul { .. }
                | FusedKerSpec::QScale(..)
                | FusedKerSpec::RoundingShiftRight(..)
                | FusedKerSpec::ShiftLeft(_) => return 1,
            }
            pnl = pnl.add(1);
        }
    }
}

/// acc += A·B over `k` for a pass's four rows: A packed k×8 (`a` at the pass's first row),
/// B packed k×8 (two vectors).
///
/// # Safety
/// `a` and `b` address 8k f32 each from a panel's start (`a` offset by under 8).
#[inline(always)]
unsafe fn add_mat_mul<L: Lanes>(acc: &mut PassAcc<L>, k: usize, a: *const f32, b: *const f32) {
    let [mut c0, mut c1, mut c2, mut c3, mut c4, mut c5, mut c6, mut c7] = *acc;
    for i in 0..k {
        unsafe {
            let (lo, hi) = (L::load(b.add(NR * i)), L::load(b.add(NR * i + 4)));
            let ai = a.add(MR * i);
            let s = L::load_splat(ai);
            (c0, c1) = (c0.mul_add(s, lo), c1.mul_add(s, hi));
            let s = L::load_splat(ai.add(1));
            (c2, c3) = (c2.mul_add(s, lo), c3.mul_add(s, hi));
            let s = L::load_splat(ai.add(2));
            (c4, c5) = (c4.mul_add(s, lo), c5.mul_add(s, hi));
            let s = L::load_splat(ai.add(3));
            (c6, c7) = (c6.mul_add(s, lo), c7.mul_add(s, hi));
        }
    }
    *acc = [c0, c1, c2, c3, c4, c5, c6, c7];
}

/// Four output channels of a convolution along a row, as tract's `ConvW4F32` describes it:
/// point `i` of channel `o` is `bias[o]` plus every `taps[o·n + t] · input[offsets[t] + i·in_stride]`
/// (in the order of `offsets`), written at `output[o·oc_stride + i]`. Eight points at a time,
/// then four at stride 1; the last points of a row one at a time. No read goes past
/// `offsets[t] + (len − 1)·in_stride`.
///
/// # Safety
/// As tract's: every `input[offsets[t] + i·in_stride]` (i < len) readable, `taps` four times
/// as long as `offsets`, `output[o·oc_stride + i]` writable for o < 4, i < len.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn conv_w4<L: Lanes>(
    input: *const f32,
    output: *mut f32,
    taps: &[f32],
    offsets: &[isize],
    bias: &[f32; 4],
    len: usize,
    in_stride: isize,
    oc_stride: isize,
) {
    debug_assert!(taps.len() >= 4 * offsets.len(), "conv_w4: {} taps for {} offsets", taps.len(), offsets.len());
    let run = Run { input, output, taps: taps.as_ptr(), offsets, bias, oc_stride };
    unsafe {
        let done = match in_stride {
            1 => run.vectors::<L>(len),
            s => run.strided::<L>(len, s as usize),
        };
        run.points(done..len, in_stride);
    }
}

/// One call's row of `conv_w4`.
struct Run<'a> {
    input: *const f32,
    output: *mut f32,
    /// Four channels' taps, `offsets.len()` each.
    taps: *const f32,
    offsets: &'a [isize],
    bias: &'a [f32; 4],
    oc_stride: isize,
}

impl Run<'_> {
    /// Where point `i` of channel `o` goes.
    fn out(&self, o: usize, i: usize) -> *mut f32 {
        self.output.wrapping_offset(o as isize * self.oc_stride).wrapping_add(i)
    }

    /// The row's points from the first at input stride 1, eight then four at a time (a
    /// vector of points per channel, each tap broadcast); how many it computed. Each point
    /// sums its taps in order, as `points`.
    ///
    /// # Safety
    /// As `conv_w4`, at input stride 1.
    #[inline(always)]
    unsafe fn vectors<L: Lanes>(&self, len: usize) -> usize {
        let n = self.offsets.len();
        let b = self.bias.map(L::splat);
        let vector_end = (len / CONV_POINTS) * CONV_POINTS;
        let mut i = vector_end;
        unsafe {
            // The taps a block at a time over the whole row: a block's input rows stay in
            // the L1 cache while it runs, and the partial sums go through the output.
            for (block, offsets) in self.offsets.chunks(TAP_BLOCK).enumerate() {
                let first_tap = block * TAP_BLOCK;
                for i in (0..vector_end).step_by(CONV_POINTS) {
                    let base = self.input.add(i);
                    let load = |o: usize, at: usize| if block == 0 { b[o] } else { L::load(self.out(o, at)) };
                    let (mut a0, mut a1, mut a2, mut a3) = (load(0, i), load(1, i), load(2, i), load(3, i));
                    let (mut a4, mut a5, mut a6, mut a7) =
                        (load(0, i + 4), load(1, i + 4), load(2, i + 4), load(3, i + 4));
                    let t0 = self.taps.add(first_tap);
                    let (mut t0, mut t1, mut t2, mut t3) = (t0, t0.add(n), t0.add(2 * n), t0.add(3 * n));
                    for &off in offsets {
                        let p = base.offset(off);
                        let (x, y) = (L::load(p), L::load(p.add(4)));
                        let k = L::load_splat(t0);
                        (a0, a4) = (a0.mul_add(x, k), a4.mul_add(y, k));
                        let k = L::load_splat(t1);
                        (a1, a5) = (a1.mul_add(x, k), a5.mul_add(y, k));
                        let k = L::load_splat(t2);
                        (a2, a6) = (a2.mul_add(x, k), a6.mul_add(y, k));
                        let k = L::load_splat(t3);
                        (a3, a7) = (a3.mul_add(x, k), a7.mul_add(y, k));
                        (t0, t1, t2, t3) = (t0.add(1), t1.add(1), t2.add(1), t3.add(1));
                    }
                    for (o, (lo, hi)) in [(a0, a4), (a1, a5), (a2, a6), (a3, a7)].into_iter().enumerate() {
                        lo.store(self.out(o, i));
                        hi.store(self.out(o, i + 4));
                    }
                }
            }
            while i + 4 <= len {
                let base = self.input.add(i);
                let mut acc = b;
                for (t, &off) in self.offsets.iter().enumerate() {
                    let x = L::load(base.offset(off));
                    for (o, a) in acc.iter_mut().enumerate() {
                        *a = a.mul_add(x, L::load_splat(self.taps.add(o * n + t)));
                    }
                }
                for (o, a) in acc.into_iter().enumerate() {
                    a.store(self.out(o, i));
                }
                i += 4;
            }
        }
        i
    }

    /// The row's points from the first at an input stride above 1, in whole fours; how many
    /// it computed. A point's four channels share a vector, its input value broadcast
    /// against the tap's four weights: no shuffles. (Vectors of points, as `vectors`, need
    /// two loads and a shuffle per tap at stride 2, and V8 then spilled accumulators: half
    /// the speed of stride 1.) Each point sums its taps in order.
    ///
    /// # Safety
    /// As `conv_w4`, `stride` its input stride.
    #[inline(always)]
    unsafe fn strided<L: Lanes>(&self, len: usize, stride: usize) -> usize {
        let n = self.offsets.len();
        let end = len / 4 * 4;
        if end == 0 {
            return 0;
        }
        unsafe {
            let weights: Vec<L> =
                (0..n).map(|t| L::from_lanes(std::array::from_fn(|o| *self.taps.add(o * n + t)))).collect();
            // Per point, its four channels' partial sums while the tap blocks run.
            let mut sums = vec![L::from_lanes(*self.bias); end];
            let bulk = end / STRIDED_POINTS * STRIDED_POINTS;
            for (block, offsets) in self.offsets.chunks(TAP_BLOCK).enumerate() {
                let weights = &weights[block * TAP_BLOCK..][..offsets.len()];
                for (i, sums) in sums[..bulk].chunks_exact_mut(STRIDED_POINTS).enumerate() {
                    self.strided_points::<L, STRIDED_POINTS>(sums, i * STRIDED_POINTS, stride, offsets, weights);
                }
                // What is left of whole fours: two or four points.
                for (i, sums) in sums[bulk..].chunks_exact_mut(2).enumerate() {
                    self.strided_points::<L, 2>(sums, bulk + 2 * i, stride, offsets, weights);
                }
            }
            for (i, points) in sums.chunks_exact(4).enumerate() {
                let channels = L::transpose([points[0], points[1], points[2], points[3]]);
                for (o, c) in channels.into_iter().enumerate() {
                    c.store(self.out(o, 4 * i));
                }
            }
        }
        end
    }

    /// `N` points' partial sums from `first` on, over one block of taps.
    ///
    /// # Safety
    /// As `strided`.
    #[inline(always)]
    unsafe fn strided_points<L: Lanes, const N: usize>(
        &self,
        sums: &mut [L],
        first: usize,
        stride: usize,
        offsets: &[isize],
        weights: &[L],
    ) {
        let mut acc: [L; N] = std::array::from_fn(|j| sums[j]);
        unsafe {
            let base = self.input.add(first * stride);
            for (&off, &w) in offsets.iter().zip(weights) {
                let p = base.offset(off);
                for (j, a) in acc.iter_mut().enumerate() {
                    *a = a.mul_add(L::load_splat(p.add(j * stride)), w);
                }
            }
        }
        sums.copy_from_slice(&acc);
    }

    /// The points of `range`, one at a time.
    ///
    /// # Safety
    /// As `conv_w4`.
    unsafe fn points(&self, range: std::ops::Range<usize>, in_stride: isize) {
        let n = self.offsets.len();
        for i in range {
            unsafe {
                let base = self.input.offset(i as isize * in_stride);
                for (o, &bias) in self.bias.iter().enumerate() {
                    let taps = self.taps.add(o * n);
                    *self.out(o, i) =
                        self.offsets.iter().enumerate().fold(bias, |s, (t, &off)| s + *taps.add(t) * *base.offset(off));
                }
            }
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use std::arch::wasm32::*;
    use std::sync::LazyLock;

    use tract_linalg::isa::{Arch, IsaReq, IsaSet};
    use tract_linalg::mmm::{DynKernel, FusedKerSpec, FusedSpec, MatMatMul, Query, Suitable};
    use tract_linalg::mmm_routines::MmmRoutine;
    use tract_linalg::mmm_tiers::MmmTier;
    use tract_linalg::pack::Packing;
    use tract_linalg::routines::{ConvW4F32, Func, Routine, RoutineFactory};
    use tract_onnx::prelude::DatumType;

    use super::{Lanes, MR, NR, run_tile};

    impl Lanes for v128 {
        fn splat(x: f32) -> Self {
            f32x4_splat(x)
        }
        unsafe fn load(p: *const f32) -> Self {
            unsafe { v128_load(p as *const v128) }
        }
        unsafe fn load_splat(p: *const f32) -> Self {
            unsafe { v128_load32_splat(p as *const u32) }
        }
        unsafe fn store(self, p: *mut f32) {
            unsafe { v128_store(p as *mut v128, self) }
        }
        fn lanes(self) -> [f32; 4] {
            [
                f32x4_extract_lane::<0>(self),
                f32x4_extract_lane::<1>(self),
                f32x4_extract_lane::<2>(self),
                f32x4_extract_lane::<3>(self),
            ]
        }
        fn from_lanes(v: [f32; 4]) -> Self {
            f32x4(v[0], v[1], v[2], v[3])
        }
        fn transpose([a, b, c, d]: [Self; 4]) -> [Self; 4] {
            let (ab_lo, ab_hi) = (u32x4_shuffle::<0, 4, 1, 5>(a, b), u32x4_shuffle::<2, 6, 3, 7>(a, b));
            let (cd_lo, cd_hi) = (u32x4_shuffle::<0, 4, 1, 5>(c, d), u32x4_shuffle::<2, 6, 3, 7>(c, d));
            [
                u32x4_shuffle::<0, 1, 4, 5>(ab_lo, cd_lo),
                u32x4_shuffle::<2, 3, 6, 7>(ab_lo, cd_lo),
                u32x4_shuffle::<0, 1, 4, 5>(ab_hi, cd_hi),
                u32x4_shuffle::<2, 3, 6, 7>(ab_hi, cd_hi),
            ]
        }
        fn add(self, o: Self) -> Self {
            f32x4_add(self, o)
        }
        fn sub(self, o: Self) -> Self {
            f32x4_sub(self, o)
        }
        fn mul(self, o: Self) -> Self {
            f32x4_mul(self, o)
        }
        #[cfg(target_feature = "relaxed-simd")]
        fn mul_add(self, a: Self, b: Self) -> Self {
            f32x4_relaxed_madd(a, b, self)
        }
        fn min(self, o: Self) -> Self {
            f32x4_min(self, o)
        }
        fn max(self, o: Self) -> Self {
            f32x4_max(self, o)
        }
        fn leaky(self, alpha: Self) -> Self {
            v128_bitselect(self, f32x4_mul(self, alpha), f32x4_gt(self, f32x4_splat(0.0)))
        }
    }

    const NAME: &str = "docsift_wasm_f32_4x8";

    unsafe fn kernel(specs: &[FusedKerSpec<f32>]) -> isize {
        unsafe { run_tile::<v128>(specs.as_ptr()) }
    }

    static KERNEL: LazyLock<DynKernel<MR, NR, f32>> = LazyLock::new(|| {
        let mut k = DynKernel::new(NAME, kernel, f32::packing(MR), f32::packing(NR)).with_can_fuse(|spec| {
            !matches!(spec, FusedSpec::QScale(..) | FusedSpec::RoundingShiftRight(..) | FusedSpec::ShiftLeft(_))
        });
        k.arch = Some(Arch::Wasm32Simd128);
        k
    });

    fn make() -> Box<dyn MatMatMul> {
        KERNEL.mmm()
    }

    /// Above tract's own wasm tier (precedence 1): f32 products with more than one column;
    /// matrix-vector products keep tract's kernels.
    fn preferred(_: &IsaSet, dt: DatumType, query: &Query, _: &[Suitable]) -> Option<&'static str> {
        (dt == DatumType::F32 && query.n != Some(1)).then_some(NAME)
    }

    inventory::submit! { MmmRoutine { make } }

    inventory::submit! {
        Routine {
            func: Func::ConvW4,
            arch: Some(Arch::Wasm32Simd128),
            isa: IsaReq::ANY,
            boost: 0,
            round_trip: false,
            factory: RoutineFactory::ConvW4F32 { name: "docsift_wasm_conv_w4_f32", run: super::conv_w4::<v128> },
        }
    }
    inventory::submit! {
        MmmTier { arch: Some(Arch::Wasm32Simd128), precedence: 2, name: "docsift-wasm", applies: |_| true, preferred }
    }

    /// Keeps this object (and so its registrations) in the link: wasm-ld drops an object
    /// nothing references, inventory entries included.
    pub fn register() {
        std::hint::black_box(make as fn() -> Box<dyn MatMatMul>);
        std::hint::black_box(super::conv_w4::<v128> as ConvW4F32);
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use wasm::register;

#[cfg(test)]
mod tests {
    use super::*;

    /// The native stand-in for `v128`, so the tile program is checked where tests run.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Plain([f32; 4]);

    impl Plain {
        fn zip(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self {
            Plain(std::array::from_fn(|i| f(self.0[i], o.0[i])))
        }
    }

    impl Lanes for Plain {
        fn splat(x: f32) -> Self {
            Plain([x; 4])
        }
        unsafe fn load(p: *const f32) -> Self {
            Plain(std::array::from_fn(|i| unsafe { *p.add(i) }))
        }
        unsafe fn load_splat(p: *const f32) -> Self {
            Plain([unsafe { *p }; 4])
        }
        unsafe fn store(self, p: *mut f32) {
            for (i, x) in self.0.into_iter().enumerate() {
                unsafe { *p.add(i) = x };
            }
        }
        fn lanes(self) -> [f32; 4] {
            self.0
        }
        fn from_lanes(v: [f32; 4]) -> Self {
            Plain(v)
        }
        fn add(self, o: Self) -> Self {
            self.zip(o, |a, b| a + b)
        }
        fn sub(self, o: Self) -> Self {
            self.zip(o, |a, b| a - b)
        }
        fn mul(self, o: Self) -> Self {
            self.zip(o, |a, b| a * b)
        }
        fn min(self, o: Self) -> Self {
            self.zip(o, f32::min)
        }
        fn max(self, o: Self) -> Self {
            self.zip(o, f32::max)
        }
        fn leaky(self, alpha: Self) -> Self {
            self.zip(alpha, |a, s| if a > 0.0 { a } else { a * s })
        }
    }

    /// Deterministic values with both signs and no two alike.
    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n).map(|i| (((i as u32).wrapping_mul(2654435761) ^ seed) % 1000) as f32 / 250.0 - 2.0).collect()
    }

    fn store(ptr: *mut f32, row_stride: usize, col_stride: usize) -> OutputStoreKer {
        OutputStoreKer {
            ptr: ptr as *mut u8,
            row_byte_stride: (row_stride * 4) as isize,
            col_byte_stride: (col_stride * 4) as isize,
            item_size: 4,
        }
    }

    fn run(specs: &[FusedKerSpec<f32>]) -> isize {
        let mut program = specs.to_vec();
        program.push(FusedKerSpec::Done);
        unsafe { run_tile::<Plain>(program.as_ptr()) }
    }

    #[test]
    fn a_product_with_bias_relu_and_residual_matches_the_scalar_reference() {
        let k = 37;
        let (a, b) = (values(k * MR, 1), values(k * NR, 2));
        let (bias, cols) = (values(MR, 3), values(NR, 4));
        let residual = values(MR * NR, 5);
        // Stored column-major (col stride MR): the strided path, not the contiguous one.
        let mut out = vec![0.0f32; MR * NR];
        let code = run(&[
            FusedKerSpec::Clear,
            FusedKerSpec::AddMatMul { k, pa: a.as_ptr() as _, pb: b.as_ptr() as _, packing: 0 },
            FusedKerSpec::PerRowAdd(bias.as_ptr()),
            FusedKerSpec::PerColMul(cols.as_ptr()),
            FusedKerSpec::AddUnicast(store(residual.as_ptr() as *mut f32, NR, 1)),
            FusedKerSpec::ScalarSub(0.5),
            FusedKerSpec::LeakyRelu(0.1),
            FusedKerSpec::ScalarMin(3.0),
            FusedKerSpec::Store(store(out.as_mut_ptr(), 1, MR)),
        ]);
        assert_eq!(code, 0);
        for r in 0..MR {
            for c in 0..NR {
                let mut v = 0.0f32;
                for i in 0..k {
                    v += a[i * MR + r] * b[i * NR + c];
                }
                v = (v + bias[r]) * cols[c] + residual[r * NR + c];
                v = 0.5 - v;
                v = if v > 0.0 { v } else { v * 0.1 };
                assert_eq!(out[c * MR + r], v.min(3.0), "row {r} col {c}");
            }
        }
    }

    #[test]
    fn operand_order_follows_tracts_fused_ops() {
        let tile = values(MR * NR, 6);
        let rows = values(MR, 7);
        let cols = values(NR, 8);
        // (op, what it makes of the value at row, column)
        type Expected<'a> = &'a dyn Fn(usize, usize, f32) -> f32;
        let cases: [(FusedKerSpec<f32>, Expected); 7] = [
            (FusedKerSpec::ScalarSubF(1.5), &|_, _, v| v - 1.5),
            (FusedKerSpec::ScalarMax(0.25), &|_, _, v| v.max(0.25)),
            (FusedKerSpec::PerRowSub(rows.as_ptr()), &|r, _, v| rows[r] - v),
            (FusedKerSpec::PerRowSubF(rows.as_ptr()), &|r, _, v| v - rows[r]),
            (FusedKerSpec::PerColSubF(cols.as_ptr()), &|_, c, v| v - cols[c]),
            (FusedKerSpec::PerRowMax(rows.as_ptr()), &|r, _, v| v.max(rows[r])),
            (FusedKerSpec::AddRowColProducts(rows.as_ptr(), cols.as_ptr()), &|r, c, v| v + rows[r] * cols[c]),
        ];
        for (op, want) in cases {
            let mut out = vec![0.0f32; MR * NR];
            let code = run(&[
                FusedKerSpec::LoadTile(std::ptr::null(), tile.as_ptr()),
                op,
                FusedKerSpec::Store(store(out.as_mut_ptr(), NR, 1)),
            ]);
            assert_eq!(code, 0);
            for r in 0..MR {
                for c in 0..NR {
                    assert_eq!(out[r * NR + c], want(r, c, tile[r * NR + c]), "{op:?} row {r} col {c}");
                }
            }
        }
    }

    #[test]
    fn a_row_convolution_matches_the_scalar_reference_at_every_stride_and_length() {
        const UNTOUCHED: f32 = -1234.5;
        // Five input channels of a 3×3 kernel (more taps than a block), rows of `row` values:
        // taps at each channel's three rows, three values of each.
        for in_stride in 1..=3isize {
            for len in 0..30usize {
                let row = 40 + len * in_stride as usize;
                let offsets: Vec<isize> = (0..5)
                    .flat_map(|c| (0..3).flat_map(move |r| (0..3).map(move |k| ((c * 3 + r) * row + k) as isize)))
                    .collect();
                let n = offsets.len();
                let extent = offsets[n - 1] as usize + len.saturating_sub(1) * in_stride as usize + 1;
                let input = values(extent, 9);
                let taps = values(4 * n, 10);
                let bias = [0.5, -1.25, 2.0, 0.0];
                let oc_stride = len + 3;
                let mut output = vec![UNTOUCHED; 4 * oc_stride];
                unsafe {
                    conv_w4::<Plain>(
                        input.as_ptr(),
                        output.as_mut_ptr(),
                        &taps,
                        &offsets,
                        &bias,
                        len,
                        in_stride,
                        oc_stride as isize,
                    )
                };
                for o in 0..4 {
                    for i in 0..oc_stride {
                        let want = if i < len {
                            let at = |t: usize| input[(offsets[t] + i as isize * in_stride) as usize];
                            (0..n).fold(bias[o], |s, t| s + taps[o * n + t] * at(t))
                        } else {
                            UNTOUCHED
                        };
                        assert_eq!(
                            output[o * oc_stride + i],
                            want,
                            "stride {in_stride} len {len} channel {o} point {i}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn programs_it_cannot_compute_fail_instead_of_storing_garbage() {
        let mut out = vec![0.0f32; MR * NR];
        let mut half = store(out.as_mut_ptr(), NR, 1);
        half.item_size = 2;
        assert_ne!(run(&[FusedKerSpec::Clear, FusedKerSpec::Store(half)]), 0);
        assert_ne!(run(&[FusedKerSpec::ShiftLeft(1)]), 0);
        let a = [0.0f32; 4];
        assert_ne!(run(&[FusedKerSpec::AddMatMul { k: 1, pa: a.as_ptr() as _, pb: a.as_ptr() as _, packing: 1 }]), 0);
    }
}
