import { afterEach, describe, expect, it } from 'vitest';
import { recall, remember } from '../../src/ui/remembered';

const global = globalThis as { window?: unknown };

describe('choices remembered between visits', () => {
  afterEach(() => {
    delete global.window;
  });

  it('gives back what was stored, and null for what never was', () => {
    const store = new Map<string, string>();
    global.window = { localStorage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) } };
    expect(recall('sort-render-open')).toBeNull();
    remember('sort-render-open', 'open');
    expect(recall('sort-render-open')).toBe('open');
    expect([...store.keys()]).toEqual(['splatsort.sort-render-open']);
  });

  it('forgets quietly where storage refuses (a sandboxed frame, a full quota)', () => {
    global.window = {
      get localStorage(): Storage {
        throw new DOMException('access denied', 'SecurityError');
      },
    };
    expect(() => remember('save-open', 'open')).not.toThrow();
    expect(recall('save-open')).toBeNull();
  });
});
