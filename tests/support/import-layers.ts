/**
 * The import graph of a source tree and what breaks its layering: an
 * import that points to a later layer, a cycle of imports, an import that
 * names no file. The imports are listed by TypeScript's own preprocessor
 * (ts.preProcessFile: import, export … from, import(), import type), and a
 * module a worker is started from (`new URL('./x.ts', import.meta.url)`)
 * counts as imported, since the bundle depends on it the same way.
 */
import ts from 'typescript';
import { posix } from 'node:path';

/** Module → the modules it imports, both as paths from the project root ('src/app/x.ts'). */
export type ImportGraph = Map<string, string[]>;

/**
 * The layers of a tree, earliest first, as paths under `root`: a file is
 * in the layer of the longest one its path starts with ('src/gpu/x.ts' is
 * in 'gpu', 'src/app/frame/order/x.ts' in 'app/frame/order' where that is
 * a layer, else in 'app/frame', else in 'app'); a file straight under
 * `root` may be a layer of its own ('src/main.ts' is in 'main.ts').
 */
export interface Layering {
  root: string;
  layers: readonly string[];
  /**
   * Imports of a later layer's module allowed by name (`from` → `to`, paths
   * from the project root): each is a lazy import (import()), loaded when
   * first used, so the cycle it may close is no order in which modules load.
   */
  allowedUpward?: readonly { from: string; to: string }[];
  /**
   * Layers that see the layers below them only through entry files: a file
   * of `layers` may import from a layer up to and including `through` only
   * the `entries`, save the files named in `except` (which the layering
   * alone bounds).
   */
  entryOnly?: { layers: readonly string[]; through: string; entries: readonly string[]; except: readonly string[] };
}

/** The graph without the upward imports the layering allows by name. */
function withoutAllowed(graph: ImportGraph, layering: Layering): ImportGraph {
  const allowed = layering.allowedUpward ?? [];
  if (allowed.length === 0) return graph;
  return new Map([...graph].map(([file, targets]) => [file, targets.filter((target) => !allowed.some((a) => a.from === file && a.to === target))]));
}

/** What each file imports, as written: relative module paths and worker URLs. */
export function importSpecifiers(file: string, text: string): string[] {
  const found = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  if (!text.includes('import.meta.url')) return found;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL') {
      const [url, base] = node.arguments ?? [];
      if (url && base && ts.isStringLiteralLike(url) && base.getText(source) === 'import.meta.url' && url.text.endsWith('.ts')) found.push(url.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The graph of `files` (path from the project root → its text): each
 * relative import resolved to a file of the set (as written, or with .ts
 * or /index.ts added; a `?query` dropped). Imports of packages and of
 * files that are not TypeScript (shaders, data) are left out; a relative
 * TypeScript import that names no file of the set is listed in `unresolved`.
 */
export function importGraph(files: ReadonlyMap<string, string>): { graph: ImportGraph; unresolved: string[] } {
  const graph: ImportGraph = new Map();
  const unresolved: string[] = [];
  for (const [file, text] of files) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(file, text)) {
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) continue;
      const path = posix.normalize(posix.join(posix.dirname(file), specifier.replace(/\?.*$/, '')));
      const extension = posix.extname(path);
      if (extension !== '' && extension !== '.ts' && extension !== '.js') continue;
      const stem = extension === '.js' ? path.slice(0, -3) : path;
      const target = [path, `${stem}.ts`, `${stem}/index.ts`].find((candidate) => files.has(candidate));
      if (target) targets.add(target);
      else unresolved.push(`${file} imports ${specifier}, which is no file of the tree`);
    }
    graph.set(file, [...targets].sort());
  }
  return { graph, unresolved };
}

/** The layer of `file` under layering.root: the longest layer its path starts with, or undefined when it is in none of them. */
export function layerOf(file: string, layering: Layering): string | undefined {
  const prefix = `${layering.root}/`;
  if (!file.startsWith(prefix)) return undefined;
  const rest = file.slice(prefix.length);
  let found: string | undefined;
  for (const layer of layering.layers) {
    if ((rest === layer || rest.startsWith(`${layer}/`)) && layer.length > (found?.length ?? -1)) found = layer;
  }
  return found;
}

/** Each import of a file from a later layer than its own (but those allowed by name), and each file in no layer. */
export function upwardImports(graph: ImportGraph, layering: Layering): string[] {
  const problems: string[] = [];
  const rank = (file: string) => layering.layers.indexOf(layerOf(file, layering)!);
  for (const [file, targets] of withoutAllowed(graph, layering)) {
    const layer = layerOf(file, layering);
    if (layer === undefined) {
      problems.push(`${file} is in no layer (${layering.layers.join(', ')})`);
      continue;
    }
    for (const target of targets) {
      const to = layerOf(target, layering);
      if (to === undefined) problems.push(`${file} imports ${target}, which is in no layer`);
      else if (rank(target) > rank(file)) problems.push(`${file} imports ${target}: ${layer} may not import from ${to}, a later layer`);
    }
  }
  return problems;
}

/**
 * The cycles of the graph: for each set of files that import each other in
 * a ring (a strongly connected component, found by Tarjan's algorithm),
 * the shortest cycle through its first file, and the set's other files
 * when the cycle does not pass them all.
 */
export function importCycles(graph: ImportGraph): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      components.push(component.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);

  const problems: string[] = [];
  for (const component of components.sort((a, b) => a[0]!.localeCompare(b[0]!))) {
    const start = component[0]!;
    if (component.length === 1 && !(graph.get(start) ?? []).includes(start)) continue;
    const cycle = shortestCycle(graph, start, new Set(component));
    const others = component.filter((file) => !cycle.includes(file));
    problems.push(`import cycle: ${[...cycle, start].join(' → ')}${others.length > 0 ? ` (in one knot with ${others.join(', ')})` : ''}`);
  }
  return problems;
}

/** The files of the shortest path from `start` back to itself inside `within` (breadth first), `start` first. */
function shortestCycle(graph: ImportGraph, start: string, within: ReadonlySet<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const file = queue[head]!;
    for (const target of graph.get(file) ?? []) {
      if (!within.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return path;
      }
      if (!previous.has(target)) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start];
}

/** Each import from below by a file of layering.entryOnly's layers of anything but an entry. */
export function entryOnlyImports(graph: ImportGraph, layering: Layering): string[] {
  const rule = layering.entryOnly;
  if (!rule) return [];
  const through = layering.layers.indexOf(rule.through);
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    const layer = layerOf(file, layering);
    if (layer === undefined || !rule.layers.includes(layer) || rule.except.includes(file)) continue;
    for (const target of targets) {
      const to = layerOf(target, layering);
      if (to === undefined || layering.layers.indexOf(to) > through || rule.entries.includes(target)) continue;
      problems.push(`${file} imports ${target}: ${layer} may import from ${rule.through} and the layers below it only through ${rule.entries.join(', ')}`);
    }
  }
  return problems;
}

/** Everything that breaks the layering of `files`: names that resolve to nothing, upward imports, imports past an entry, cycles. */
export function layeringProblems(files: ReadonlyMap<string, string>, layering: Layering): string[] {
  const { graph, unresolved } = importGraph(files);
  return [...unresolved, ...upwardImports(graph, layering), ...entryOnlyImports(graph, layering), ...importCycles(withoutAllowed(graph, layering))];
}
