/**
 * The GPU sort's self-test page: sorts random key/value pairs on the GPU at a
 * few sizes, checks each order against the CPU reference and shows the
 * timings. The final verdict is exposed for automated checks on
 * `document.body.dataset.selftest` ('pass' | 'fail') and
 * `window.__splatsortSelfTest` (the results, in table order).
 */

import './style.css';
import { requestGpuContext, WebGpuUnavailableError, type GpuContext } from '../gpu/device';
import { isSoftwareAdapterInfo } from '../gpu/software-adapter';
import { runSortSelfTest, type SortSelfTestResult } from '../sort/self-test';
import { el } from './overlays';

declare global {
  interface Window {
    __splatsortSelfTest?: SortSelfTestResult[];
  }
}

export interface SelfTestCase {
  n: number;
  keyBits: number;
}

const KEY_BITS = [32, 16];
/** 2^22 pairs take tens of seconds on a software rasterizer; real GPUs take milliseconds. */
const SIZE_EXPONENTS = { hardware: [16, 20, 22], software: [16, 20] };
/** Timed repetitions per case; one on software adapters, where a single sort is slow. */
const RUNS = { hardware: 5, software: 1 };

export function isSoftwareAdapter(adapter: GPUAdapter): boolean {
  return isSoftwareAdapterInfo(adapter.info);
}

export function selfTestCases(software: boolean): SelfTestCase[] {
  const exponents = software ? SIZE_EXPONENTS.software : SIZE_EXPONENTS.hardware;
  return exponents.flatMap((e) => KEY_BITS.map((keyBits) => ({ n: 2 ** e, keyBits })));
}

export class SelfTestPage {
  private context: GpuContext | null = null;
  private software = false;
  private running = false;
  private lost = false;
  private readonly status = el('p', { className: 'status', role: 'status', ariaLive: 'polite' });
  private readonly tbody = el('tbody');
  private readonly failures = el('ul', { className: 'failures' });
  private readonly rerun = el('button', { type: 'button', textContent: 'Run again', disabled: true });

  private constructor(private readonly root: HTMLElement) {
    this.rerun.addEventListener('click', () => void this.run());
  }

  /** Takes over the page's root element (`#app`). */
  static mount(selector = '#app'): SelfTestPage {
    const root = document.querySelector<HTMLElement>(selector);
    if (!root) throw new Error(`Splatsort: the page has no ${selector} element`);
    const page = new SelfTestPage(root);
    page.root.replaceChildren(header(), page.status);
    page.setStatus('Requesting a WebGPU device…');
    return page;
  }

  async start(context: GpuContext): Promise<void> {
    this.context = context;
    this.software = isSoftwareAdapter(context.adapter);
    const { device } = context;
    void device.lost.then((info) => this.onDeviceLost(info));
    device.addEventListener('uncapturederror', (event) => {
      console.error(`WebGPU error: ${event.error.message}`);
      this.setStatus(`WebGPU error: ${event.error.message}`, 'fail');
    });

    const yesNo = (on: boolean) => (on ? 'yes' : 'no');
    const facts = el('dl', { className: 'facts' });
    for (const [term, value] of [
      ['Adapter', context.adapterName + (this.software ? ' — software, smaller sizes' : '')],
      ['timestamp-query', yesNo(context.hasTimestamps)],
      ['subgroups', yesNo(context.hasSubgroups)],
    ]) {
      facts.append(el('dt', { textContent: term }), el('dd', { textContent: value }));
    }
    const table = el('table');
    const headRow = el('tr');
    for (const label of ['n', 'key bits', 'result', 'GPU ms', 'CPU ms']) {
      headRow.append(el('th', { scope: 'col', className: label === 'result' ? '' : 'num', textContent: label }));
    }
    table.append(el('thead', {}, headRow), this.tbody);

    this.root.replaceChildren(
      header(),
      el('h2', { textContent: 'GPU radix sort self-test' }),
      facts,
      this.status,
      table,
      this.failures,
      el('p', {}, this.rerun),
    );
    await this.run();
  }

  private async run(): Promise<void> {
    const context = this.context;
    if (!context || this.running || this.lost) return;
    this.running = true;
    this.rerun.disabled = true;
    delete document.body.dataset.selftest;
    this.failures.replaceChildren();

    const cases = selfTestCases(this.software);
    const rows = cases.map((c) => caseRow(c));
    this.tbody.replaceChildren(...rows);
    const results: SortSelfTestResult[] = [];

    for (const [i, c] of cases.entries()) {
      if (this.lost) break;
      this.setStatus(`Sorting ${i + 1} of ${cases.length}: ${formatCount(c.n)} pairs, ${c.keyBits}-bit keys…`);
      rows[i]!.dataset.state = 'running';
      rows[i]!.cells[2]!.textContent = 'running…';
      // Let the row repaint before the GPU work starts.
      await new Promise((resolve) => setTimeout(resolve, 0));
      let result: SortSelfTestResult;
      try {
        const runs = this.software ? RUNS.software : RUNS.hardware;
        result = await runSortSelfTest(context.device, { n: c.n, keyBits: c.keyBits, runs });
      } catch (error) {
        const message = `${formatCount(c.n)} pairs, ${c.keyBits}-bit keys: ${describeError(error)}`;
        result = { ok: false, n: c.n, keyBits: c.keyBits, gpuMs: null, cpuMs: NaN, message };
      }
      results.push(result);
      fillRow(rows[i]!, result);
      if (!result.ok) {
        this.failures.append(el('li', { textContent: result.message }));
      }
    }

    const failed = results.filter((r) => !r.ok).length;
    const pass = failed === 0 && results.length === cases.length;
    if (this.lost) {
      // onDeviceLost already explains; keep its message.
    } else if (pass) {
      this.setStatus(`All ${cases.length} sorts match the CPU reference.`, 'pass');
    } else {
      this.setStatus(`${failed} of ${cases.length} sorts differ from the CPU reference or failed to run.`, 'fail');
    }
    window.__splatsortSelfTest = results;
    document.body.dataset.selftest = pass ? 'pass' : 'fail';
    this.running = false;
    this.rerun.disabled = this.lost;
  }

