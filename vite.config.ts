import { defineConfig } from 'vite';
import { wgslWithoutComments } from './package/wgsl-without-comments';

export default defineConfig({
  // Relative asset paths so the built viewer works from any sub-path.
  base: './',
  build: { target: 'es2022' },
  worker: { format: 'es', plugins: () => [wgslWithoutComments()] },
  // The shaders without their comments (package/wgsl-without-comments.ts).
  plugins: [wgslWithoutComments()],
});
