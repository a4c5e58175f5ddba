/**
 * The package as another project gets it, for the browser tests of the
 * example pages (tests/e2e/package.test.ts): the library built
 * (package/vite.config.ts and its declarations) into a folder of its own
 * with the project's package.json, packed with `npm pack`, the tarball
 * installed with npm into a fresh project in a temporary folder, and the
 * example pages (examples/*.html, importing `splatsort`, `splatsort/element`
 * and `splatsort/engine` by name) bundled there with vite, as that
 * project's own pages. Nothing resolves to the project's src/.
 *
 * npm installs the package's dependencies from its cache (`npm ci` filled
 * it), going to the registry only for what is missing.
 */
import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'vite';
import { EXAMPLE_PAGES } from '../../examples/vite.config';

const run = promisify(execFile);

/** The npm of this Node (npm-cli.js beside it, or `npm` on the PATH). */
async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, maxBuffer: 64 << 20, env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' } });
  return stdout;
}

/**
 * Builds the package from `root` into `work`, packs it, installs it into a
 * fresh project there and builds the example pages into `out`. Returns the
 * tarball's name and the installed package's folder.
 */
export async function buildExamplesAgainstPackedPackage(root: string, work: string, out: string): Promise<{ tarball: string; installed: string }> {
  const staging = join(work, 'package');
  const consumer = join(work, 'consumer');
  await mkdir(staging, { recursive: true });
  await mkdir(join(consumer, 'public'), { recursive: true });

  // 1. The library, into the staging folder beside a copy of package.json (whose `files` and `exports` name lib-dist/).
  await build({ root, configFile: join(root, 'package/vite.config.ts'), logLevel: 'error', build: { outDir: join(staging, 'lib-dist'), emptyOutDir: true } });
  const require = createRequire(join(root, 'package.json'));
  await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'package/tsconfig.json'), '--declarationDir', join(staging, 'lib-dist/types')], { cwd: root });
  await copyFile(join(root, 'package.json'), join(staging, 'package.json'));

  // 2. Packed as npm publishes it.
  const packed = JSON.parse(await npm(['pack', '--json', '--pack-destination', work], staging)) as { filename: string }[];
  const tarball = join(work, packed[0]!.filename);

  // 3. A fresh project that installs the tarball (and the example's own dependency, gl-matrix, at the project's version).
  const ours = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'splatsort-consumer', private: true, type: 'module', dependencies: { splatsort: `file:${tarball}`, 'gl-matrix': ours.dependencies['gl-matrix'] } }, null, 2));
  await npm(['install', '--prefer-offline', '--no-package-lock', '--ignore-scripts', '--loglevel', 'error'], consumer);

  // 4. The example pages, copied in as that project's own, and its scene.
  const examples = join(root, 'examples');
  for (const file of await readdir(examples)) {
    if (/\.(html|ts)$/.test(file) && file !== 'vite.config.ts') await cp(join(examples, file), join(consumer, file));
  }
  await copyFile(join(root, 'data/default-scene.ply'), join(consumer, 'public/default-scene.ply'));
  await build({
    root: consumer,
    configFile: false,
    base: './',
    logLevel: 'error',
    build: {
      target: 'es2022',
      outDir: out,
      emptyOutDir: true,
      rollupOptions: { input: Object.fromEntries(EXAMPLE_PAGES.map((page) => [page, join(consumer, `${page}.html`)])) },
    },
    worker: { format: 'es' },
  });
  return { tarball, installed: join(consumer, 'node_modules/splatsort') };
}
