/**
 * `--compare "<command>"`: a reference sort (e.g. CUB through cub_sort.cu)
 * run on the same machine, before and after our GPU measurements, so the
 * ratio table in the docs is the output of one command. The command prints
 * JSON lines {"impl","n","bits","ms"} (and optionally a {"device"} line).
 *
 * Running it twice shows whether the machine changed under us (clocks,
 * another tenant): if before and after disagree by more than 5 % on a row,
 * that row's ratio is not to be trusted, and we say so.
 */
import { spawnSync } from 'node:child_process';

export interface CompareRow {
  impl: string;
  n: number;
  bits: number;
  ms: number;
  [key: string]: unknown;
}

export interface CompareRun {
  /** Rows with impl, n, bits and a numeric ms. */
  rows: CompareRow[];
  /** Other JSON lines (e.g. {"device": ...}). */
  info: Record<string, unknown>[];
}

/** Largest before/after disagreement accepted without a warning. */
export const COMPARE_AGREEMENT = 0.05;

/** Parses the JSON lines of a compare command's output; other lines are ignored. */
export function parseCompareOutput(text: string): CompareRun {
  const rows: CompareRow[] = [];
  const info: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch {
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    const r = value as Record<string, unknown>;
    if (typeof r.impl === 'string' && typeof r.n === 'number' && typeof r.bits === 'number' && typeof r.ms === 'number') {
      rows.push(r as CompareRow);
    } else {
      info.push(r);
    }
  }
  return { rows, info };
}

/**
 * Runs the command through the shell, its stderr passed through; throws if
 * it fails or prints no rows (a ratio table without its reference is worse
 * than none).
 */
export function runCompare(command: string): CompareRun {
  const result = spawnSync(command, {
    shell: true,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 << 20,
  });
  if (result.error) throw new Error(`--compare "${command}": ${result.error.message}`);
  if (result.status !== 0) throw new Error(`--compare "${command}" exited with status ${result.status ?? result.signal}`);
  const run = parseCompareOutput(result.stdout);
  if (run.rows.length === 0) throw new Error(`--compare "${command}" printed no {"impl","n","bits","ms"} lines`);
  return run;
}

const key = (r: { impl: string; n: number; bits: number }) => `${r.impl}/${r.n}/${r.bits}`;

/** Rows present in both runs whose ms differ by more than COMPARE_AGREEMENT (after / before - 1). */
export function compareDisagreements(before: CompareRow[], after: CompareRow[]): { row: CompareRow; change: number }[] {
  const afterByKey = new Map(after.map((r) => [key(r), r]));
  const out: { row: CompareRow; change: number }[] = [];
  for (const b of before) {
    const a = afterByKey.get(key(b));
    if (!a) continue;
    const change = a.ms / b.ms - 1;
    if (Math.abs(change) > COMPARE_AGREEMENT) out.push({ row: b, change });
  }
  return out;
}

/** Mean ms per (n, bits) over every compare row given (before and after). */
export function meanCompareMs(rows: CompareRow[]): Map<string, { ms: number; impl: string }> {
  const sums = new Map<string, { sum: number; count: number; impl: string }>();
  for (const r of rows) {
    const k = `${r.n}/${r.bits}`;
    const s = sums.get(k) ?? { sum: 0, count: 0, impl: r.impl };
    s.sum += r.ms;
    s.count++;
    sums.set(k, s);
  }
  return new Map([...sums].map(([k, s]) => [k, { ms: s.sum / s.count, impl: s.impl }]));
}

export interface OurRow {
  config: string;
  ranking?: string;
  n: number;
  keyBits: number;
  ms: number | null;
  spread?: number;
  drift?: boolean;
}

const fmtMs = (ms: number) => (ms < 1 ? ms.toFixed(3) : ms.toFixed(2));
const fmtPairs = (n: number) => (n >= 1 << 20 && n % (1 << 20) === 0 ? `${n / (1 << 20)}M` : n % 1024 === 0 ? `${n / 1024}K` : String(n));

/**
 * The markdown ratio table, one per GPU configuration: every (n, key bits)
 * measured by both us and the compare command. Unstable rows show
 * "unstable" and no ratio; drifting rows are marked with a footnote.
 */
export function ratioTable(ours: OurRow[], compare: CompareRow[], disagreeing: Set<string> = new Set()): string {
  const ref = meanCompareMs(compare);
  const refName = [...new Set(compare.map((r) => r.impl))].join('/');
  const lines: string[] = [];
  const configs = [...new Set(ours.map((r) => r.config))];
  for (const config of configs) {
    const rows = ours
      .filter((r) => r.config === config && ref.has(`${r.n}/${r.keyBits}`))
      .sort((a, b) => a.keyBits - b.keyBits || a.n - b.n);
    if (rows.length === 0) continue;
    const ranking = rows[0]!.ranking;
    lines.push(
      `Splatsort ${config}${ranking ? ` (${ranking} ranking)` : ''} beside ${refName}; ms, median after a stable warm-up; ` +
        `spread = p90 / p10 - 1; ${refName} = mean of its runs before and after ours.`,
      '',
      `| pairs | key bits | Splatsort ms | spread | ${refName} ms | ratio |`,
      '|---:|---:|---:|---:|---:|---:|',
    );
    let notes = false;
    for (const r of rows) {
      const c = ref.get(`${r.n}/${r.keyBits}`)!;
      const flag = (r.drift ? '†' : '') + (disagreeing.has(`${r.n}/${r.keyBits}`) ? '‡' : '');
      notes ||= flag !== '';
      const ms = r.ms === null ? 'unstable' : fmtMs(r.ms);
      const spread = r.spread === undefined || r.ms === null ? '–' : `${(100 * r.spread).toFixed(1)} %`;
      const ratio = r.ms === null ? '–' : `${(r.ms / c.ms).toFixed(2)}×`;
      lines.push(`| ${fmtPairs(r.n)} | ${r.keyBits} | ${ms}${flag} | ${spread} | ${fmtMs(c.ms)} | ${ratio} |`);
    }
    if (notes) {
      lines.push('', `† drift: the measured median moved off the warm-up. ‡ ${refName} before and after differ by more than ${100 * COMPARE_AGREEMENT} %.`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
