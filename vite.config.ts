import { defineConfig } from 'vite';

export default defineConfig({
  // Relative asset paths so the built viewer works from any sub-path.
  base: './',
  build: { target: 'es2022' },
  worker: { format: 'es' },
});
