/**
 * Browser composition root: takes the browser's WebGPU entry point, opens the
 * device and hands it to the page. Everything that touches the DOM lives in
 * src/ui/.
 */

import { requestGpuContext, WebGpuUnavailableError } from './gpu/device';
import { SelfTestPage } from './ui/self-test-page';

async function main(): Promise<void> {
  const page = SelfTestPage.mount();
  try {
    // `navigator.gpu` is undefined in browsers without WebGPU, whatever the DOM types say.
    const gpu: GPU | undefined = navigator.gpu;
    const context = await requestGpuContext(gpu, { label: 'Splatsort.device' });
    await page.start(context);
  } catch (error) {
    if (error instanceof WebGpuUnavailableError) page.showWebGpuUnavailable(error.message);
    else page.showFatal(error);
  }
}

void main();
