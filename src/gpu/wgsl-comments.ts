/** WGSL comments, taken out in one place: by the layout and slot parsers, and by the build (wgsl-splice.ts). */

const BLOCK_COMMENT = /\/\*[\s\S]*?\*\//g;
const LINE_COMMENT = /\/\/.*$/;

/**
 * `source` without its comments, line for line; a line `keepLine` accepts
 * (whole, comment and all) is left as it is.
 */
export function withoutWgslComments(source: string, keepLine: (line: string) => boolean = () => false): string {
  return source
    .replace(BLOCK_COMMENT, '')
    .split('\n')
    .map((line) => (keepLine(line) ? line : line.replace(LINE_COMMENT, '')))
    .join('\n');
}
