/**
 * A viewer in someone else's page: `createViewer(container, options)` puts a
 * canvas in the container (sized to it, as the container is resized), opens
 * the scene the options name, and draws it while it is in view, with the
 * camera controls a viewer has (orbit, pan, zoom, fly, double-click to
 * orbit a point). It is the Viewer (src/app/viewer.ts) with what needs the
 * DOM (embedded-viewer.ts), scenes loaded in a worker and the CPU sort in
 * another. Every viewer of a page that brings no device of its own shares
 * one (shared-device.ts), and its compiled pipelines. With `ui: true` the
 * page's panel (src/ui/) is loaded, a module of its own, and mounted on it.
 *
 * destroy() frees what the viewer made: its GPU buffers and textures, its
 * workers, its observers, and every listener it added.
 */
import { Viewer } from '../app/viewer';
import { worldAtUrlInWorkers } from '../app/world/world-opening-web';
import { describeAdapter } from '../gpu/device';
import { SplatLoader } from '../io/splat-loader';
import { CpuOrderClient } from '../sort/cpu-order-client';
import { EmbeddedViewer } from './embedded-viewer';
import { hostMemoryBytes, sharedGpuContext } from './shared-device';
import type { GpuFacts } from './public-types';
import type { CreateViewerOptions, SplatViewer } from './viewer-api';

/** Makes a viewer in `container` (which it fills), opening `options.src` if given; with `options.ui`, the page's panel on it. */
export async function createViewer(container: HTMLElement, options: CreateViewerOptions = {}): Promise<SplatViewer> {
  const { device, gpu } = await deviceOf(options.device);
  const format = navigator.gpu.getPreferredCanvasFormat();
  const loader = new SplatLoader();
  const viewer = await Viewer.create<File[] | string>(device, format, {
    load: (source, o) => loader.load(source, o),
    openWorld: worldAtUrlInWorkers,
    cpuSort: () => new CpuOrderClient(),
    hostMemoryBytes: hostMemoryBytes(),
  });
  // The page's panel makes the page the viewer: its keys work anywhere on it.
  const controls = (options.controls ?? true) ? (options.keys ?? (options.ui ? 'page' : 'canvas')) : false;
  const embedded = new EmbeddedViewer(container, viewer, loader, format, {
    gpu,
    controls,
    // The panel (lil-gui, stats.js and the page's overlays) is a chunk of its own: a viewer without it never downloads it.
    mountPanel: async (shown, mount) => (await import('../ui/viewer-page')).mountViewerPage(container, shown, mount),
  });
  embedded.setSettings(options.settings ?? {});
  if (options.ui) {
    // The panel opens the first scene: the page's link's, or `src`.
    await embedded.showPanel({ first: options.src === undefined ? null : { src: options.src, name: options.name, up: options.up }, openFirst: true });
  } else if (options.src !== undefined) {
    void embedded.load(options.src, { name: options.name, up: options.up });
  }
  return embedded;
}

/** The caller's device, or the page's shared one, and what the viewer tells of its GPU. */
async function deviceOf(own: GPUDevice | undefined): Promise<{ device: GPUDevice; gpu: GpuFacts }> {
  if (own) return { device: own, gpu: { adapter: describeAdapter(own.adapterInfo), timestamps: own.features.has('timestamp-query') } };
  const context = await sharedGpuContext();
  return { device: context.device, gpu: { adapter: context.adapterName, timestamps: context.hasTimestamps } };
}
