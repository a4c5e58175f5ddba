/**
 * The memory a browser test's Chromium really holds for its pages: the
 * proportional set size (PSS, /proc/PID/smaps_rollup: shared pages split
 * among the processes sharing them, so a sum counts each once) of every
 * renderer process (the page, its workers) and the GPU process (where
 * WebGPU's buffers live; on SwiftShader, in the machine's memory) that
 * this test process started. Linux only; the browser is found as this
 * process's descendant, so other tests' browsers are not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The processes descended from `root`, by reading every /proc/PID/stat once. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // The command name may hold spaces and parentheses: the fields after its last ')' are fixed.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The Chromium process types measured: the pages and the GPU. */
const MEASURED = /--type=(renderer|gpu-process)(?:\s|\0|$)/;

/** Bytes of PSS held now by the Chromium this process started, by process type (renderer, gpu-process). */
export function chromiumMemoryByType(): Record<string, number> {
  const byType: Record<string, number> = {};
  for (const pid of descendants(process.pid)) {
    try {
      const type = MEASURED.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1];
      if (!type) continue;
      const pss = /^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (pss) byType[type] = (byType[type] ?? 0) + Number(pss[1]) * 1024;
    } catch {
      // A process that ended between the listing and the read holds nothing.
    }
  }
  return byType;
}

/** Bytes of PSS held now by the renderer and GPU processes of the Chromium this process started. */
export function chromiumPageMemory(): number {
  const bytes = Object.values(chromiumMemoryByType()).reduce((sum, b) => sum + b, 0);
  if (bytes === 0) throw new Error(`no Chromium renderer or GPU process found under process ${process.pid}`);
  return bytes;
}

export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
