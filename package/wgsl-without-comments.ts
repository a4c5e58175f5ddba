import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';
import { wgslWithoutComments as strip } from '../src/gpu/wgsl-splice';

/**
 * `import source from './shader.wgsl?raw'` in a build: the shader's text
 * without its comments (src/gpu/wgsl-splice.ts, wgslWithoutComments), so a
 * page downloads the code and not its explanations. The development
 * server and the tests read the files as they are.
 */
export function wgslWithoutComments(): Plugin {
  return {
    name: 'wgsl-without-comments',
    apply: 'build',
    enforce: 'pre',
    load(id) {
      const [path, query] = id.split('?');
      if (!path!.endsWith('.wgsl') || query !== 'raw') return null;
      return `export default ${JSON.stringify(strip(readFileSync(path!, 'utf8')))};`;
    },
  };
}