  private onDeviceLost(info: GPUDeviceLostInfo): void {
    if (info.reason === 'destroyed') return;
    this.lost = true;
    this.rerun.disabled = true;
    const detail = info.message ? `: ${info.message}` : '.';
    this.setStatus(`The GPU device was lost${detail} Reload the page to start again.`, 'fail');
    if (!this.running) document.body.dataset.selftest = 'fail';
  }

  /** Replaces the page with an explanation of how to get WebGPU. */
  showWebGpuUnavailable(reason: string): void {
    const list = el('ul');
    for (const line of [
      'a current Chrome or Edge (desktop, or Android 12 and later)',
      'Safari 26 or later (macOS, iOS, iPadOS, visionOS)',
      'Firefox 141 or later on Windows',
      'another browser with its WebGPU flag enabled (Chromium: chrome://flags/#enable-unsafe-webgpu; Firefox: dom.webgpu.enabled in about:config), with hardware acceleration turned on',
    ]) {
      list.append(el('li', { textContent: line }));
    }
    const caniuse = el('a', { href: 'https://caniuse.com/webgpu', textContent: 'caniuse.com/webgpu' });
    this.root.replaceChildren(
      header(),
      el(
        'section',
        { className: 'notice' },
        el('h2', { textContent: 'WebGPU is not available' }),
        el('p', { className: 'muted', textContent: reason }),
        el('p', { textContent: 'Splatsort sorts and draws on the GPU through WebGPU. To run it, use:' }),
        list,
        el('p', {}, 'Which browsers support WebGPU: ', caniuse, '.'),
      ),
    );
    document.body.dataset.webgpu = 'unavailable';
    this.finishWithoutResults();
  }

  /** Replaces the status with an unexpected error. */
  showFatal(error: unknown): void {
    console.error(error);
    this.setStatus(`Splatsort could not start: ${describeError(error)}`, 'fail');
    this.finishWithoutResults();
  }

  private finishWithoutResults(): void {
    window.__splatsortSelfTest = [];
    document.body.dataset.selftest = 'fail';
  }

  private setStatus(text: string, tone: 'pass' | 'fail' | 'info' = 'info'): void {
    this.status.textContent = text;
    this.status.dataset.tone = tone;
  }
}

function header(): HTMLElement {
  return el('header', {}, el('h1', { textContent: 'Splatsort' }));
}

function caseRow(c: SelfTestCase): HTMLTableRowElement {
  const row = el('tr');
  row.dataset.n = String(c.n);
  row.dataset.keyBits = String(c.keyBits);
  row.dataset.state = 'pending';
  const exponent = Math.log2(c.n);
  const nCell = el('td', { className: 'num', textContent: formatCount(c.n) + ' ' });
  if (Number.isInteger(exponent)) nCell.append(el('span', { className: 'muted', textContent: `(2^${exponent})` }));
  row.append(
    nCell,
    el('td', { className: 'num', textContent: String(c.keyBits) }),
    el('td', { textContent: 'pending' }),
    el('td', { className: 'num', textContent: '—' }),
    el('td', { className: 'num', textContent: '—' }),
  );
  return row;
}

function fillRow(row: HTMLTableRowElement, result: SortSelfTestResult): void {
  row.dataset.state = result.ok ? 'pass' : 'fail';
  row.title = result.message;
  row.cells[2]!.textContent = result.ok ? 'pass' : 'fail';
  row.cells[3]!.textContent = result.gpuMs === null ? 'n/a — no timestamp-query' : formatMs(result.gpuMs);
  row.cells[4]!.textContent = formatMs(result.cpuMs);
}

function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  return ms.toFixed(ms < 1 ? 3 : ms < 100 ? 2 : 0);
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The self-test page (`?selftest`): asks for a device of its own (the page
 * shows nothing else) and runs the GPU sort's self-test on it.
 */
export async function runSelfTestPage(): Promise<void> {
  const page = SelfTestPage.mount();
  try {
    // `navigator.gpu` is undefined in browsers without WebGPU, whatever the DOM types say.
    const gpu: GPU | undefined = navigator.gpu;
    await page.start(await requestGpuContext(gpu, { label: 'Splatsort.device' }));
  } catch (error) {
    if (error instanceof WebGpuUnavailableError) page.showWebGpuUnavailable(error.message);
    else page.showFatal(error);
  }
}
