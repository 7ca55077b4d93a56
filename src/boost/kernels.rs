//! Arithmetic kernels of the stump search: per-class vector adds and the Z of a cut, exact
//! (f64) and screened (f32 square roots), written over groups of [`LANES`] classes so they
//! compile to whole SIMD vectors.

/// Classes are stored in groups of [`LANES`] (padded with zero weights) so the per-class
/// loops below compile to whole SIMD vectors.
pub(super) const LANES: usize = 4;

/// `k` rounded up to a multiple of [`LANES`].
pub(super) fn padded(k: usize) -> usize {
    k.div_ceil(LANES) * LANES
}

/// Tests set this to run the portable kernels on an AVX2 machine.
#[cfg(test)]
pub(crate) static FORCE_PORTABLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the running CPU has AVX2, so the search kernel can use 4-lane vectors.
pub(super) fn has_avx2() -> bool {
    #[cfg(test)]
    if FORCE_PORTABLE.load(std::sync::atomic::Ordering::SeqCst) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `acc += x`, element-wise (lengths are multiples of LANES).
#[inline(always)]
pub(super) fn add_assign(acc: &mut [f64], x: &[f64]) {
    for (a, b) in acc.chunks_exact_mut(LANES).zip(x.chunks_exact(LANES)) {
        for j in 0..LANES {
            a[j] += b[j];
        }
    }
}

/// Σ_l sqrt(W₊ˡ·W₋ˡ) + sqrt((T₊ˡ−W₊ˡ)·(T₋ˡ−W₋ˡ)): one part and its complement. Subtractions
/// may round below zero and are clamped. Summed in LANES fixed partial sums, so the result
/// does not depend on the instruction set.
#[inline(always)]
pub(super) fn split_z(pos: &[f64], neg: &[f64], tot_pos: &[f64], tot_neg: &[f64]) -> f64 {
    let mut acc = [0.0; LANES];
    let chunks = pos.chunks_exact(LANES).zip(neg.chunks_exact(LANES)).zip(tot_pos.chunks_exact(LANES).zip(tot_neg.chunks_exact(LANES)));
    for ((p, n), (tp, tn)) in chunks {
        for j in 0..LANES {
            let inside = (p[j] * n[j]).sqrt();
            let outside = ((tp[j] - p[j]).max(0.0) * (tn[j] - n[j]).max(0.0)).sqrt();
            acc[j] += inside + outside;
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Σ_l sqrt(W₊ˡ·W₋ˡ) of one part.
#[inline(always)]
pub(super) fn part_z(pos: &[f64], neg: &[f64]) -> f64 {
    let mut acc = [0.0; LANES];
    for (p, n) in pos.chunks_exact(LANES).zip(neg.chunks_exact(LANES)) {
        for j in 0..LANES {
            acc[j] += (p[j] * n[j]).sqrt();
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// [`split_z`] with the products rounded to f32 and f32 square roots, which are several
/// times cheaper than f64 ones. Each term has relative error below 2⁻²² and the sum of the
/// ≤ 2·stride terms below 2⁻¹⁹ (≈ 2·10⁻⁶); products under f32's normal range flush to at
/// most ~10⁻¹⁹ per term. So any cut whose exact value can be the minimum has a screened value
/// within [`SCREEN_RELATIVE`] (relative, 5× margin) plus [`SCREEN_ABSOLUTE`] of the lowest one.
#[inline(always)]
pub(super) fn split_z_screen(pos: &[f64], neg: &[f64], tot_pos: &[f64], tot_neg: &[f64]) -> f32 {
    let mut acc = [0.0f32; LANES];
    let chunks = pos.chunks_exact(LANES).zip(neg.chunks_exact(LANES)).zip(tot_pos.chunks_exact(LANES).zip(tot_neg.chunks_exact(LANES)));
    for ((p, n), (tp, tn)) in chunks {
        for j in 0..LANES {
            let inside = (p[j] * n[j]) as f32;
            let outside = ((tp[j] - p[j]).max(0.0) * (tn[j] - n[j]).max(0.0)) as f32;
            acc[j] += inside.sqrt() + outside.sqrt();
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Screened Σ_l sqrt(W₊ˡ·W₋ˡ) + sqrt((T₊ˡ−W₊ˡ)·(T₋ˡ−W₋ˡ)) for C·LANES classes held in
/// registers: products in f64, rounded to f32, square roots 8 lanes at a time.
#[inline(always)]
pub(super) fn screen_cut<const C: usize>(pos: &[f64], neg: &[[f64; LANES]; C], tot_pos: &[f64], tot_neg: &[[f64; LANES]; C]) -> f32 {
    const MAX: usize = 2 * 8 * LANES;
    let n = C * LANES;
    let mut prod = [0.0f32; MAX];
    for c in 0..C {
        for j in 0..LANES {
            let l = c * LANES + j;
            let (p, q) = (pos[l], neg[c][j]);
            prod[l] = (p * q) as f32;
            prod[n + l] = ((tot_pos[l] - p).max(0.0) * (tot_neg[c][j] - q).max(0.0)) as f32;
        }
    }
    let mut acc = [0.0f32; 8];
    for chunk in prod[..2 * n].chunks_exact(8) {
        for j in 0..8 {
            acc[j] += chunk[j].sqrt();
        }
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
}

/// [`part_z`] with f32 square roots.
#[inline(always)]
pub(super) fn part_z_screen(pos: &[f64], neg: &[f64]) -> f32 {
    let mut acc = [0.0f32; LANES];
    for (p, n) in pos.chunks_exact(LANES).zip(neg.chunks_exact(LANES)) {
        for j in 0..LANES {
            acc[j] += ((p[j] * n[j]) as f32).sqrt();
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Relative screening margin. Screened values differ from f64 ones by (a) weights rounded to
/// f32: every W is a sum of non-negative terms, so it moves by at most 2⁻²⁴ relative; (b) f32
/// products and square roots and their f32 sum: below 2⁻¹⁹ ≈ 2·10⁻⁶ relative. 10⁻⁵ leaves a
/// margin of about 3.
pub(super) const SCREEN_RELATIVE: f64 = 1e-5;
/// Absolute screening margin: complements T − W are f64 differences whose rounding (both in
/// the screened and in the f64 evaluation) can leave up to ~10⁻¹⁴ of a total where the true
/// value is 0, worth ~10⁻⁷ inside a square root per class, and products below f32's normal
/// range flush to zero. 10⁻⁵ covers 2·k such terms for k up to ~30 classes.
pub(super) const SCREEN_ABSOLUTE: f64 = 1e-5;

/// Per-thread buffers reused across features.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) wide: Vec<f64>,
    pub(super) narrow: Vec<f32>,
}
