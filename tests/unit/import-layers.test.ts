/**
 * The layers of src/ (docs/architecture.md, "Layers"): each module imports only from
 * earlier layers and from its own, and no imports form a cycle. The real
 * tree is checked whole; a small made-up tree shows the check fails where
 * it should.
 */
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative, resolve, sep } from 'node:path';
import { entryOnlyImports, importCycles, importGraph, layerOf, layeringProblems, upwardImports, type Layering } from '../support/import-layers';

/**
 * The layers of src/, earliest first: a layer may import only from those
 * before it, and from itself without cycles. app/ is four rooms in layers
 * of their own (a file is in the longest layer its path starts with), and
 * the files at its root (the Viewer and what makes one) above them.
 *
 * The page (ui/ and main.ts) is built on the package's public entry alone:
 * from lib/ and below it imports only src/lib/index.ts, as another page
 * would. The one exception is the `?selftest` page (ui/self-test-page.ts),
 * a page mode of its own that runs the GPU sort's self-test on a device
 * of its own, with sort/ and gpu/. And lib/ loads the page's panel for
 * `createViewer(…, { ui: true })` with one lazy import (its own chunk), the
 * one import of a later layer there is.
 */
const LAYERS: Layering = {
  root: 'src',
  layers: ['gpu', 'scene', 'io', 'sort', 'render', 'app/camera', 'app/frame/order', 'app/frame', 'app/world', 'app/session', 'app', 'lib', 'ui', 'main.ts'],
  allowedUpward: [{ from: 'src/lib/create-viewer.ts', to: 'src/ui/viewer-page.ts' }],
  entryOnly: { layers: ['ui', 'main.ts'], through: 'lib', entries: ['src/lib/index.ts'], except: ['src/ui/self-test-page.ts'] },
};

/** The layers alone, for the made-up trees that test the layering without the page's rules. */
const LAYERS_ONLY: Layering = { root: LAYERS.root, layers: LAYERS.layers };

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** Every module under src/ (declaration files declare, they are never imported). */
function sourceTree(): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(ROOT, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  }
  return files;
}

test('no module of src/ imports from a later layer, and no imports form a cycle', () => {
  const files = sourceTree();
  expect(files.size).toBeGreaterThan(50);
  expect(layeringProblems(files, LAYERS)).toEqual([]);
});

test('the page is built on the public entry: ui/ and main.ts import src/lib/index.ts and ui/ only, the self-test page aside; lib/ loads the panel lazily', () => {
  const files = sourceTree();
  const { graph } = importGraph(files);
  const page = [...graph].filter(([file]) => file.startsWith('src/ui/') || file === 'src/main.ts');
  expect(page.length).toBeGreaterThan(10);
  for (const [file, targets] of page) {
    if (file === 'src/ui/self-test-page.ts') continue;
    expect(targets.filter((target) => target !== 'src/lib/index.ts' && !target.startsWith('src/ui/')), file).toEqual([]);
  }
  expect(graph.get('src/main.ts')).toContain('src/lib/index.ts');
  // The panel is a lazy import (its own chunk): the core entry does not load it.
  expect(files.get('src/lib/create-viewer.ts')).toMatch(/await import\('\.\.\/ui\/viewer-page'\)/);
  expect(entryOnlyImports(graph, LAYERS)).toEqual([]);
});

