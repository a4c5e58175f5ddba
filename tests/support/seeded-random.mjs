// Preloaded (node --import) into a third-party tool the tests run, so that
// its Math.random — splat-transform seeds its k-means with it — gives the
// same sequence every run, in the main thread and in every worker thread
// (workers inherit --import). With it, what the tests measure of the tool's
// output is the same on every run; without it, a cross-check's error bounds
// held on one run and not on the next.
let state = 0x2545f491;
Math.random = () => {
  // mulberry32
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
