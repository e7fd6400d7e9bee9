// Which OCR build an engine loads: relaxed SIMD (fused multiply-adds in the matrix kernel)
// where the engine validates it, threaded where asked; each later one is the fallback. Every
// build reaches the GPU: the threaded ones through a mailbox in shared memory, the others by
// message.

/** A module of one function using f32x4.relaxed_madd. */
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // header
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // types: [] -> [v128]
  0x03, 0x02, 0x01, 0x00, // one function of type 0
  0x0a, 0x1c, 0x01, 0x1a, 0x00, // its code: no locals
  ...[0, 1, 2].flatMap(() => [0x43, 0x00, 0x00, 0x00, 0x00, 0xfd, 0x13]), // 3 × f32x4.splat(0.0)
  0xfd, 0x85, 0x02, 0x0b, // f32x4.relaxed_madd, end
]);

/** The OCR builds (directories of pkg/wasm/) to try, in order. */
export function ocrBuilds(threaded) {
  const relaxed = WebAssembly.validate(RELAXED_SIMD_PROBE);
  const builds = [];
  if (threaded) builds.push(...(relaxed ? ['ocr-threaded-relaxed'] : []), 'ocr-threaded');
  builds.push(...(relaxed ? ['ocr-relaxed'] : []), 'ocr');
  return builds;
}
