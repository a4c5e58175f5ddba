/**
 * Once for all the browser tests: the page built with `vite build` (the
 * code users get) and served by `vite preview` on a free localhost port,
 * and a lighter copy of the default scene for the tests whose subject is
 * not the scene (tests/e2e/browser.ts serves it in place of the stored one).
 *
 * Why a build and not the dev server: measured here (2 cores, busy), a page
 * was ready in about the same time from either (the GPU pipelines dominate),
 * but the dev server transforms every module for each new server and may
 * find a dependency to pre-bundle after a page has loaded, which reloads
 * that page in the middle of a test; one build serves every file the same
 * bytes. The preview server answers an unknown path with the index page, as
 * the dev server and single-page hosts do.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';
import type { TestProject } from 'vitest/node';
import { parseSplatPly } from '../../src/io/ply/parse';
import { writeSplatPly } from '../support/ply-writer';
import { thinnedScene } from '../support/thinned-scene';
import { buildExamplesAgainstPackedPackage } from './package-consumer';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built viewer page, with a trailing slash. */
    splatsortPageUrl: string;
    /** The default scene with every LIGHT_SCENE_STEP-th splat (tests/support/thinned-scene.ts). */
    splatsortLightScene: string;
  }
}

/**
 * One splat in eight of the default scene (4,636 of 37,082): the same vase,
 * framed the same, drawn in ~0.5 s a frame at 480×360 on SwiftShader
 * instead of ~1.9 s (measured on 2 busy cores).
 */
const LIGHT_SCENE_STEP = 8;

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const out = await mkdtemp(join(tmpdir(), 'splatsort-e2e-'));
  try {
    await build({ root: PROJECT_ROOT, configFile: join(PROJECT_ROOT, 'vite.config.ts'), logLevel: 'error', build: { outDir: out, emptyOutDir: true } });
    // The examples of Splatsort in other pages, beside it (under examples/),
    // built in a project of their own against the packed package.
    await buildExamplesAgainstPackedPackage(PROJECT_ROOT, join(out, 'package-work'), join(out, 'examples'));
    const light = join(out, 'light-default-scene.ply');
    const full = parseSplatPly(new Uint8Array(await readFile(join(PROJECT_ROOT, 'data/default-scene.ply'))));
    await writeFile(light, writeSplatPly(thinnedScene(full, LIGHT_SCENE_STEP)));
    const server = await preview({
      root: PROJECT_ROOT,
      configFile: join(PROJECT_ROOT, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: out },
      preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false },
    });
    const url = server.resolvedUrls?.local[0];
    if (!url) throw new Error('vite preview started without a local URL');
    project.provide('splatsortPageUrl', url);
    project.provide('splatsortLightScene', light);
    return async () => {
      await server.close();
      await rm(out, { recursive: true, force: true });
    };
  } catch (error) {
    await rm(out, { recursive: true, force: true });
    throw error;
  }
}