describe('the check', () => {
  const tree = (files: Record<string, string>) => new Map(Object.entries(files));

  test('finds an upward import, a cycle within a layer and one across layers, each named with its files', () => {
    const files = tree({
      'src/gpu/device.ts': "import { frame } from '../render/frame';",
      'src/scene/a.ts': "import { b } from './b';\nexport const a = 1;",
      'src/scene/b.ts': "export { a } from './a.ts';",
      'src/render/frame.ts': "import type { Device } from '../gpu/device';\nimport shader from '../../shaders/x.wgsl?raw';",
      'src/main.ts': "import { a } from './scene/a';\nimport { mat4 } from 'gl-matrix';",
    });
    expect(layeringProblems(files, LAYERS_ONLY)).toEqual([
      'src/gpu/device.ts imports src/render/frame.ts: gpu may not import from render, a later layer',
      'import cycle: src/gpu/device.ts → src/render/frame.ts → src/gpu/device.ts',
      'import cycle: src/scene/a.ts → src/scene/b.ts → src/scene/a.ts',
    ]);
  });

  test("finds the page importing past the public entry, and a lib/ module importing ui/ other than the panel's lazy import", () => {
    const files = tree({
      'src/gpu/device.ts': 'export const device = 1;',
      'src/app/viewer.ts': "import { device } from '../gpu/device';",
      'src/lib/index.ts': "export { createViewer } from './create-viewer';",
      'src/lib/create-viewer.ts': "import { Viewer } from '../app/viewer';\nconst panel = () => import('../ui/viewer-page');",
      'src/lib/element.ts': "import { gui } from '../ui/viewer-gui';",
      'src/ui/viewer-page.ts': "import { createViewer } from '../lib/index';\nimport { gui } from './viewer-gui';",
      'src/ui/viewer-gui.ts': "import type { Viewer } from '../app/viewer';\nimport { createViewer } from '../lib/create-viewer';\nexport const gui = 1;",
      'src/ui/self-test-page.ts': "import { device } from '../gpu/device';",
      'src/main.ts': "import { createViewer } from './lib/index';\nimport { device } from './gpu/device';\nimport { gui } from './ui/viewer-gui';",
    });
    expect(layeringProblems(files, LAYERS)).toEqual([
      'src/lib/element.ts imports src/ui/viewer-gui.ts: lib may not import from ui, a later layer',
      'src/ui/viewer-gui.ts imports src/app/viewer.ts: ui may import from lib and the layers below it only through src/lib/index.ts',
      'src/ui/viewer-gui.ts imports src/lib/create-viewer.ts: ui may import from lib and the layers below it only through src/lib/index.ts',
      'src/main.ts imports src/gpu/device.ts: main.ts may import from lib and the layers below it only through src/lib/index.ts',
    ]);
    // Without its allowance the panel's lazy import is an upward import too, and closes a cycle through the entry.
    const strict = { ...LAYERS, allowedUpward: [] };
    expect(layeringProblems(files, strict)).toEqual(expect.arrayContaining([
      'src/lib/create-viewer.ts imports src/ui/viewer-page.ts: lib may not import from ui, a later layer',
      'import cycle: src/lib/create-viewer.ts → src/ui/viewer-page.ts → src/lib/index.ts → src/lib/create-viewer.ts (in one knot with src/ui/viewer-gui.ts)',
    ]));
  });

  test('passes a tree whose imports all point to earlier layers or within one, packages and shaders aside', () => {
    const files = tree({
      'src/gpu/device.ts': "import { mat4 } from 'gl-matrix';",
      'src/scene/a.ts': "import { device } from '../gpu/device';\nimport { b } from './b';",
      'src/scene/b.ts': 'export const b = 1;',
      'src/render/frame.ts': "import shader from '../../shaders/x.wgsl?raw';\nimport type { A } from '../scene/a';",
      'src/ui/page.ts': "const url = new URL('../../data/scene.ply', import.meta.url);",
      'src/main.ts': "import { frame } from './render/frame';\nimport { page } from './ui/page';",
    });
    expect(layeringProblems(files, LAYERS_ONLY)).toEqual([]);
  });

  test("puts a file in the longest layer its path starts with: a room of app/ may import only from the rooms before it, app/'s root from all of them", () => {
    const files = tree({
      'src/app/camera/orbit.ts': "import type { State } from '../session/state';",
      'src/app/frame/order/sorted.ts': "import { frame } from '../engine';",
      'src/app/frame/engine.ts': "import { sorted } from './order/sorted';\nimport { orbit } from '../camera/orbit';",
      'src/app/session/state.ts': "import { engine } from '../frame/engine';",
      'src/app/viewer.ts': "import { state } from './session/state';\nimport { engine } from './frame/engine';",
    });
    expect(layerOf('src/app/frame/order/sorted.ts', LAYERS)).toBe('app/frame/order');
    expect(layerOf('src/app/frame/engine.ts', LAYERS)).toBe('app/frame');
    expect(layerOf('src/app/viewer.ts', LAYERS)).toBe('app');
    expect(upwardImports(importGraph(files).graph, LAYERS)).toEqual([
      'src/app/camera/orbit.ts imports src/app/session/state.ts: app/camera may not import from app/session, a later layer',
      'src/app/frame/order/sorted.ts imports src/app/frame/engine.ts: app/frame/order may not import from app/frame, a later layer',
    ]);
  });

  test('counts a worker started from a module as imported, and a type-only import or a re-export as an import', () => {
    const files = tree({
      'src/io/loader.ts': "const worker = new Worker(new URL('../app/worker.ts', import.meta.url), { type: 'module' });",
      'src/app/worker.ts': "export type { Loader } from '../ui/page';",
      'src/ui/page.ts': "import type { Loader } from '../io/loader';",
    });
    const { graph } = importGraph(files);
    expect(graph.get('src/io/loader.ts')).toEqual(['src/app/worker.ts']);
    expect(upwardImports(graph, LAYERS)).toEqual([
      'src/io/loader.ts imports src/app/worker.ts: io may not import from app, a later layer',
      'src/app/worker.ts imports src/ui/page.ts: app may not import from ui, a later layer',
    ]);
    expect(importCycles(graph)).toEqual(['import cycle: src/app/worker.ts → src/ui/page.ts → src/io/loader.ts → src/app/worker.ts']);
  });

  test('names the rest of a knot of cycles, a module that imports itself, a file in no layer, an import of nothing', () => {
    const knot = tree({
      'src/sort/a.ts': "import './b';\nimport './c';",
      'src/sort/b.ts': "import './a';",
      'src/sort/c.ts': "import './b';",
    });
    expect(importCycles(importGraph(knot).graph)).toEqual(['import cycle: src/sort/a.ts → src/sort/b.ts → src/sort/a.ts (in one knot with src/sort/c.ts)']);
    expect(layeringProblems(tree({ 'src/app/self.ts': "import './self';" }), LAYERS)).toEqual(['import cycle: src/app/self.ts → src/app/self.ts']);
    expect(layeringProblems(tree({ 'src/tools/x.ts': "import '../gpu/y';", 'src/gpu/y.ts': '' }), LAYERS)).toEqual([`src/tools/x.ts is in no layer (${LAYERS.layers.join(', ')})`]);
    expect(layeringProblems(tree({ 'src/gpu/x.ts': "import { gone } from './gone';" }), LAYERS)).toEqual(['src/gpu/x.ts imports ./gone, which is no file of the tree']);
  });
});
