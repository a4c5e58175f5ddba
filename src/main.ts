/**
 * Browser composition root: takes the browser's WebGPU entry point, opens
 * the device and builds what the page shows: the Viewer, loading scenes in
 * a worker and sorting on the CPU in another, or with `?selftest` in the
 * URL the GPU sort's self-test. Everything that touches the DOM lives in
 * src/ui/.
 */

import { WebGpuUnavailableError, type GpuContext } from './gpu/device';
import { hostMemoryBytes, sharedGpuContext } from './lib/shared-device';
import { SplatLoader } from './io/splat-loader';
import { CpuOrderClient } from './sort/cpu-order-client';
import { Viewer } from './app/viewer';
import { worldAtUrlInWorkers } from './app/world/world-opening-web';
import { SelfTestPage } from './ui/self-test-page';
import { ViewerPage } from './ui/viewer-page';

async function selfTest(): Promise<void> {
  const page = SelfTestPage.mount();
  try {
    await page.start(await sharedGpuContext());
  } catch (error) {
    if (error instanceof WebGpuUnavailableError) page.showWebGpuUnavailable(error.message);
    else page.showFatal(error);
  }
}

async function viewer(): Promise<void> {
  let context: GpuContext;
  try {
    context = await sharedGpuContext();
  } catch (error) {
    // The self-test page owns the "how to get WebGPU" explanation.
    const page = SelfTestPage.mount();
    if (error instanceof WebGpuUnavailableError) page.showWebGpuUnavailable(error.message);
    else page.showFatal(error);
    return;
  }
  const page = ViewerPage.mount();
  try {
    const loader = new SplatLoader();
    const viewer = await Viewer.create<File[] | string>(context.device, navigator.gpu.getPreferredCanvasFormat(), {
      load: (source, options) => loader.load(source, options),
      openWorld: worldAtUrlInWorkers,
      cpuSort: () => new CpuOrderClient(),
      hostMemoryBytes: hostMemoryBytes(),
    });
    await page.start(viewer, context);
  } catch (error) {
    page.showFatal(error);
  }
}

void (new URLSearchParams(location.search).has('selftest') ? selfTest() : viewer());
