/**
 * The page's "save scene as" (src/ui/save-scene.ts) over a viewer whose
 * save is recorded: where SplatViewer.saveLosses names something, a warning
 * says it, with "Save anyway", and nothing is saved or downloaded until
 * that is pressed; where it names nothing the file is saved and downloaded
 * at once; a world (saveLosses throws) gets its reason, and no file. The
 * download is an <a download> clicked: a minimal document records it.
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
import { saveSceneAs } from '../../src/ui/save-scene';
import type { MessageOverlay } from '../../src/ui/overlays';
import type { SavedScene, SaveSelection, SplatViewer } from '../../src/lib/index';

interface Shown { title: string; text: string; tone?: string; actions: { label: string; run: () => void }[] }

let downloads: string[];
beforeEach(() => {
  downloads = [];
  (globalThis as { document?: unknown }).document = {
    createElement: () => {
      const a = { href: '', download: '', click: () => downloads.push(a.download) };
      return a;
    },
  };
});
afterEach(() => {
  delete (globalThis as { document?: unknown }).document;
});

function messages(): MessageOverlay & { shown: Shown[] } {
  const shown: Shown[] = [];
  return {
    shown,
    show: (title: string, text: string, options: { tone?: string; actions?: Shown['actions'] } = {}) => {
      shown.push({ title, text, tone: options.tone, actions: options.actions ?? [] });
      return () => shown.splice(shown.findIndex((s) => s.title === title), 1);
    },
    notify: (title: string, text: string) => {
      shown.push({ title, text, tone: 'info', actions: [] });
      return () => undefined;
    },
  } as unknown as MessageOverlay & { shown: Shown[] };
}

function viewer(losses: () => string[]): SplatViewer & { saves: string[] } {
  const saves: string[] = [];
  return {
    saves,
    saveLosses: () => losses(),
    save: async (format: string, _selection?: SaveSelection): Promise<SavedScene> => {
      saves.push(format);
      return { name: `scene.${format}`, blob: new Blob([new Uint8Array(96)]), splats: 3, of: 3 };
    },
  } as unknown as SplatViewer & { saves: string[] };
}

const choice = (format: string) => ({ format, keep: 'all' as const, box: '' });

test('what the format loses is said first; the file is made only on "Save anyway"', async () => {
  const page = messages();
  const v = viewer(() => ['its view-dependent colour, SH bands 1 to 3: .splat keeps SH up to degree 0']);
  await saveSceneAs(v, choice('splat'), page);
  expect(v.saves).toEqual([]);
  expect(downloads).toEqual([]);
  expect(page.shown).toHaveLength(1);
  const warning = page.shown[0]!;
  expect(warning).toMatchObject({ title: 'Saving as .splat loses something', tone: 'warn' });
  expect(warning.text).toBe('Saved as .splat, the scene would lose its view-dependent colour, SH bands 1 to 3: .splat keeps SH up to degree 0.');
  expect(warning.actions.map((a) => a.label)).toEqual(['Save anyway']);
  warning.actions[0]!.run();
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(v.saves).toEqual(['splat']);
  expect(downloads).toEqual(['scene.splat']);
  expect(page.shown.map((s) => s.title)).toEqual(['Saved scene.splat']);
});

test('a format that loses nothing saves at once', async () => {
  const page = messages();
  const v = viewer(() => []);
  await saveSceneAs(v, choice('ply'), page);
  expect(v.saves).toEqual(['ply']);
  expect(downloads).toEqual(['scene.ply']);
  expect(page.shown.map((s) => s.title)).toEqual(['Saved scene.ply']);
});

test('a world is not saved, and the message says why', async () => {
  const page = messages();
  const v = viewer(() => {
    throw new Error('A world is not saved as one file');
  });
  await saveSceneAs(v, choice('ply'), page);
  expect(v.saves).toEqual([]);
  expect(page.shown).toMatchObject([{ title: 'Could not save the scene', text: 'A world is not saved as one file' }]);
});
