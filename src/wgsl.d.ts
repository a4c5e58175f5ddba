// WGSL sources are imported as text (`import src from '../shaders/x.wgsl?raw'`);
// vite, vitest and the benchmark build all resolve the `?raw` suffix.
declare module '*.wgsl?raw' {
  const source: string;
  export default source;
}
