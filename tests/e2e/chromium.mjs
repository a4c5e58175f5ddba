/**
 * How Splatsort's browser runs are launched: Debian's Chromium with WebGPU
 * on SwiftShader (CPU Vulkan), so the page runs its real GPU code on
 * machines without a GPU. Plain JavaScript, so that the browser tests
 * (tests/e2e/browser.ts) and the scripts run by Node (scripts/readme-picture.mjs)
 * launch it the same way.
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

/** Debian's chromium package; it also ships the SwiftShader Vulkan driver. */
export const CHROMIUM_PATH = process.env.SPLATSORT_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  // WebGPU on SwiftShader: without all three SwiftShader switches compute
  // works but canvases stay white.
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-angle=swiftshader',
  // No traffic beyond localhost: the test machines refuse outside connections.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Launches Chromium, giving up after `timeoutMs`; throws (never skips) when it is missing. */
export async function launchChromium(timeoutMs) {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. Install it with ` +
        '`apt-get install -y chromium libvulkan1` (.ci/run does this), ' +
        'or point SPLATSORT_CHROMIUM at a Chromium binary.',
    );
  }
  // Headless mode is chosen by --headless=new in the arguments.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: false, args: CHROMIUM_ARGS, timeout: timeoutMs });
}
