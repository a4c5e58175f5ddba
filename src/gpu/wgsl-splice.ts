/**
 * Puts parts of one WGSL file into the body of another, as text: the body
 * is written once with a `// {{name}}` line where each part goes, and the
 * parts' file has a `// {{name}}` line before each part; whatever the
 * parts' file has before its first part (module-scope declarations: its
 * workgroup arrays, its functions) is put after the body's module.
 *
 * Why text and not functions: a part's locals (the per-pixel order's queue
 * of registers, src/gpu/wgsl-unroll.ts) stay locals of the entry point, as
 * they would be written by hand. Passed to functions by pointer, as a
 * struct, the same queue drew 1.01-1.08× slower on an H200 (docs/
 * benchmarks.md, the raster's two orders). And not one module with a
 * constant to branch on: an entry point uses every binding and workgroup
 * array its code names, even in a branch a constant rules out.
 */

import { withoutWgslComments } from './wgsl-comments';

const MARK = /^([ \t]*)\/\/ \{\{(\w+)\}\}[ \t]*$/gm;
/** A line that is a mark (MARK, for one line). */
const MARK_LINE = new RegExp(MARK.source);

/** `parts`' declarations (before its first mark) and its parts by name. */
export function wgslParts(parts: string): { declarations: string; named: Map<string, string> } {
  const marks = [...parts.matchAll(MARK)];
  const named = new Map<string, string>();
  marks.forEach((m, i) => {
    const start = m.index! + m[0].length;
    const end = i + 1 < marks.length ? marks[i + 1]!.index! : parts.length;
    if (named.has(m[2]!)) throw new Error(`the part {{${m[2]}}} is given twice`);
    named.set(m[2]!, parts.slice(start, end).replace(/^\n/, '').replace(/\s+$/, ''));
  });
  return { declarations: parts.slice(0, marks[0]?.index ?? parts.length).replace(/\s+$/, ''), named };
}

/**
 * `body` with each `// {{name}}` line replaced by the part of that name
 * (its lines indented as the mark was), and `parts`' declarations after it.
 * Throws on a mark the parts lack, and on a part no mark asks for.
 */
export function spliceWgsl(body: string, parts: string): string {
  const { declarations, named } = wgslParts(parts);
  const used = new Set<string>();
  const spliced = body.replace(MARK, (_line, indent: string, name: string) => {
    const part = named.get(name);
    if (part === undefined) throw new Error(`no part {{${name}}} for the mark in the body`);
    used.add(name);
    return part.split('\n').map((line) => (line === '' ? line : `${indent}${line}`)).join('\n');
  });
  const unused = [...named.keys()].filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`the body has no mark for the part${unused.length > 1 ? 's' : ''} ${unused.map((n) => `{{${n}}}`).join(', ')}`);
  return `${spliced}\n${declarations}\n`;
}

/**
 * `source` without its comments, for the built package and page (package/
 * wgsl-without-comments.ts): every comment and blank line goes but the
 * `// {{name}}` marks spliceWgsl reads. The shaders' comments are a third
 * of what the page downloads for them.
 */
export function wgslWithoutComments(source: string): string {
  const lines = withoutWgslComments(source, (line) => MARK_LINE.test(line)).split('\n');
  return `${lines.map((line) => line.trimEnd()).filter((line) => line !== '').join('\n')}\n`;
}
